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
import type { PgBossJob, PgBossJobResult, PgBossLike, PgBossPolicy } from './boss.js';
import { checkDeadLetterTable, deadLettersIn, keepDeadJob, storable } from '../postgres-dead-letters.js';
import { historyOf, inTransaction, jobOf, pgBossJobData } from './job-data.js';
import type { PgBossJobData } from './job-data.js';
import type { DeadLetterStore } from '../postgres-dead-letters.js';
import {
  DEFAULT_PGBOSS_BACKLOG_CHECK_SECONDS,
  DEFAULT_PGBOSS_BATCH_SIZE,
  DEFAULT_PGBOSS_EXPIRE_IN_SECONDS,
  DEFAULT_PGBOSS_HEARTBEAT_SECONDS,
  DEFAULT_PGBOSS_LOCAL_CONCURRENCY,
  DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS,
  DEFAULT_PGBOSS_QUEUE,
  DEFAULT_PGBOSS_RETENTION_SECONDS,
  DEFAULT_PGBOSS_RETRY_DELAY_SECONDS,
  DEFAULT_PGBOSS_RETRIES,
  PGBOSS_QUEUE_OPTIONS,
  PGBOSS_WORK_OPTIONS,
  checkRetention,
} from './options.js';
import type { PgBossBacklog, PgBossQueueOptions, PgBossWorkOptions } from './options.js';
import { deadLetterTableName } from '../../postgres/dead-letter-table.js';
import { PGBOSS_CREATE_DEAD_LETTER_TABLE, PGBOSS_DEAD_LETTER_TABLE } from './dead-letter-table.js';
import { callListener } from '../../core/listener.js';

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
   * in the same table. Each runs `localConcurrency` pg-boss workers fetching `batchSize` jobs,
   * again at once while batches come back full. Run it on as many instances as you like.
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
  if (message === 'job heartbeat timeout') return 'Error: pg-boss: the last attempt\'s worker stopped telling pg-boss it held the job (heartbeatSeconds): it died';
  return lastErrorOf(`${typeof error.name === 'string' ? error.name : 'Error'}: ${message}`);
}

/** A failed attempt's error as pg-boss keeps it, in jsonb: a handler's message may quote a name. */
function failedAttempt(id: string, error: unknown): PgBossJobResult {
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { id, status: 'failed', output: { name: storable(name), message: storable(message) } };
}

/** How many readings in a row must grow before `onBacklog` is told, and how many pass before it is told again. */
const GROWING_READINGS = 3;
const BACKLOG_QUIET_READINGS = 10;

/**
 * Reads the jobs ready and not taken every `seconds`, for the meter and `tell`: told when they
 * grew over the last readings. pg-boss refreshes the counts in its supervision, so equal readings
 * in a row do not end a growth. Returns what stops it.
 */
function watchBacklog(boss: PgBossLike, queue: string, seconds: number, tell: (backlog: PgBossBacklog) => void, meter: PgBossWorkOptions['meter']): () => void {
  const readings: number[] = [];
  let quiet = 0;
  try {
    meter
      ?.createObservableUpDownCounter('payorch.queue.backlog', { description: 'Jobs ready on the queue and not taken by a worker, as last read', unit: '{job}' })
      .addCallback((result) => {
        const last = readings.at(-1);
        if (last !== undefined) result.observe(last, { 'payorch.queue': queue });
      });
  } catch {
    // A meter that throws changes nothing.
  }
  const timer = setInterval(() => {
    void boss.getQueue(queue).then(
      (counts) => {
        if (counts === null) return;
        readings.push(counts.readyCount);
        if (readings.length > GROWING_READINGS + 1) readings.shift();
        quiet = Math.max(0, quiet - 1);
        const first = readings[0] ?? 0;
        const ready = readings.at(-1) ?? 0;
        const growing = readings.length > GROWING_READINGS && ready > first && readings.every((value, index) => index === 0 || value >= (readings[index - 1] ?? 0));
        if (!growing || quiet > 0) return;
        quiet = BACKLOG_QUIET_READINGS;
        callListener(tell, [{ queue, ready, readyBefore: first, seconds: GROWING_READINGS * seconds }], (error) => {
          console.error('payorch/pg-boss: onBacklog threw', error);
        });
      },
      // pg-boss reports its own failures (its 'error' event); the next reading tries again.
      () => undefined,
    );
  }, seconds * 1000);
  // A reading never keeps the process alive.
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}

