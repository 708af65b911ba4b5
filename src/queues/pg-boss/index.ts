/**
 * payorch/pg-boss: deferred callbacks on pg-boss 12 and PostgreSQL. The receiver answers the
 * service once the job is committed in pg-boss; workers apply it with pg-boss's retries; a job
 * whose attempts ran out is kept as a dead letter in a table of your PostgreSQL, past every
 * retention of pg-boss's, until a person replays or purges it. It never imports `pg-boss` or `pg`:
 * the `PgBoss` and the pool are yours.
 *
 * @example
 * ```ts
 * import { PgBoss } from 'pg-boss';
 * import { Pool } from 'pg';
 * import { createCallbackReceiver } from 'payorch/webhooks';
 * import { createPostgresInbox } from 'payorch/postgres';
 * import { createPgBossDeadLetterTable, createPgBossQueue } from 'payorch/pg-boss';
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * const boss = new PgBoss(process.env.DATABASE_URL!);
 * await boss.start();
 * await createPgBossDeadLetterTable({ pool }); // or in your migrations: pgBossDeadLetterTableSql()
 * const queue = createPgBossQueue({ boss, pool });
 * const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createPostgresInbox({ pool }), enqueue: queue.enqueue });
 * await queue.work(receiver);
 * ```
 *
 * @module payorch/pg-boss
 */
import { checkOptions } from '../../core/option-checks.js';
import { QueueError } from '../../errors/error.js';
import { lastErrorOf, retryCannotHelp } from '../dead-letters.js';
import type { CallbackQueue, DeadLetter } from '../dead-letters.js';
import type { CallbackJob } from '../../webhooks/job.js';
import type { CallbackReceiver } from '../../webhooks/receiver/receiver.js';
import type { PgBossPolicy } from './boss.js';
import { checkDeadLetterTable, deadLettersIn, keepDeadJob } from './dead-letters.js';
import type { DeadLetterStore } from './dead-letters.js';
import { DEFAULT_PGBOSS_EXPIRE_IN_SECONDS, DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS, DEFAULT_PGBOSS_QUEUE, DEFAULT_PGBOSS_RETENTION_SECONDS, DEFAULT_PGBOSS_RETRY_DELAY_SECONDS, DEFAULT_PGBOSS_RETRY_LIMIT, PGBOSS_QUEUE_OPTIONS, PGBOSS_WORK_OPTIONS } from './options.js';
import type { PgBossQueueOptions, PgBossWorkOptions } from './options.js';
import { deadLetterTableName } from './table.js';

/** The workers {@link PgBossQueue.work} started. */
export interface PgBossWorkers {
  /** Stops both workers, once the jobs they are applying are done (`boss.stop()` stops them too). */
  stop(): Promise<void>;
}

/** A callback queue on pg-boss: {@link CallbackQueue}, and the workers that apply its jobs. */
export interface PgBossQueue extends CallbackQueue {
  /**
   * Starts this process's workers: one applies each job with `receiver.apply`, with pg-boss's
   * retries, and keeps a job whose attempts ran out in the dead letters' table; the other keeps
   * the jobs pg-boss itself gave up on (an attempt that expired on the last try: its worker died)
   * in the same table. Run it on as many instances as you like.
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver, ProviderClient } from 'payorch';
   * import type { PgBossQueue } from 'payorch/pg-boss';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * declare const provider: ProviderClient;
   * declare const queue: PgBossQueue;
   * const workers = await queue.work(receiver, { provider });
   * process.on('SIGTERM', () => void workers.stop());
   * ```
   */
  work(receiver: Pick<CallbackReceiver<unknown>, 'apply'>, options?: PgBossWorkOptions): Promise<PgBossWorkers>;
}

/** The last error pg-boss kept of a job it failed itself: an expired attempt, or a worker's throw. */
function pgBossError(output: object | null | undefined): string {
  const { value } = (output ?? {}) as { readonly value?: unknown };
  const error = (typeof value === 'object' && value !== null ? value : output ?? {}) as Partial<Record<'name' | 'message', unknown>>;
  const message = typeof error.message === 'string' ? error.message : 'no error was recorded';
  if (message === 'job timed out') return 'Error: pg-boss: the last attempt timed out (expireInSeconds): its worker stopped or hung';
  return lastErrorOf(`${typeof error.name === 'string' ? error.name : 'Error'}: ${message}`);
}

