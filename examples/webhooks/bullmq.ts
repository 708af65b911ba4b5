// Deferred callbacks on BullMQ 6 (Redis) with payorch/bullmq: the receiver answers 200 once the
// callback is a job, and the adapter's worker applies it with BullMQ's retries, once (the
// PostgreSQL inbox), on any number of instances. A job whose retries ran out is a dead letter, kept
// until `callbacks.deadLetters` replays or purges it. Yours here: the order check and the credit.
// bullmq-recovery.ts schedules the recovery of what no callback told.
//   npm install bullmq@6 ioredis pg
//   REDIS_URL=redis://127.0.0.1:6379 DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/bullmq.ts
// Redis must keep what it acknowledged: run it with `appendonly yes` and `maxmemory-policy noeviction`.
import pg from 'pg';
import type { ProviderClient } from 'payorch';
import { createBullMQQueue } from 'payorch/bullmq';
import type { BullMQQueueOptions } from 'payorch/bullmq';
import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';
import { createCallbackReceiver } from 'payorch/webhooks';
import { POSTGRES_TABLES_SQL, creditDeposit, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';
import { keysFromEnvironment, serveNodeHandler } from './receiver.js';

/** `provider` reads again the status of a job made by receiver.reconcile (bullmq-recovery.ts); port 0 picks a free one. */
export async function start({ apiKey, secretKey, connectionString, redis, provider, port = 0 }: { apiKey: string; secretKey: string; connectionString: string; redis: BullMQQueueOptions['connection']; provider?: ProviderClient; port?: number }) {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', (error) => { console.error('postgres pool:', error.message); });
  // In a real application these belong to its migrations.
  await createPostgresInboxTable({ pool });
  for (const statement of POSTGRES_TABLES_SQL) await pool.query(statement);
  const callbacks = createBullMQQueue({ connection: redis });
  const receiver = createCallbackReceiver({
    apiKey, secretKey, inbox: createPostgresInbox({ pool }), enqueue: callbacks.enqueue,
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be those
    // of your order row, read in the inbox's transaction. A refusal fails the job: retried, then a dead letter.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
  });
  // `client` is the inbox's open transaction: the credit commits with the callback's key.
  for (const event of ['deposit.completed', 'creditCard.success'] as const) receiver.on(event, (callback, { client }) => creditDeposit(client, callback.payload.tracking_code, callback.payload.amount));
  callbacks.work(receiver, { provider });
  const served = await serveNodeHandler(receiver.nodeHandler, port, '127.0.0.1');
  return { ...served, callbacks, receiver, pool, close: async () => { await served.close(); await callbacks.close(); await pool.end(); } };
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const receiver = await start({ ...keysFromEnvironment(), connectionString, redis: { url: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' }, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  console.log(`Receiving callbacks at ${receiver.url}; applying them from BullMQ`);
}
