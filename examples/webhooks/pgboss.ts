// Deferred callbacks on pg-boss: the receiver answers the service as soon as the verified
// callback is stored as a pg-boss job in your PostgreSQL, and a worker applies it with pg-boss's
// retries, backoff and dead-letter queue, exactly once (the PostgreSQL inbox), on any number of
// instances. Here both run in one process; run `work` alone on your worker instances.
//   DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/pgboss.ts
import { createServer } from 'node:http';
import PgBoss from 'pg-boss';
import pg from 'pg';
import { createCallbackInboxTable, createPostgresInbox } from 'payorch/postgres';
import { createCallbackReceiver } from 'payorch/webhooks';
import type { CallbackJob } from 'payorch/webhooks';
import { CALLBACK_PATH, handleOf, keysFromEnvironment } from './receiver.js';
import type { Receiver } from './receiver.js';

/** The queue of verified callbacks, and where pg-boss moves a job whose retries ran out. */
export const QUEUE = 'payorch-callbacks';
export const DEAD_LETTERS = 'payorch-callbacks-dead';

export interface PgBossReceiverOptions {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly connectionString: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

export async function start({ apiKey, secretKey, connectionString, port = 0, host = '127.0.0.1' }: PgBossReceiverOptions): Promise<Receiver & { readonly boss: PgBoss }> {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', (error) => {
    console.error('postgres pool:', error.message);
  });
  // In a real application these belong to its migrations.
  await createCallbackInboxTable({ pool });
  await pool.query('CREATE TABLE IF NOT EXISTS balances (user_id text PRIMARY KEY, amount numeric NOT NULL DEFAULT 0)');

  const boss = new PgBoss({ connectionString });
  boss.on('error', (error) => {
    console.error('pg-boss:', error.message);
  });
  await boss.start();
  await boss.createQueue(DEAD_LETTERS);
  // Ten attempts with backoff over about an hour, then the dead letters: a failure nobody fixed
  // in that time waits there to be replayed, instead of being lost.
  await boss.createQueue(QUEUE, { name: QUEUE, retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 300, deadLetter: DEAD_LETTERS });

  // Both sides share one receiver here: `enqueue` for the answer, `apply` for the worker.
  const receiver = createCallbackReceiver({
    apiKey,
    secretKey,
    inbox: createPostgresInbox({ pool }),
    // Resolves once the job is committed: only then does the service get its 200.
    enqueue: async (job) => {
      await boss.send(QUEUE, job);
    },
  });
  // `client` is the open transaction of the inbox: the credit commits with the callback's key.
  receiver.on('deposit.completed', async (callback, { client }) => {
    const { user_id: userId, amount } = callback.payload;
    if (userId === undefined) throw new Error('the callback names no user_id');
    await client.query('INSERT INTO balances (user_id, amount) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET amount = balances.amount + EXCLUDED.amount', [userId, amount]);
  });

  // The worker: a throw (a handler, `confirm`, a job changed in the queue) fails the job, and
  // pg-boss retries it, then moves it to DEAD_LETTERS.
  await boss.work<CallbackJob>(QUEUE, async ([job]) => {
    if (job !== undefined) await receiver.apply(job.data);
  });

  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://receiver').pathname !== CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    void receiver.nodeHandler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const handle = handleOf(server);
  return {
    url: handle.url,
    boss,
    async close() {
      await handle.close();
      await boss.stop({ graceful: true, wait: true });
      await pool.end();
    },
  };
}

/**
 * Replays the dead letters: each goes back on the queue as it was (its signature still verifies,
 * its age is measured at its first receipt), and is applied once, or acknowledged if it was.
 */
export async function replayDeadLetters(boss: PgBoss): Promise<number> {
  let replayed = 0;
  for (let jobs = await boss.fetch<CallbackJob>(DEAD_LETTERS); jobs.length > 0; jobs = await boss.fetch<CallbackJob>(DEAD_LETTERS)) {
    for (const job of jobs) {
      await boss.send(QUEUE, job.data);
      await boss.complete(DEAD_LETTERS, job.id);
      replayed += 1;
    }
  }
  return replayed;
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const receiver = await start({ ...keysFromEnvironment(), connectionString, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  console.log(`Receiving callbacks at ${receiver.url}; working the pg-boss queue ${QUEUE}`);
}
