// The factory of payorch/bullmq, its settings and its worker.
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { RedisOptions } from 'bullmq';
import { MAX_TIMEOUT_MS, checkOptions, declareOptions } from '../../core/option-checks.js';
import { QueueError, RequestValidationError } from '../../errors/error.js';
import { lastErrorOf, retryCannotHelp } from '../dead-letters.js';
import type { CallbackQueue, DeadLetter } from '../dead-letters.js';
import type { CallbackJob } from '../../webhooks/job.js';
import type { CallbackReceiver } from '../../webhooks/receiver/receiver.js';
import type { CardStatusSource } from '../../webhooks/status-read.js';
import { BULLMQ_DEFAULTS as DEFAULTS, bullMQDeadLetters, deadLetterOfJob } from './dead-letters.js';
import { notQueued, redisErrors } from './unreachable.js';
import { callListener } from '../../core/listener.js';

/** Settings of {@link createBullMQQueue}. */
export interface BullMQQueueOptions {
  /**
   * Where Redis is, as ioredis options (`host`, `port`, `password`, `tls`, `db`, `retryStrategy`)
   * or `{ url }`. The adapter opens its own connections from them: one for the queue, on which
   * `enqueue` fails at once while Redis is down (`enableOfflineQueue: false`, so the receiver
   * answers 500 and the service delivers again, instead of holding the request), and BullMQ's own
   * for each worker. A client object is refused: BullMQ needs connections of its own settings.
   * @example { url: process.env.REDIS_URL! }
   */
  readonly connection: RedisOptions;
  /**
   * The name of the BullMQ queue the jobs go to. Letters, digits, `_`, `.` and `-`.
   * @default 'payorch-callbacks'
   * @example 'billing-callbacks'
   */
  readonly queue?: string | undefined;
  /**
   * BullMQ's prefix of the queue's Redis keys: give the same on every process of the queue (a
   * Redis Cluster needs a hash tag, `{…}`, to keep them in one slot).
   * @default 'bull'
   * @example '{payorch}'
   */
  readonly prefix?: string | undefined;
  /**
   * How many times a job is retried after its first attempt fails (so `retries` + 1 attempts, as
   * BullMQ's `attempts`); then it is a dead letter. A job that can never apply (a
   * `CallbackJobError`: changed in the queue, another merchant's, sealed with the previous key past
   * its `until`; a `CallbackRetentionError`) is a dead letter at once: retrying cannot help it.
   * @default 10
   * @example 20
   */
  readonly retries?: number | undefined;
  /**
   * The wait before the first retry, in seconds; each retry waits twice the one before (BullMQ's
   * exponential backoff). With the defaults, ten retries from 5 s: about 85 minutes from the first
   * attempt to the dead letter.
   * @default 5
   * @example 30
   */
  readonly retryDelaySeconds?: number | undefined;
  /**
   * Told of the errors BullMQ's queue and workers emit, each a `QueueError` (BullMQ's or ioredis'
   * own is its `cause`), and once at start of a Redis that may lose jobs (see `acceptVolatileRedis`).
   * A Redis that cannot be reached is told once a minute while it lasts, with the count of
   * connection errors, not once per reconnect. Unheard, such an error would end the process.
   * @default a console.error line with the error's message
   * @example (error) => logger.warn({ error }, error.message)
   */
  readonly onError?: ((error: QueueError) => void) | undefined;
  /**
   * Accepts on purpose a Redis that may lose jobs after the service was told 200: one without an
   * append-only file (`appendonly no`: a restart loses every queued job and dead letter) or whose
   * `maxmemory-policy` is not `noeviction`. At start the adapter reads `INFO` and, unless this is
   * true, says so on the console and to `onError`, with the line that fixes it; it never refuses to
   * run. Where `INFO` is refused (a managed Redis), it says once that it could not check.
   * @default false
   * @example true // a test, or a deployment that only caches
   */
  readonly acceptVolatileRedis?: boolean | undefined;
}