/**
 * A callback queue on pg-boss 12: give `enqueue` to `createCallbackReceiver`, start the workers
 * with `work(receiver)`, and list, replay or purge the dead letters with `deadLetters`.
 *
 * - `enqueue` resolves once pg-boss committed the job, with this queue's retry policy.
 * - A failed attempt is retried by pg-boss (`retries`, `retryDelaySeconds`, `retryBackoff`).
 *   The last failure, or a job that can never apply (`CallbackJobError`, `CallbackRetentionError`),
 *   is kept in the dead letters' table with its attempts and last error, and told to
 *   `onDeadLetter`; pg-boss then completes it. An attempt whose worker died is retried once its
 *   heartbeat stops (`heartbeatSeconds`), one that hangs once it expires (`expireInSeconds`); on
 *   the last attempt, pg-boss's dead-letter queue brings it to the table.
 * - The table has no clock: a dead letter stays past pg-boss's `retentionSeconds` and
 *   `deleteAfterSeconds` until it is replayed or purged.
 * - `deadLetters.replay` claims the rows (`FOR UPDATE SKIP LOCKED`), sends their jobs to pg-boss in
 *   the same transaction, deletes the rows and commits: each is sent once, even by two replays at
 *   once, and at most 100 per call.
 *
 * The queues are created, and their policy set, on the first `enqueue`, `work` or replay.
 *
 * @throws {RequestValidationError} at once for a missing `boss` or `pool` or an impossible option, naming it, and for a `retentionSeconds` its retries outlast
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
 * const queue = createPgBossQueue({ boss, pool, retries: 5 });
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
  const retries = {
    retryLimit: options.retries ?? DEFAULT_PGBOSS_RETRIES,
    retryDelay: options.retryDelaySeconds ?? DEFAULT_PGBOSS_RETRY_DELAY_SECONDS,
    retryBackoff: options.retryBackoff ?? true,
    expireInSeconds: options.expireInSeconds ?? DEFAULT_PGBOSS_EXPIRE_IN_SECONDS,
    retentionSeconds: options.retentionSeconds ?? DEFAULT_PGBOSS_RETENTION_SECONDS,
  };
  // A job leaves pg-boss applied or as a dead letter, never deleted while it waits for a retry.
  checkRetention(retries);
  const policy: PgBossPolicy = { ...retries, heartbeatSeconds: options.heartbeatSeconds ?? DEFAULT_PGBOSS_HEARTBEAT_SECONDS };
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
    definition: PGBOSS_DEAD_LETTER_TABLE,
    create: PGBOSS_CREATE_DEAD_LETTER_TABLE,
    queue,
    send: async (replayed, client) => {
      await ready();
      const data: PgBossJobData = { job: replayed.job, history: replayed.history };
      if ((await boss.send(queue, data, { ...jobPolicy, db: inTransaction(client) })) === null) throw new QueueError(`payorch/pg-boss: pg-boss did not take the replayed job on ${queue}; nothing was replayed`);
    },
  };
  const deadLetters = deadLettersIn(store);

  return {
    async enqueue(job) {
      await ready();
      // null: pg-boss took nothing (a singleton policy on the queue). Not queued: the receiver answers 500.
      if ((await boss.send(queue, pgBossJobData(job), jobPolicy)) === null) throw new QueueError(`payorch/pg-boss: pg-boss did not take the job on ${queue} (is the queue's policy 'standard'?); not queued`);
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
      const keep = async (id: string, data: unknown, attempts: number, lastError: string): Promise<void> => {
        const deadLetter = await keepDeadJob(store, { id, job: jobOf(data), attempts, lastError, history: historyOf(data) });
        if (deadLetter === undefined) return;
        // Kept already: a throwing listener must not make pg-boss retry the job.
        callListener(tell, [deadLetter], (error) => {
          console.error('payorch/pg-boss: onDeadLetter threw', error);
        });
      };
      // Batches settled job by job, and fetched again at once while they come back full: a
      // backlog drains at the speed of the applications, not one batch per polling interval.
      const worker = {
        includeMetadata: true,
        perJobResults: true,
        burstWhenBatchFull: true,
        batchSize: workOptions.batchSize ?? DEFAULT_PGBOSS_BATCH_SIZE,
        pollingIntervalSeconds: workOptions.pollingIntervalSeconds ?? DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS,
        localConcurrency: workOptions.localConcurrency ?? DEFAULT_PGBOSS_LOCAL_CONCURRENCY,
      } as const;
      // Before any job is taken: a job that died with nowhere to be kept would wait in pg-boss.
      await checkDeadLetterTable(store);
      await ready();
      const settle = (jobs: PgBossJob[], one: (job: PgBossJob) => Promise<void>): Promise<PgBossJobResult[]> =>
        Promise.all(jobs.map(async (job) => one(job).then(() => ({ id: job.id, status: 'completed' as const }), (error: unknown) => failedAttempt(job.id, error))));
      const applying = await boss.work(queue, worker, (jobs) =>
        settle(jobs, async (job) => {
          const callbackJob = jobOf(job.data);
          try {
            await receiver.apply(callbackJob as CallbackJob, applyOptions);
          } catch (error) {
            // Failed: pg-boss retries it. A failure to keep it fails the last attempt too, and
            // pg-boss's dead-letter queue brings it to the table.
            if (job.retryCount < job.retryLimit && !retryCannotHelp(error)) throw error;
            await keep(job.id, job.data, job.retryCount + 1, lastErrorOf(error));
          }
        }),
      );
      // Under the id of the job that died: kept once, whichever worker kept it first.
      const keeping = await boss.work(deadQueue, { ...worker, localConcurrency: 1 }, (jobs) =>
        settle(jobs, (job) => keep(job.sourceId ?? job.id, job.data, (job.sourceRetryCount ?? 0) + 1, pgBossError(job.sourceOutput))),
      );
      const stopWatching = watchBacklog(
        boss,
        queue,
        workOptions.backlogCheckSeconds ?? DEFAULT_PGBOSS_BACKLOG_CHECK_SECONDS,
        workOptions.onBacklog ??
          ((backlog) => {
            console.warn(`payorch/pg-boss: ${backlog.ready} jobs wait on ${backlog.queue}, up from ${backlog.readyBefore} ${backlog.seconds} s before: the workers do not keep up. Run more worker processes, or raise localConcurrency or batchSize (docs/deferred.md, On pg-boss)`);
          }),
        workOptions.meter,
      );
      return {
        async stop() {
          stopWatching();
          await Promise.all([boss.offWork(queue, { id: applying }), boss.offWork(deadQueue, { id: keeping })]);
        },
      };
    },
  };
}

export { createPgBossDeadLetterTable, pgBossDeadLetterTableSql, DEFAULT_PGBOSS_DEAD_LETTER_TABLE } from './dead-letter-table.js';
export { DEFAULT_PGBOSS_QUEUE } from './options.js';
export type { PgBossDeadLetterTableOptions } from './dead-letter-table.js';
export type { TableMigration } from '../../core/table-migration.js';
export type { PgBossBacklog, PgBossQueueOptions, PgBossWorkOptions } from './options.js';
export type { PgBossDatabase, PgBossJob, PgBossJobResult, PgBossLike, PgBossPolicy, PgBossQueueCounts, PgBossSendOptions, PgBossWorkerOptions } from './boss.js';
export type { PgBossJobData } from './job-data.js';
export type { PostgresClient, PostgresPool, PostgresQueryResult } from '../../postgres/table.js';
export type { CallbackQueue, DeadLetter, DeadLetterLife, DeadLetterPage, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions, ReplayDeadLettersOptions, ReplayedDeadLetters } from '../dead-letters.js';
export { CallbackJobError, CallbackRetentionError, QueueError } from '../../errors/error.js';
