// Scheduled recovery on pg-boss, beside the pg-boss receiver (pgboss.ts): two schedules, each run
// once per tick by one instance however many run it.
// - The transfer sweep, every minute. Dealer transfers have no callback: their end is only learnt
//   by reading their status. It reads the payouts still pending and marks each end once, through
//   the PostgreSQL inbox: a second sweep, on another instance or after a crash, changes nothing.
// - The reconcile, every five minutes: card payments whose callback never came (the receiver was
//   down until the service stopped retrying) are read with `receiver.reconcile`, queued as jobs,
//   and applied by the receiver's workers through the same confirm, inbox and credit.
//   DATABASE_URL=postgres://… and the keys of examples/env.ts: npx tsx examples/webhooks/transfer-sweep.ts
import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import { DealerClient, ProviderClient, applyTransferStatuses } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createPostgresInbox } from 'payorch/postgres';
import { env } from '../env.js';
import { start } from './pgboss.js';

export const SWEEP_QUEUE = 'payorch-transfer-sweep';
export const RECONCILE_QUEUE = 'payorch-reconcile';

export interface RecoveryOptions {
  /** The pg-boss and the pool of the receiver (pgboss.ts `start`). */
  readonly boss: PgBoss;
  readonly pool: pg.Pool;
  readonly receiver: Pick<CallbackReceiver<unknown>, 'reconcile'>;
  readonly provider: ProviderClient;
  readonly dealer: DealerClient;
  /** The merchant the inbox keeps transfer ends under: the same on every instance. */
  readonly merchantId: string;
}

export async function scheduleRecovery({ boss, pool, receiver, provider, dealer, merchantId }: RecoveryOptions) {
  // `payouts` stands for your own records; in a real application it belongs to its migrations.
  await pool.query("CREATE TABLE IF NOT EXISTS payouts (transfer_id text PRIMARY KEY, status text NOT NULL DEFAULT 'pending')");
  const inbox = createPostgresInbox({ pool });

  /** One sweep: the payouts still pending, each end applied once, in the inbox's transaction. */
  async function sweep() {
    const { rows } = await pool.query<{ transfer_id: string }>("SELECT transfer_id FROM payouts WHERE status = 'pending' ORDER BY transfer_id LIMIT 1000");
    const outcomes = await applyTransferStatuses({
      dealer,
      transferIds: rows.map((row) => row.transfer_id),
      inbox,
      merchantId,
      // completed: paid; failed or cancelled: give the amount back to the customer here too.
      onStatus: async (transfer, { client }) => {
        await client.query('UPDATE payouts SET status = $1 WHERE transfer_id = $2', [transfer.status, transfer.transfer_id]);
      },
    });
    for (const { result, transferId, error } of outcomes) if (result === 'failed' || result === 'too_old' || result === 'not_found') console.error(`transfer ${transferId}: ${result}`, error ?? '');
    return outcomes;
  }

  /** One reconcile: the card orders not credited yet (mark a failed one yours, or it is read every time). */
  async function reconcile() {
    const { rows } = await pool.query<{ tracking_code: string }>("SELECT tracking_code FROM orders WHERE kind = 'creditCard' AND paid_amount IS NULL ORDER BY tracking_code LIMIT 1000");
    const results = await receiver.reconcile({ provider, trackingCodes: rows.map((row) => row.tracking_code) });
    for (const { result, trackingCode, error } of results) if (result === 'failed' || result === 'too_old' || result === 'refused') console.error(`card payment ${trackingCode}: ${result}`, error ?? '');
    return results;
  }

  // A run that fails is simply the next tick's work: nothing is recorded for it.
  for (const [name, cron, run] of [[SWEEP_QUEUE, '* * * * *', sweep], [RECONCILE_QUEUE, '*/5 * * * *', reconcile]] as const) {
    await boss.createQueue(name);
    await boss.schedule(name, cron);
    await boss.work(name, async () => {
      await run();
    });
  }
  return { sweep, reconcile };
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const { apiKey, secretKey, credentialKey } = env.provider();
  const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });
  const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });
  const receiver = await start({ apiKey, secretKey, connectionString, provider, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  await scheduleRecovery({ ...receiver, provider, dealer, merchantId: 'dealer-main' });
  console.log(`Receiving callbacks at ${receiver.url}; sweeping pending transfers every minute and reconciling card payments every five`);
}