/** Settings of {@link BullMQCallbackQueue.work}. */
export interface BullMQWorkOptions {
  /**
   * The provider client that reads again the status of a job made by `receiver.reconcile`
   * (`receiver.apply(job, { provider })`); needed only for those jobs.
   * @example new ProviderClient({ baseUrl, apiKey, secretKey })
   */
  readonly provider?: CardStatusSource | undefined;
  /**
   * How many jobs the worker runs at once. With the PostgreSQL inbox each holds a connection of
   * the pool while it runs.
   * @default 1
   * @example 4
   */
  readonly concurrency?: number | undefined;
  /**
   * How long a running job's lock lasts, in milliseconds; the worker renews it while the job runs.
   * A worker that dies (SIGKILL, a lost machine) stops renewing it, and once it lapses the
   * stalled-job check gives the job to another worker: with the PostgreSQL inbox the dead worker's
   * transaction rolled back, and the job is applied once.
   * @default 30000
   * @example 60_000
   */
  readonly lockDurationMs?: number | undefined;
  /**
   * How often the worker looks for stalled jobs (whose lock lapsed), in milliseconds. A dead
   * worker's job runs again within about `lockDurationMs` plus this.
   * @default 30000
   * @example 10_000
   */
  readonly stalledIntervalMs?: number | undefined;
  /**
   * How many times a job may stall before it is a dead letter instead of being run again (a job
   * that takes its worker down each time it runs).
   * @default 1
   * @example 3
   */
  readonly maxStalledCount?: number | undefined;
  /**
   * Told of each job as it becomes a dead letter (its attempts ran out, it could never apply, or
   * it stalled too often): alert on it. A dead letter is kept until a person replays or purges
   * it; `deadLetter.lastError` says why it died.
   * @default a console.error line with its id, kind, tracking code, attempts and last error
   * @example (deadLetter) => logger.error({ deadLetter }, 'a callback job is a dead letter')
   */
  readonly onDeadLetter?: ((deadLetter: DeadLetter) => void) | undefined;
}

/** What {@link createBullMQQueue} gives: the queue's `enqueue` and `deadLetters`, and its worker. */
export interface BullMQCallbackQueue extends CallbackQueue {
  /**
   * Starts a BullMQ worker of the queue that applies each job with `receiver.apply`, with the
   * queue's attempts and backoff. Call it on each process that applies callbacks (any number):
   * the inbox applies each callback once across them. A job whose attempts ran out is a dead letter.
   * @returns the BullMQ `Worker`, running (`close()` stops it; {@link BullMQCallbackQueue.close} stops every one)
   * @throws {RequestValidationError} for an impossible option, naming it
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver, ProviderClient } from 'payorch';
   * import type { BullMQCallbackQueue } from 'payorch/bullmq';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * declare const provider: ProviderClient;
   * declare const callbacks: BullMQCallbackQueue;
   * const worker = callbacks.work(receiver, { provider });
   * ```
   */
  work(receiver: Pick<CallbackReceiver<never>, 'apply'>, options?: BullMQWorkOptions): Worker<CallbackJob>;
  /** The BullMQ `Queue` itself: for Bull Board, metrics, `waitUntilReady()`. Add no job to it yourself: `enqueue` sets the retries and keeps dead letters. */
  readonly queue: Queue<CallbackJob>;
  /** Closes every worker `work` started (each lets its running job finish), then the queue's connection. */
  close(): Promise<void>;
}

/** @internal */
export const BULLMQ_QUEUE_OPTIONS = declareOptions<BullMQQueueOptions>()([
  { name: 'connection', rule: { type: 'object', methods: [], allowed: 'ioredis options, for example { host, port } or { url }' }, required: true },
  { name: 'queue', rule: { type: 'text', maxLength: 100, pattern: /^[A-Za-z0-9_.-]+$/, allowed: 'letters, digits, _, . and - (at most 100)' }, default: DEFAULTS.queue },
  { name: 'prefix', rule: { type: 'text', maxLength: 100, pattern: /^[A-Za-z0-9_.:{}-]+$/, allowed: 'letters, digits, _, ., :, {, } and - (at most 100)' }, default: DEFAULTS.prefix },
  { name: 'retries', rule: { type: 'number', min: 0, max: 100, integer: true }, default: DEFAULTS.retries },
  { name: 'retryDelaySeconds', rule: { type: 'number', min: 0, max: 3600, unit: 'seconds' }, default: DEFAULTS.retryDelaySeconds },
  { name: 'onError', rule: { type: 'function' } },
  { name: 'acceptVolatileRedis', rule: { type: 'boolean' }, default: false },
]);

/** @internal */
export const BULLMQ_WORK_OPTIONS = declareOptions<BullMQWorkOptions>()([
  { name: 'provider', rule: { type: 'object', methods: [], allowed: 'a ProviderClient' } },
  { name: 'concurrency', rule: { type: 'number', min: 1, max: 1000, integer: true }, default: DEFAULTS.concurrency },
  { name: 'lockDurationMs', rule: { type: 'number', min: 100, max: MAX_TIMEOUT_MS, integer: true, unit: 'milliseconds' }, default: DEFAULTS.lockDurationMs },
  { name: 'stalledIntervalMs', rule: { type: 'number', min: 100, max: MAX_TIMEOUT_MS, integer: true, unit: 'milliseconds' }, default: DEFAULTS.stalledIntervalMs },
  { name: 'maxStalledCount', rule: { type: 'number', min: 0, max: 100, integer: true }, default: DEFAULTS.maxStalledCount },
  { name: 'onDeadLetter', rule: { type: 'function' } },
]);

