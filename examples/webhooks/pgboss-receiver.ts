// The pg-boss recipe's parts (pgboss.ts starts them on pg-boss 12): the receiver, its `confirm`
// against your order row, the worker, and the dead letters, kept in a table of your own until
// someone replays or deletes them.
import pg from 'pg';
import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';
import { createCallbackReceiver } from 'payorch/webhooks';
import type { CallbackJob } from 'payorch/webhooks';
import { POSTGRES_TABLES_SQL, creditDeposit, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';
import { keysFromEnvironment, serveNodeHandler } from './receiver.js';
import type { Receiver } from './receiver.js';

/** The queue of verified callbacks, and where pg-boss moves a job whose retries ran out. */
export const QUEUE = 'payorch-callbacks';
export const DEAD_LETTERS = 'payorch-callbacks-dead';

/**
 * Dead jobs, kept until replayed or deleted by a person. pg-boss archives a job left waiting past
 * its retention (a dead letter inherits about four weeks) and deletes the archive a week later; a
 * row here has no such clock. Dead jobs carry customer data (names, IBANs): purge what you no
 * longer need, `DELETE FROM payorch_dead_letters WHERE dead_at < now() - interval '90 days'`.
 */
export const DEAD_LETTERS_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS payorch_dead_letters (job_id text PRIMARY KEY, job jsonb NOT NULL, dead_at timestamptz NOT NULL DEFAULT now())';

/** The parts of a started PgBoss this file uses. */
export interface Boss {
  createQueue(name: string, options?: { deadLetter?: string; retryLimit?: number; retryDelay?: number; retryBackoff?: boolean; expireInSeconds?: number }): Promise<void>;
  send(name: string, data: object): Promise<string | null>;
  work(name: string, handler: (jobs: { readonly id: string; readonly data: CallbackJob }[]) => Promise<unknown>): Promise<string>;
}

export interface PgBossReceiverOptions {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly connectionString: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

/**
 * Starts the receiving server and the workers on a started `boss`; `stop` stops pg-boss.
 * Resolves with the receiver and the pool its tables live in.
 */
export async function startOn(boss: Boss, stop: () => Promise<void>, { apiKey, secretKey, connectionString, port = 0, host = '127.0.0.1' }: PgBossReceiverOptions): Promise<Receiver & { readonly pool: pg.Pool }> {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', (error) => {
    console.error('postgres pool:', error.message);
  });
  // In a real application these belong to its migrations.
  await createPostgresInboxTable({ pool });
  for (const statement of [...POSTGRES_TABLES_SQL, DEAD_LETTERS_TABLE_SQL]) await pool.query(statement);

  await boss.createQueue(DEAD_LETTERS);
  // Ten attempts with backoff over about an hour and a half, then the dead letters.
  await boss.createQueue(QUEUE, { retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 300, deadLetter: DEAD_LETTERS });

  // Both sides share one receiver here: `enqueue` for the answer, `apply` for the worker.
  const receiver = createCallbackReceiver({
    apiKey,
    secretKey,
    inbox: createPostgresInbox({ pool }),
    // Resolves once the job is committed: only then does the service get its 200.
    enqueue: async (job) => {
      await boss.send(QUEUE, job);
    },
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row (a deposit's at most its ceiling, spec 4.5), read in the inbox's
    // transaction. A refusal rejects `apply`: retried, then kept in the dead letters.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
  });
  // `client` is the open transaction of the inbox: the credit commits with the callback's key.
  receiver.on('deposit.completed', (callback, { client }) => creditDeposit(client, callback.payload.tracking_code, callback.payload.amount));

  // The worker: a throw (a handler, `confirm`, a job changed in the queue) fails the job, and
  // pg-boss retries it, then moves it to DEAD_LETTERS.
  await boss.work(QUEUE, async ([job]) => {
    if (job !== undefined) await receiver.apply(job.data);
  });
  // The dead letters' worker copies each into the table, where no retention reaches it.
  await boss.work(DEAD_LETTERS, async ([job]) => {
    if (job === undefined) return;
    await pool.query('INSERT INTO payorch_dead_letters (job_id, job) VALUES ($1, $2) ON CONFLICT (job_id) DO NOTHING', [job.id, JSON.stringify(job.data)]);
    console.error(`callback job ${job.id} is dead: kept in payorch_dead_letters`);
  });

  const handle = await serveNodeHandler(receiver.nodeHandler, port, host);
  return {
    url: handle.url,
    pool,
    async close() {
      await handle.close();
      await stop();
      await pool.end();
    },
  };
}

/**
 * Replays the kept dead letters, oldest first: each goes back on the queue as it was (its
 * seal and signature still verify, its age is measured at its first receipt) and its row is deleted once
 * sent. It is applied once, or acknowledged if it was. One refused again (its record past the
 * inbox's retention, a job sealed before a key rotation whose window closed: re-seal it, `confirm`) fails its retries and is kept here again.
 */
export async function replayDeadLetters(boss: Boss, pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ job_id: string; job: CallbackJob }>('SELECT job_id, job FROM payorch_dead_letters ORDER BY dead_at, job_id');
  for (const row of rows) {
    // Sent before deleted: a failure in between replays a job twice, which the inbox makes harmless.
    await boss.send(QUEUE, row.job);
    await pool.query('DELETE FROM payorch_dead_letters WHERE job_id = $1', [row.job_id]);
  }
  return rows.length;
}

/** Runs `start` when `moduleUrl` is the script being run, with DATABASE_URL and the keys from the environment. */
export async function runWhenMain(moduleUrl: string, start: (options: PgBossReceiverOptions) => Promise<Receiver>): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== new URL(`file://${process.argv[1]}`).href) return;
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const receiver = await start({ ...keysFromEnvironment(), connectionString, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  console.log(`Receiving callbacks at ${receiver.url}; working the pg-boss queue ${QUEUE}`);
}
