import { afterAll, beforeAll, expect, test } from 'vitest';
import * as bullmqExample from '../../examples/webhooks/bullmq.js';
import { scheduleRecovery } from '../../examples/webhooks/bullmq-recovery.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { waitFor } from '../helpers/deferred.js';
import { ledgerDatabase } from '../helpers/hyperdrive.js';
import type { LedgerDatabase } from '../helpers/hyperdrive.js';
import { startRedisServer } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';
import { IBAN, dealerOf, providerOf } from '../helpers/sandbox.js';

// The scheduled recovery of the BullMQ recipe as it is written (examples/webhooks/bullmq.ts and
// bullmq-recovery.ts), on a real PostgreSQL and Redis, against the sandbox: the repeatable job is
// registered every minute, and a run (added as the scheduler adds it, rather than waiting a
// minute) credits a card payment whose callback never came, through the adapter's worker, and
// marks an ended transfer; runs after it change nothing.
let database: LedgerDatabase;
let redis: RedisServer;

beforeAll(async () => {
  database = await ledgerDatabase('payorch_bullmq_recovery');
  redis = await startRedisServer();
}, 20_000);
afterAll(async () => {
  await redis.close();
  await database.drop();
});

test('examples/webhooks/bullmq-recovery.ts runs a job every minute that credits a card payment whose callback never came and marks an ended transfer, each once', async () => {
  const sandbox = createSandbox();
  const provider = providerOf(sandbox);
  const dealer = dealerOf(sandbox);
  const redisOptions = redis.connection;
  const receiving = await bullmqExample.start({ ...sandbox.accounts.provider, connectionString: database.hyperdriveUrl, redis: redisOptions, provider, port: 0 });
  const recovery = await scheduleRecovery({ receiving, redis: redisOptions, provider, dealer, merchantId: 'dealer-example' });
  try {
    expect(await recovery.queue.getJobScheduler('every-minute')).toMatchObject({ every: 60_000 });

    // A card payment settled with no callback URL set, so its callback never came, and a transfer that ended.
    const { data: card } = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-card', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
    await database.pool.query("INSERT INTO orders (tracking_code, kind, user_id, amount) VALUES ($1, 'creditCard', 'u-card', 150)", [card.tracking_code]);
    expect((await sandbox.settle(card.tracking_code, 'success')).callback).toBeUndefined();
    const { eibans } = await dealer.eibans.list();
    const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 30 });
    await database.pool.query('INSERT INTO payouts (transfer_id) VALUES ($1)', [transfer.transfer_id]);
    await sandbox.settle(transfer.transfer_id, 'completed');

    await recovery.queue.add('every-minute', {});
    const payoutStatus = async () => (await database.pool.query<{ status: string }>('SELECT status FROM payouts WHERE transfer_id = $1', [transfer.transfer_id])).rows[0]?.status;
    await waitFor(async () => (await database.ledgerOf('u-card')).length === 1 && (await payoutStatus()) === 'completed', 10_000, 'the run to credit the card payment and mark the transfer');
    expect(await database.ledgerOf('u-card')).toEqual([{ tracking_code: card.tracking_code, amount: 150, balance: 150 }]);

    // Two runs at once after it: the payment was paid, so no longer reconciled; the transfer read
    // again is a duplicate of the end applied.
    await database.pool.query("UPDATE payouts SET status = 'pending' WHERE transfer_id = $1", [transfer.transfer_id]);
    const runs = await Promise.all([recovery.recover(), recovery.recover()]);
    expect(runs.flatMap((run) => run.swept.map((outcome) => outcome.result))).toEqual(['duplicate', 'duplicate']);
    expect(runs.flatMap((run) => run.reconciled)).toEqual([]);
    expect(await database.ledgerOf('u-card')).toEqual([{ tracking_code: card.tracking_code, amount: 150, balance: 150 }]);
    expect(await recovery.queue.getJobCountByTypes('failed')).toBe(0);
  } finally {
    await recovery.queue.removeJobScheduler('every-minute');
    await recovery.close();
    await receiving.close();
  }
}, 30_000);
