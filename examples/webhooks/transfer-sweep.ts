// A scheduled sweep of dealer transfers on pg-boss. Transfers have no callback: their end is only
// learnt by reading their status. Every minute, one instance (pg-boss runs a schedule once per
// tick however many instances run it) reads the payouts still pending and marks each end once,
// through the PostgreSQL inbox: a second sweep, on another instance or after a crash, finds the
// end applied and changes nothing.
//   DATABASE_URL=postgres://… PAYORCH_BASE_URL=… PAYORCH_DEALER_API_KEY=… PAYORCH_DEALER_SECRET_KEY=… npx tsx examples/webhooks/transfer-sweep.ts
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { DealerClient, applyTransferStatuses } from 'payorch';
import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';

export const SWEEP_QUEUE = 'payorch-transfer-sweep';

export interface TransferSweepOptions {
  readonly dealer: DealerClient;
  readonly connectionString: string;
  /** The account the inbox records ends under: the same on every instance (your receiver's accountName). */
  readonly accountName: string;
}

export async function start({ dealer, connectionString, accountName }: TransferSweepOptions) {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', (error) => {
    console.error('postgres pool:', error.message);
  });
  // In a real application these belong to its migrations; `payouts` stands for your own records.
  await createPostgresInboxTable({ pool });
  await pool.query("CREATE TABLE IF NOT EXISTS payouts (transfer_id text PRIMARY KEY, status text NOT NULL DEFAULT 'pending')");
  const inbox = createPostgresInbox({ pool });

  /** One sweep: the payouts still pending, each end applied once, in the inbox's transaction. */
  async function sweep() {
    const { rows } = await pool.query<{ transfer_id: string }>("SELECT transfer_id FROM payouts WHERE status = 'pending' ORDER BY transfer_id LIMIT 1000");
    const outcomes = await applyTransferStatuses({
      dealer,
      transferIds: rows.map((row) => row.transfer_id),
      inbox,
      accountName,
      onStatus: async (transfer, { client }) => {
        // completed: paid; failed or cancelled: give the amount back to the customer here too.
        await client.query('UPDATE payouts SET status = $1 WHERE transfer_id = $2', [transfer.status, transfer.transfer_id]);
      },
    });
    for (const outcome of outcomes) {
      if (outcome.result === 'failed' || outcome.result === 'too_old' || outcome.result === 'not_found') console.error(`transfer ${outcome.transferId}: ${outcome.result}`, outcome.error ?? '');
    }
    return outcomes;
  }

  const boss = new PgBoss({ connectionString });
  boss.on('error', (error) => {
    console.error('pg-boss:', error.message);
  });
  await boss.start();
  await boss.createQueue(SWEEP_QUEUE);
  // Every minute. A sweep that fails is simply the next minute's work: nothing is recorded for it.
  await boss.schedule(SWEEP_QUEUE, '* * * * *');
  await boss.work(SWEEP_QUEUE, async () => {
    await sweep();
  });

  return {
    boss,
    pool,
    sweep,
    async close() {
      // pg-boss 12's stop() waits for active jobs (graceful by default).
      await boss.stop();
      await pool.end();
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const dealer = new DealerClient({ baseUrl: process.env['PAYORCH_BASE_URL'] ?? '', apiKey: process.env['PAYORCH_DEALER_API_KEY'] ?? '', secretKey: process.env['PAYORCH_DEALER_SECRET_KEY'] ?? '' });
  await start({ dealer, connectionString, accountName: 'dealer-main' });
  console.log(`Sweeping pending transfers every minute (pg-boss queue ${SWEEP_QUEUE})`);
}
