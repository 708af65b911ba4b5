// Deferred callbacks on BullMQ (Redis): the receiver answers the service as soon as the verified
// callback is a BullMQ job, and a Worker applies it with BullMQ's attempts and backoff, exactly
// once (the PostgreSQL inbox), on any number of instances. A job whose attempts ran out stays in
// the queue's failed set (`removeOnFail: false`): your dead letters, kept until replayed with
// `replayFailed` or removed by a person (they carry customer data: names, IBANs).
// BullMQ 6 makes ioredis an optional peer: install it beside BullMQ.
//   npm install bullmq@6 ioredis pg
//   REDIS_URL=redis://127.0.0.1:6379 DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/bullmq.ts
// Redis must keep what it acknowledged: run it with `appendonly yes` and `maxmemory-policy noeviction`.
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';
import { createCallbackReceiver } from 'payorch/webhooks';
import type { CallbackJob } from 'payorch/webhooks';
import { POSTGRES_TABLES_SQL, creditDeposit, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';
import { keysFromEnvironment, serveNodeHandler } from './receiver.js';
import type { Receiver } from './receiver.js';

export const QUEUE = 'payorch-callbacks';

export interface BullMqReceiverOptions {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly connectionString: string;
  readonly redis: { readonly host: string; readonly port: number };
  /** 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

export async function start({ apiKey, secretKey, connectionString, redis, port = 0, host = '127.0.0.1' }: BullMqReceiverOptions): Promise<Receiver & { readonly queue: Queue<CallbackJob> }> {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', (error) => {
    console.error('postgres pool:', error.message);
  });
  // In a real application these belong to its migrations.
  await createPostgresInboxTable({ pool });
  for (const statement of POSTGRES_TABLES_SQL) await pool.query(statement);

  // `enableOfflineQueue: false`: while Redis is down, `add` fails at once and the service gets a
  // 500 (it delivers again), instead of a request held open until Redis returns.
  const queue = new Queue<CallbackJob>(QUEUE, { connection: { ...redis, enableOfflineQueue: false } });
  queue.on('error', (error) => {
    console.error('bullmq queue:', error.message);
  });

  const receiver = createCallbackReceiver({
    apiKey,
    secretKey,
    inbox: createPostgresInbox({ pool }),
    enqueue: async (job) => {
      // Ten attempts with exponential backoff from 5 s: nine waits, 5 s doubling, about 43 minutes
      // in all. A job whose attempts ran out stays in the failed set (removeOnFail: false).
      await queue.add('callback', job, { attempts: 10, backoff: { type: 'exponential', delay: 5000 }, removeOnComplete: 1000, removeOnFail: false });
    },
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row (a deposit's at most its ceiling, spec 4.5), read in the inbox's
    // transaction. A refusal fails the job: retried, then kept in the failed set.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
  });
  // `client` is the open transaction of the inbox: the credit commits with the callback's key.
  receiver.on('deposit.completed', (callback, { client }) => creditDeposit(client, callback.payload.tracking_code, callback.payload.amount));

  // A worker that dies mid-job loses its lock; BullMQ's stalled-job check gives the job to another.
  const worker = new Worker<CallbackJob>(QUEUE, async (job) => receiver.apply(job.data), { connection: { ...redis, maxRetriesPerRequest: null } });
  worker.on('error', (error) => {
    console.error('bullmq worker:', error.message);
  });

  const handle = await serveNodeHandler(receiver.nodeHandler, port, host);
  return {
    url: handle.url,
    queue,
    async close() {
      await handle.close();
      await worker.close();
      await queue.close();
      await pool.end();
    },
  };
}

/** Replays the failed set (the dead letters): each job runs again, and is applied once, or acknowledged if it was. */
export async function replayFailed(queue: Queue<CallbackJob>): Promise<number> {
  const failed = await queue.getFailed();
  await Promise.all(failed.map((job) => job.retry()));
  return failed.length;
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const redisUrl = new URL(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  const receiver = await start({ ...keysFromEnvironment(), connectionString, redis: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  console.log(`Receiving callbacks at ${receiver.url}; working the BullMQ queue ${QUEUE}`);
}