/**
 * A callback queue on pg-boss 12: give `enqueue` to `createCallbackReceiver`, start the workers
 * with `work(receiver)`, and list, replay or purge the dead letters with `deadLetters`.
 *
 * - `enqueue` resolves once pg-boss committed the job, with this queue's retry policy.
 * - A failed attempt is retried by pg-boss (`retryLimit`, `retryDelaySeconds`, `retryBackoff`).
 *   The last failure, or a job that can never apply (`CallbackJobError`, `CallbackRetentionError`),
 *   is kept in the dead letters' table with its attempts and last error, and told to
 *   `onDeadLetter`; pg-boss then completes it. An attempt whose worker died is retried once it
 *   expires (`expireInSeconds`); on the last attempt, pg-boss's dead-letter queue brings it to the
 *   table.
 * - The table has no clock: a dead letter stays past pg-boss's `retentionSeconds` and
 *   `deleteAfterSeconds` until it is replayed or purged.
 * - `deadLetters.replay` claims the rows (`FOR UPDATE SKIP LOCKED`), sends their jobs to pg-boss in
 *   the same transaction, deletes the rows and commits: each is sent once, even by two replays at
 *   once, and at most 100 per call.
 *
 * The queues are created, and their policy set, on the first `enqueue`, `work` or replay.
 *
 * @throws {RequestValidationError} at once for a missing `boss` or `pool` or an impossible option, naming it
 * @example
 * ```ts
 * import { createPgBossQueue } from 'payorch/pg-boss';
 * import { createCallbackReceiver } from 'payorch';
 * import { createPostgresInbox } from 'payorch/postgres';
 * import type pg from 'pg';
 * import type { PgBoss } from 'pg-boss';
 * declare const pool: pg.Pool;
 * declare const boss: PgBoss;
 * declare const apiKey: string;
 * declare const secretKey: string;
 * const queue = createPgBossQueue({ boss, pool, retryLimit: 5 });
 * const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createPostgresInbox({ pool }), enqueue: queue.enqueue });
 * await queue.work(receiver);
 *
 * const { deadLetters } = await queue.deadLetters.list();
 * await queue.deadLetters.replay({ ids: deadLetters.map((deadLetter) => deadLetter.id) });
 * ```
 */
