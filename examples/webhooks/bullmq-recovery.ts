// Scheduled recovery beside bullmq.ts: a BullMQ repeatable job, every minute, run by one instance
// per tick however many schedule it, recovers what no callback told. Card payments whose callback
// never came: receiver.reconcile reads each status, and the adapter's worker applies each end once
// (bullmq.ts starts it with `provider`). Dealer transfers, which have no callback: each end read is
// marked once, through the PostgreSQL inbox. A run that fails is simply the next minute's work.
import { Queue, Worker } from 'bullmq';
import type { RedisOptions } from 'bullmq';
import { applyTransferStatuses } from 'payorch';
import type { DealerClient, ProviderClient } from 'payorch';
import { createPostgresInbox } from 'payorch/postgres';
import type { start } from './bullmq.js';

export const RECOVERY_QUEUE = 'payorch-recovery';

export interface RecoveryOptions {
  /** What bullmq.ts started: its pool and receiver. */
  readonly receiving: Pick<Awaited<ReturnType<typeof start>>, 'pool' | 'receiver'>;
  readonly redis: RedisOptions;
  readonly provider: ProviderClient;
  readonly dealer: DealerClient;
  /** The merchant the inbox keeps transfer ends under: the same on every instance. */
  readonly merchantId: string;
}

export async function scheduleRecovery({ receiving: { pool, receiver }, redis, provider, dealer, merchantId }: RecoveryOptions) {
  // `payouts` stands for your own records of the transfers you sent; in your migrations.
  await pool.query("CREATE TABLE IF NOT EXISTS payouts (transfer_id text PRIMARY KEY, status text NOT NULL DEFAULT 'pending')");
  const inbox = createPostgresInbox({ pool });

  async function recover() {
    // Your card orders still awaiting their end: here, those not paid yet.
    const cards = await pool.query<{ tracking_code: string }>("SELECT tracking_code FROM orders WHERE kind = 'creditCard' AND paid_amount IS NULL ORDER BY tracking_code LIMIT 1000");
    const reconciled = await receiver.reconcile({ provider, trackingCodes: cards.rows.map((row) => row.tracking_code) });
    const payouts = await pool.query<{ transfer_id: string }>("SELECT transfer_id FROM payouts WHERE status = 'pending' ORDER BY transfer_id LIMIT 1000");
    const swept = await applyTransferStatuses({
      dealer, transferIds: payouts.rows.map((row) => row.transfer_id), inbox, merchantId,
      // completed: paid; failed or cancelled: give the amount back to the customer here too.
      onStatus: async (transfer, { client }) => { await client.query('UPDATE payouts SET status = $1 WHERE transfer_id = $2', [transfer.status, transfer.transfer_id]); },
    });
    for (const { result, error } of [...reconciled, ...swept]) if (result === 'failed' || result === 'not_found') console.error(`recovery: ${result}`, error ?? '');
    return { reconciled, swept };
  }

  const queue = new Queue(RECOVERY_QUEUE, { connection: redis });
  await queue.upsertJobScheduler('every-minute', { every: 60_000 }, { opts: { removeOnComplete: true, removeOnFail: 100 } });
  const worker = new Worker(RECOVERY_QUEUE, recover, { connection: redis });
  const heard = (error: Error) => { console.error('bullmq recovery:', error.message); };
  queue.on('error', heard);
  worker.on('error', heard);
  return { queue, recover, close: async () => { await worker.close(); await queue.close(); } };
}