/**
 * A callback queue on BullMQ: `enqueue` adds each verified callback as a job (its retries and
 * backoff set, kept in the failed set once they ran out), `work(receiver)` applies them, and
 * `deadLetters` lists, replays and purges the failed set.
 *
 * - **Retries:** `retries` after the first attempt, waiting `retryDelaySeconds` and then twice as
 *   long each time. A worker
 *   that dies mid-job loses its lock, and BullMQ's stalled-job check gives the job to another
 *   (`lockDurationMs`, `stalledIntervalMs`).
 * - **Dead letters** are the queue's failed set, kept with `removeOnFail: false`: BullMQ deletes
 *   none of them, and Redis keeps them as long as it keeps anything (see the module's Redis
 *   settings). A completed job is removed at once: the inbox remembers what was applied.
 * - **Replay** moves dead letters back to the queue with BullMQ's `retry`, which takes a job out of
 *   the failed set in the same Lua script that queues it: nothing is deleted before it is sent,
 *   two replays at once move each job once, and the job has the queue's attempts again. At most
 *   100 per call; call again while `remaining` is above 0.
 * - **Purge** deletes dead letters by id (only while they are dead letters: a job replayed
 *   meanwhile is left alone), or every one that failed before a date.
 *
 * @throws {RequestValidationError} for an impossible option, naming it
 * @example
 * ```ts
 * import type pg from 'pg';
 * import { createCallbackReceiver } from 'payorch/webhooks';
 * import { createPostgresInbox } from 'payorch/postgres';
 * import type { PostgresClient } from 'payorch/postgres';
 * import { createBullMQQueue } from 'payorch/bullmq';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * declare const pool: pg.Pool;
 * // Refunds the user and the amount of your order row: the hash covers neither of the callback's.
 * declare function refundOrder(client: PostgresClient, trackingCode: string): Promise<void>;
 *
 * const callbacks = createBullMQQueue({ connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } });
 * const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createPostgresInbox({ pool }), enqueue: callbacks.enqueue });
 * receiver.on('withdrawal.rejected', async (callback, { client }) => refundOrder(client, callback.payload.tracking_code));
 * callbacks.work(receiver);
 *
 * const { deadLetters } = await callbacks.deadLetters.list();
 * await callbacks.deadLetters.replay({ ids: deadLetters.map((letter) => letter.id) });
 * ```
 */
export function createBullMQQueue(options: BullMQQueueOptions): BullMQCallbackQueue {
  const where = 'createBullMQQueue';
  checkOptions(where, options, BULLMQ_QUEUE_OPTIONS);
  if (typeof (options.connection as Partial<Record<'duplicate', unknown>>).duplicate === 'function') {
    throw new RequestValidationError(where, [
      { field: 'connection', rule: 'invalid_option', message: 'must be ioredis options ({ host, port } or { url }), not a client: the adapter opens its own connections with the settings BullMQ needs; got a client' },
    ]);
  }
  const name = options.queue ?? DEFAULTS.queue;
  const prefix = options.prefix ?? DEFAULTS.prefix;
  const jobOptions = {
    attempts: (options.retries ?? DEFAULTS.retries) + 1,
    backoff: { type: 'exponential', delay: Math.round((options.retryDelaySeconds ?? DEFAULTS.retryDelaySeconds) * 1000) },
    removeOnComplete: true,
    removeOnFail: false,
  } as const;
  const onError =
    options.onError ??
    ((error: QueueError) => {
      console.error(error.message);
    });
  const tell = (error: QueueError): void => {
    // A listener that throws or rejects would end the process just the same.
    callListener(onError, [error], (listenerError) => {
      console.error('payorch/bullmq: onError threw', listenerError);
    });
  };
  // Shared by the queue and every worker: one Redis down is one report a minute.
  const hear = redisErrors(name, tell);

  const queue = new Queue<CallbackJob>(name, { connection: { ...options.connection, enableOfflineQueue: false }, prefix });
  queue.on('error', hear);
  const workers = new Set<Worker<CallbackJob>>();
  let closed = false;
  if (options.acceptVolatileRedis !== true) {
    // Not awaited: enqueue works meanwhile; a Redis that is down is told by the queue's own errors.
    void checkRedis(queue, () => closed).then(
      (problems) => {
        for (const problem of problems) {
          const error = new QueueError(`payorch/bullmq: ${name}: ${problem}`);
          console.warn(error.message);
          tell(error);
        }
      },
      () => undefined,
    );
  }

  return {
    queue,
    deadLetters: bullMQDeadLetters(queue),
    async enqueue(job) {
      try {
        await queue.add('callback', job, jobOptions);
      } catch (error) {
        throw notQueued(name, error);
      }
    },
    work(receiver, workOptions) {
      checkOptions('work', workOptions, BULLMQ_WORK_OPTIONS);
      const provider = workOptions?.provider;
      const worker = new Worker<CallbackJob>(
        name,
        async (job) => {
          try {
            await receiver.apply(job.data, { provider });
          } catch (error) {
            throw failureOf(error);
          }
        },
        {
          connection: options.connection,
          prefix,
          concurrency: workOptions?.concurrency ?? DEFAULTS.concurrency,
          lockDuration: workOptions?.lockDurationMs ?? DEFAULTS.lockDurationMs,
          stalledInterval: workOptions?.stalledIntervalMs ?? DEFAULTS.stalledIntervalMs,
          maxStalledCount: workOptions?.maxStalledCount ?? DEFAULTS.maxStalledCount,
        },
      );
      worker.on('error', hear);
      const onDeadLetter =
        workOptions?.onDeadLetter ??
        ((deadLetter: DeadLetter) => {
          console.error(`payorch/bullmq: the job ${deadLetter.id} (${deadLetter.kind} ${deadLetter.trackingCode} ${deadLetter.status}) is a dead letter after ${String(deadLetter.attempts)} attempt(s): ${deadLetter.lastError}. Kept until replayed or purged (deadLetters)`);
        });
      const tell = async (job: Parameters<typeof deadLetterOfJob>[1]): Promise<void> => {
        const deadLetter = await deadLetterOfJob(queue, job);
        callListener(onDeadLetter, [deadLetter], (error) => {
          console.error('payorch/bullmq: onDeadLetter threw', error);
        });
      };
      // BullMQ sets finishedOn only when a failure is final: a retry has none. A job that stalled
      // more than maxStalledCount times fails here too, when a worker next takes it.
      worker.on('failed', (job) => {
        // Its earlier lives are read from Redis; one that cannot be read is told to onError.
        if (job?.finishedOn !== undefined) tell(job).catch((error: unknown) => {
          hear(error instanceof Error ? error : new QueueError(String(error)));
        });
      });
      workers.add(worker);
      return worker;
    },
    async close() {
      closed = true;
      await Promise.all([...workers].map((worker) => worker.close()));
      workers.clear();
      await queue.close();
    },
  };
}

