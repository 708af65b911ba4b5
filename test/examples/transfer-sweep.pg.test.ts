import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { SWEEP_QUEUE, start } from '../../examples/webhooks/transfer-sweep.js';
import { DealerClient } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../helpers/deferred.js';
import { IBAN, SANDBOX_BASE_URL } from '../helpers/sandbox.js';

// The scheduled transfer sweep of docs/webhooks.md as it is written (examples/webhooks/
// transfer-sweep.ts), on a real PostgreSQL and pg-boss, against the sandbox: the schedule is
// registered, a run (sent as the schedule sends it, rather than waiting a minute) marks the ended
// transfer, and sweeps after it change nothing.
const url = inject('postgresUrl');
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: url });
  pool.on('error', () => undefined);
});
afterAll(async () => {
  await pool.query('DROP TABLE IF EXISTS payouts');
  await pool.end();
});

test('examples/webhooks/transfer-sweep.ts schedules a sweep every minute that marks an ended transfer once', async () => {
  const sandbox = createSandbox();
  const dealer = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, fetch: sandbox.fetch, maxRetries: 0 });
  const sweeper = await start({ dealer, connectionString: url, accountName: 'dealer-example' });
  try {
    expect((await sweeper.boss.getSchedules()).find((schedule) => schedule.name === SWEEP_QUEUE)).toMatchObject({ cron: '* * * * *' });
    const { eibans } = await dealer.eibans.list();
    const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 30 });
    await pool.query('INSERT INTO payouts (transfer_id) VALUES ($1)', [transfer.transfer_id]);
    await sandbox.settle(transfer.transfer_id, 'completed');

    await sweeper.boss.send(SWEEP_QUEUE, {});
    const statusOf = async () => (await pool.query<{ status: string }>('SELECT status FROM payouts WHERE transfer_id = $1', [transfer.transfer_id])).rows[0]?.status;
    await waitFor(async () => (await statusOf()) === 'completed', 8000, 'the sweep to mark the transfer');
    // A sweep that read the transfer while it was pending, racing one that runs now: the end is recorded once.
    await pool.query("UPDATE payouts SET status = 'pending' WHERE transfer_id = $1", [transfer.transfer_id]);
    const outcomes = await Promise.all([sweeper.sweep(), sweeper.sweep()]);
    expect(outcomes.flat().map((outcome) => outcome.result)).toEqual(['duplicate', 'duplicate']);
  } finally {
    await sweeper.boss.unschedule(SWEEP_QUEUE);
    await sweeper.close();
  }
}, 20_000);