export function createPgBossQueue(options: PgBossQueueOptions): PgBossQueue {
  checkOptions('createPgBossQueue', options, PGBOSS_QUEUE_OPTIONS);
  const { boss, pool } = options;
  const queue = options.queue ?? DEFAULT_PGBOSS_QUEUE;
  const deadQueue = `${queue}-dead`;
  const policy: PgBossPolicy = {
    retryLimit: options.retryLimit ?? DEFAULT_PGBOSS_RETRY_LIMIT,
    retryDelay: options.retryDelaySeconds ?? DEFAULT_PGBOSS_RETRY_DELAY_SECONDS,
    retryBackoff: options.retryBackoff ?? true,
    expireInSeconds: options.expireInSeconds ?? DEFAULT_PGBOSS_EXPIRE_IN_SECONDS,
    retentionSeconds: options.retentionSeconds ?? DEFAULT_PGBOSS_RETENTION_SECONDS,
  };
  // Each job carries the policy, whatever the queue row says; the queue's own applies to a job
  // sent there without it.
  const jobPolicy: PgBossPolicy = { ...policy, deadLetter: deadQueue };

  let made: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    made ??= (async () => {
      // The dead-letter queue first: a queue names it, and pg-boss checks that it exists.
      await boss.createQueue(deadQueue, policy);
      await boss.updateQueue(deadQueue, policy);
      await boss.createQueue(queue, jobPolicy);
      await boss.updateQueue(queue, jobPolicy);
    })();
    // A failure (the database down) is tried again by the next call.
    made.catch(() => {
      made = undefined;
    });
    return made;
  };

  const store: DeadLetterStore = {
    pool,
    table: deadLetterTableName('createPgBossQueue', options),
    queue,
    send: async (job, db) => {
      await ready();
      if ((await boss.send(queue, job as object, { ...jobPolicy, db })) === null) throw new QueueError(`payorch/pg-boss: pg-boss did not take the replayed job on ${queue}; nothing was replayed`);
    },
  };
  const deadLetters = deadLettersIn(store);

  return {
    async enqueue(job) {
      await ready();
      // null: pg-boss took nothing (a singleton policy on the queue). Not queued: the receiver answers 500.
      if ((await boss.send(queue, job, jobPolicy)) === null) throw new QueueError(`payorch/pg-boss: pg-boss did not take the job on ${queue} (is the queue's policy 'standard'?); not queued`);
    },
    deadLetters,
    async work(receiver, workOptions = {}) {
      checkOptions('PgBossQueue.work', workOptions, PGBOSS_WORK_OPTIONS);
      const applyOptions = workOptions.provider === undefined ? undefined : { provider: workOptions.provider };
      const tell =
        workOptions.onDeadLetter ??
        ((deadLetter: DeadLetter) => {
          console.error(`payorch/pg-boss: the job ${deadLetter.id} (${deadLetter.kind} ${deadLetter.trackingCode} ${deadLetter.status}) is a dead letter after ${deadLetter.attempts} attempt(s): ${deadLetter.lastError}. Kept until replayed or purged (deadLetters)`);
        });
      const keep = async (id: string, job: unknown, attempts: number, lastError: string): Promise<void> => {
        const deadLetter = await keepDeadJob(store, { id, job, attempts, lastError });
        if (deadLetter === undefined) return;
        try {
          tell(deadLetter);
        } catch (error) {
          // Kept already: a throwing listener must not make pg-boss retry the job.
          console.error('payorch/pg-boss: onDeadLetter threw', error);
        }
      };
      const worker = { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: workOptions.pollingIntervalSeconds ?? DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS, localConcurrency: workOptions.localConcurrency ?? 1 } as const;
      // Before any job is taken: a job that died with nowhere to be kept would wait in pg-boss.
      await checkDeadLetterTable(store);
      await ready();
      const applying = await boss.work(queue, worker, async (jobs) => {
        for (const job of jobs) {
          try {
            await receiver.apply(job.data as CallbackJob, applyOptions);
          } catch (error) {
            const hopeless = retryCannotHelp(error);
            // Thrown: pg-boss retries it. A failure to keep it fails the last attempt too, and
            // pg-boss's dead-letter queue brings it to the table.
            if (job.retryCount < job.retryLimit && !hopeless) throw error;
            await keep(job.id, job.data, job.retryCount + 1, lastErrorOf(error));
          }
        }
      });
      const keeping = await boss.work(deadQueue, { ...worker, localConcurrency: 1 }, async (jobs) => {
        // Under the id of the job that died: kept once, whichever worker kept it first.
        for (const job of jobs) await keep(job.sourceId ?? job.id, job.data, (job.sourceRetryCount ?? 0) + 1, pgBossError(job.sourceOutput));
      });
      return {
        async stop() {
          await Promise.all([boss.offWork(queue, { id: applying }), boss.offWork(deadQueue, { id: keeping })]);
        },
      };
    },
  };
}

export { createPgBossDeadLetterTable, pgBossDeadLetterTableSql, DEFAULT_PGBOSS_DEAD_LETTER_TABLE } from './table.js';
export { DEFAULT_PGBOSS_QUEUE } from './options.js';
export type { PgBossDeadLetterTableOptions } from './table.js';
export type { TableMigration } from '../../core/table-migration.js';
export type { PgBossQueueOptions, PgBossWorkOptions } from './options.js';
export type { PgBossDatabase, PgBossJob, PgBossLike, PgBossPolicy, PgBossSendOptions, PgBossWorkerOptions } from './boss.js';
export type { PostgresClient, PostgresPool, PostgresQueryResult } from '../../inboxes/postgres/table.js';
export type { CallbackQueue, DeadLetter, DeadLetterPage, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions, ReplayDeadLettersOptions, ReplayedDeadLetters } from '../dead-letters.js';
export { CallbackJobError, CallbackRetentionError, QueueError } from '../../errors/error.js';