const ACCEPT = 'or, to accept losing them, acceptVolatileRedis: true';

/**
 * What may lose the queue's jobs in the Redis it is connected to, read from `INFO` (persistence
 * and memory sections; `CONFIG` is refused more often): each problem with the line that fixes it.
 * A Redis that refuses `INFO` is one problem: unchecked, said once.
 */
async function checkRedis(queue: Queue<CallbackJob>, isClosed: () => boolean): Promise<string[]> {
  let info: string;
  try {
    await queue.waitUntilReady();
    if (isClosed()) return [];
    info = await queue.getBackend().client.then((client) => client.info());
  } catch (error) {
    if (isClosed()) return [];
    return [
      `could not read Redis' INFO (${error instanceof Error ? error.message : String(error)}), so neither persistence nor the eviction policy was checked. Make sure this Redis keeps an append-only file and uses maxmemory-policy noeviction, ${ACCEPT}`,
    ];
  }
  const field = (name: string): string | undefined => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const problems: string[] = [];
  const aof = field('aof_enabled');
  if (aof !== '1') {
    problems.push(
      `Redis keeps no append-only file (${aof === undefined ? 'INFO persistence shows no aof_enabled' : 'appendonly no'}): a restart loses every queued job and dead letter, after the service was told 200. Fix: redis-cli CONFIG SET appendonly yes, and the line "appendonly yes" in redis.conf; ${ACCEPT}`,
    );
  }
  const policy = field('maxmemory_policy');
  if (policy !== 'noeviction') {
    problems.push(
      `Redis' maxmemory-policy is ${policy ?? 'not shown by INFO memory'}, not noeviction: under memory pressure Redis deletes jobs. Fix: redis-cli CONFIG SET maxmemory-policy noeviction, and the line "maxmemory-policy noeviction" in redis.conf; ${ACCEPT}`,
    );
  }
  return problems;
}

/**
 * The error BullMQ keeps for a failed attempt: `name: message` as its `failedReason` (BullMQ keeps
 * the message only), the original stack, and for a job that retrying cannot help (its check
 * failed, its record is past the inbox's retention) an `UnrecoverableError`, which BullMQ does not
 * retry. Any other is a `QueueError` whose `cause` is the error as thrown, for a listener of the
 * worker's `failed` event.
 */
function failureOf(error: unknown): Error {
  const text = lastErrorOf(error);
  const failure = retryCannotHelp(error) ? new UnrecoverableError(text) : new QueueError(text, { cause: error });
  if (error instanceof Error && error.stack !== undefined) failure.stack = error.stack;
  return failure;
}
