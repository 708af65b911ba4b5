import { afterAll, beforeAll, expect, test } from 'vitest';
import { start } from '../../examples/webhooks/pgboss.js';
import { RECONCILE_QUEUE, SWEEP_QUEUE, scheduleRecovery } from '../../examples/webhooks/transfer-sweep.js';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { waitFor } from '../helpers/deferred.js';
import { ledgerDatabase } from '../helpers/hyperdrive.js';
import type { LedgerDatabase } from '../helpers/hyperdrive.js';
import { IBAN, SANDBOX_BASE_URL } from '../helpers/sandbox.js';

// The scheduled recovery of docs/recovering-callbacks.md as it is written (examples/webhooks/transfer-sweep.ts,
// beside the pg-boss receiver of pgboss.ts), on a real PostgreSQL and pg-boss, against the sandbox:
// both schedules are registered; a run of each (sent as the schedule sends it, rather than waiting
// for the tick) marks the ended transfer and credits the card payment whose callback never came;
// runs after them change nothing. A database of its own: other files use the same table names.
let database: LedgerDatabase;

beforeAll(async () => {
  database = await ledgerDatabase('payorch_recovery_recipe');
}, 20_000);
afterAll(async () => {
  await database.drop();
});

test('examples/webhooks/transfer-sweep.ts schedules a transfer sweep every minute and a reconcile every five, which mark an ended transfer and credit a card payment without its callback, each once', async () => {
  const sandbox = createSandbox();
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  const provider = new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey, secretKey, credentialKey: sites[0].credentialKey, fetch: sandbox.fetch, maxRetries: 0 });
  const dealer = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, fetch: sandbox.fetch, maxRetries: 0 });
  const receiver = await start({ apiKey, secretKey, connectionString: database.hyperdriveUrl, provider });
  const recovery = await scheduleRecovery({ ...receiver, provider, dealer, merchantId: 'dealer-example' });
  try {
    const schedules = await receiver.boss.getSchedules();
    expect(schedules.filter((schedule) => schedule.name === SWEEP_QUEUE || schedule.name === RECONCILE_QUEUE).map(({ name, cron }) => ({ name, cron }))).toEqual([
      { name: RECONCILE_QUEUE, cron: '*/5 * * * *' },
      { name: SWEEP_QUEUE, cron: '* * * * *' },
    ]);

    // A payout whose transfer ended; the sweep marks it.
    const { eibans } = await dealer.eibans.list();
    const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 30 });
    await database.pool.query('INSERT INTO payouts (transfer_id) VALUES ($1)', [transfer.transfer_id]);
    await sandbox.settle(transfer.transfer_id, 'completed');
    await receiver.boss.send(SWEEP_QUEUE, {});
    const statusOf = async () => (await database.pool.query<{ status: string }>('SELECT status FROM payouts WHERE transfer_id = $1', [transfer.transfer_id])).rows[0]?.status;
    await waitFor(async () => (await statusOf()) === 'completed', 8000, 'the sweep to mark the transfer');
    // A sweep that read the transfer while it was pending, racing one that runs now: the end is recorded once.
    await database.pool.query("UPDATE payouts SET status = 'pending' WHERE transfer_id = $1", [transfer.transfer_id]);
    const outcomes = await Promise.all([recovery.sweep(), recovery.sweep()]);
    expect(outcomes.flat().map((outcome) => outcome.result)).toEqual(['duplicate', 'duplicate']);

    // A card payment that succeeded and whose callback never reached the receiver (the sandbox
    // has no callback URL to deliver it to).
    const { data } = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-card', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
    await database.pool.query("INSERT INTO orders (tracking_code, kind, user_id, amount) VALUES ($1, 'creditCard', 'u-card', 150)", [data.tracking_code]);
    expect((await sandbox.settle(data.tracking_code, 'success')).callback?.delivered).not.toBe(true);
    await receiver.boss.send(RECONCILE_QUEUE, {});
    await waitFor(async () => (await database.ledgerOf('u-card')).length > 0, 10_000, 'the reconciled card payment to be credited');
    expect(await database.ledgerOf('u-card')).toEqual([{ tracking_code: data.tracking_code, amount: 150, balance: 150 }]);
    // Credited: the order leaves the reconcile's list, and a reconcile of it finds it applied.
    expect(await recovery.reconcile()).toEqual([]);
    expect((await receiver.receiver.reconcile({ provider, trackingCodes: [data.tracking_code] })).map((result) => result.result)).toEqual(['queued']);
    const waiting = async () => (await database.pool.query<{ count: number }>("SELECT count(*)::int AS count FROM pgboss.job WHERE name = 'payorch-callbacks' AND state IN ('created', 'retry', 'active')")).rows[0]?.count;
    await waitFor(async () => (await waiting()) === 0, 10_000, 'the second reconcile’s job to be worked');
    expect(await database.ledgerOf('u-card')).toEqual([{ tracking_code: data.tracking_code, amount: 150, balance: 150 }]);
  } finally {
    for (const name of [SWEEP_QUEUE, RECONCILE_QUEUE]) await receiver.boss.unschedule(name);
    await receiver.close();
  }
}, 40_000);
