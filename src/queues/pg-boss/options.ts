// The settings of payorch/pg-boss: the queue's (createPgBossQueue) and the workers' (work), each
// declared once with its range and default.
import { declareOptions, METER_OPTION, TEN_YEARS_SECONDS } from '../../core/option-checks.js';
import type { MeterLike } from '../../core/metrics.js';
import { RequestValidationError } from '../../errors/error.js';
import { POOL_OPTION, SCHEMA_OPTION } from '../../postgres/table.js';
import type { PostgresPool } from '../../postgres/table.js';
import type { DeadLetter } from '../dead-letters.js';
import type { CardStatusSource } from '../../webhooks/status-read.js';
import type { PgBossLike } from './boss.js';
import { DEAD_LETTER_TABLE_OPTION } from '../../postgres/dead-letter-table.js';

/** Settings of `createPgBossQueue`. */
export interface PgBossQueueOptions {
  /**
   * Your started pg-boss 12: `new PgBoss(…)`, then `await boss.start()`.
   * @example new PgBoss(process.env.DATABASE_URL!)
   */
  readonly boss: PgBossLike;
  /**
   * A node-postgres pool of the same database as `boss`: the dead letters' table lives there, and
   * a replay sends its jobs to pg-boss in the transaction that deletes them.
   * @example new Pool({ connectionString: process.env.DATABASE_URL })
   */
  readonly pool: PostgresPool;
  /**
   * The pg-boss queue of the callbacks' jobs. Its dead jobs pass through a second pg-boss queue,
   * named with `-dead` after it, on their way to the table. Created (and its policy updated) on
   * first use.
   * @default 'payorch-callbacks'
   * @example 'payorch-callbacks-dealer'
   */
  readonly queue?: string | undefined;
  /**
   * The dead letters' table (`createPgBossDeadLetterTable`), optionally schema-qualified.
   * @default 'payorch_dead_letters'
   */
  readonly table?: string | undefined;
  /**
   * The schema of `table` (or give `table` as `schema.table`).
   * @default the current schema at first use
   */
  readonly schema?: string | undefined;
  /**
   * How many times pg-boss retries a job after its first attempt fails (so `retries` + 1 attempts);
   * then it is a dead letter.
   * A job that can never apply (a `CallbackJobError`: changed in the queue, another merchant's,
   * sealed with the previous key past its `until`; a `CallbackRetentionError`) is a dead letter at once.
   * @default 10
   * @example 5
   */
  readonly retries?: number | undefined;
  /**
   * The delay before the first retry, in seconds; doubled for each retry after it (with jitter)
   * while `retryBackoff` is true. The defaults spread ten retries over about an hour and a half to
   * three hours: long enough for an order row saved late, a deploy, a database failover.
   * @default 5
   * @example 30
   */
  readonly retryDelaySeconds?: number | undefined;
  /**
   * Whether each retry waits twice as long as the one before (pg-boss's `retryBackoff`).
   * @default true
   */
  readonly retryBackoff?: boolean | undefined;
  /**
   * How long an attempt may run, in seconds, before pg-boss takes it for hung and retries it.
   * pg-boss notices it in its supervision, every `superviseIntervalSeconds` of the `PgBoss`.
   * @default 300
   * @example 60
   */
  readonly expireInSeconds?: number | undefined;
  /**
   * How often, in seconds, a worker tells pg-boss that it still holds its jobs (pg-boss's
   * `heartbeatSeconds`): the jobs of a worker that died (killed, out of memory) are retried once
   * this passes without a word, at pg-boss's next supervision, instead of after `expireInSeconds`.
   * @default 20
   * @example 10
   */
  readonly heartbeatSeconds?: number | undefined;
  /**
   * How long a job may wait to be worked, in seconds, before pg-boss deletes it without making it
   * a dead letter (pg-boss's `retentionSeconds`, counted from its sending, retries included): a
   * queue whose workers stopped that long loses callbacks it answered 200 for. It must outlast
   * the retries: at least their longest delays plus `expireInSeconds` and a minute of pg-boss's
   * supervision for each attempt, or `createPgBossQueue` refuses it. The default is the PostgreSQL
   * inbox's retention, past which a callback can no longer be applied anyway. Alert on a queue
   * that does not drain.
   * @default 7776000 (90 days)
   * @example 30 * 86_400
   */
  readonly retentionSeconds?: number | undefined;
}

/** Settings of `work` (`PgBossQueue.work`). */
export interface PgBossWorkOptions {
  /**
   * The provider client that reads again the status of a job made by `receiver.reconcile`;
   * needed only for those jobs (`receiver.apply(job, { provider })`).
   * @example new ProviderClient({ baseUrl, apiKey, secretKey })
   */
  readonly provider?: CardStatusSource | undefined;
  /**
   * How long each worker waits, in seconds, after a fetch that came back short of `batchSize`
   * (pg-boss's `pollingIntervalSeconds`): a full batch is followed by the next fetch at once. It
   * is how late a job sent to an idle queue may start.
   * @default 1
   * @example 0.5
   */
  readonly pollingIntervalSeconds?: number | undefined;
  /**
   * How many workers this process runs (pg-boss's `localConcurrency`), each fetching its own
   * batches. Callbacks of one tracking code still apply one at a time: the inbox holds its row.
   * @default 4
   * @example 8
   */
  readonly localConcurrency?: number | undefined;
  /**
   * How many jobs each worker fetches at once (pg-boss's `batchSize`); it applies them side by
   * side and settles each on its own. This process holds at most `batchSize` × `localConcurrency`
   * jobs at once: give the inbox's pool enough connections for the jobs you want applied at once.
   * @default 10
   * @example 25
   */
  readonly batchSize?: number | undefined;
  /**
   * Counts the jobs ready and not taken, as `payorch.queue.backlog` (`{job}`, with
   * `payorch.queue`), read every `backlogCheckSeconds`.
   * @example metrics.getMeter('my-app')
   */
  readonly meter?: MeterLike | undefined;
  /**
   * How often, in seconds, this process reads how many jobs wait (pg-boss's counts, which its
   * supervision refreshes every `monitorIntervalSeconds`).
   * @default 60
   * @example 15
   */
  readonly backlogCheckSeconds?: number | undefined;
  /**
   * Told when the jobs ready and not taken grew over three readings in a row: the workers do not
   * keep up. Told again at most every ten readings while it lasts.
   * @default a console.warn line with the queue, the count and what to do
   * @example (backlog) => logger.warn(backlog, 'pg-boss callbacks pile up')
   */
  readonly onBacklog?: ((backlog: PgBossBacklog) => void) | undefined;
  /**
   * Told of each job as it becomes a dead letter: alert on it. A dead letter is kept until a person
   * replays or purges it; `deadLetter.lastError` says why it died.
   * @default a console.error line with its id, kind, tracking code, attempts and last error
   * @example (deadLetter) => logger.error({ deadLetter }, 'a callback job is a dead letter')
   */
  readonly onDeadLetter?: ((deadLetter: DeadLetter) => void) | undefined;
}

/** What `onBacklog` is told. */
export interface PgBossBacklog {
  /** The pg-boss queue. */
  readonly queue: string;
  /** Jobs ready and not taken now. */
  readonly ready: number;
  /** Jobs ready and not taken at the first of the readings. */
  readonly readyBefore: number;
  /** Seconds between the two. */
  readonly seconds: number;
}

/** The queue of callbacks' jobs when none is named. */
export const DEFAULT_PGBOSS_QUEUE = 'payorch-callbacks';
export const DEFAULT_PGBOSS_RETRIES = 10;
export const DEFAULT_PGBOSS_RETRY_DELAY_SECONDS = 5;
export const DEFAULT_PGBOSS_EXPIRE_IN_SECONDS = 300;
export const DEFAULT_PGBOSS_HEARTBEAT_SECONDS = 20;
export const DEFAULT_PGBOSS_RETENTION_SECONDS = 90 * 86_400;
export const DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS = 1;
export const DEFAULT_PGBOSS_LOCAL_CONCURRENCY = 4;
export const DEFAULT_PGBOSS_BATCH_SIZE = 10;
export const DEFAULT_PGBOSS_BACKLOG_CHECK_SECONDS = 60;
/** pg-boss's supervision interval by default: how late an expired attempt may be noticed. */
const SUPERVISION_SECONDS = 60;

/** createPgBossQueue's options. */
export const PGBOSS_QUEUE_OPTIONS = declareOptions<PgBossQueueOptions>()([
  { name: 'boss', rule: { type: 'object', methods: ['createQueue', 'updateQueue', 'send', 'work', 'offWork', 'getQueue'], allowed: 'a started PgBoss of pg-boss 12 (new PgBoss(…), then await boss.start())' }, required: true },
  POOL_OPTION,
  // pg-boss's own rule for a name, short enough for the `-dead` queue beside it.
  { name: 'queue', rule: { type: 'text', maxLength: 100, pattern: /^[\w.\-/]+$/, allowed: 'a pg-boss queue name: letters, digits, _, -, . and / (up to 100)' }, default: DEFAULT_PGBOSS_QUEUE },
  DEAD_LETTER_TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'retries', rule: { type: 'number', min: 0, max: 100, integer: true }, default: DEFAULT_PGBOSS_RETRIES },
  { name: 'retryDelaySeconds', rule: { type: 'number', min: 0, max: 86_400, integer: true }, default: DEFAULT_PGBOSS_RETRY_DELAY_SECONDS },
  { name: 'retryBackoff', rule: { type: 'boolean' }, default: true },
  { name: 'expireInSeconds', rule: { type: 'number', min: 1, max: 86_400, integer: true }, default: DEFAULT_PGBOSS_EXPIRE_IN_SECONDS },
  // pg-boss refuses less than 10.
  { name: 'heartbeatSeconds', rule: { type: 'number', min: 10, max: 3600, integer: true }, default: DEFAULT_PGBOSS_HEARTBEAT_SECONDS },
  { name: 'retentionSeconds', rule: { type: 'number', min: 3600, max: TEN_YEARS_SECONDS, integer: true }, default: DEFAULT_PGBOSS_RETENTION_SECONDS, note: 'and at least the retries take' },
]);

/**
 * The longest a job may be kept waiting by its retries, in seconds (pg-boss's names: `retryLimit`
 * is `retries`, `retryDelay` is `retryDelaySeconds`): each retry's longest delay
 * (pg-boss's backoff is `retryDelay` × 2^n halved plus up to as much again of jitter, 2^n at most
 * 2^16, with a delay of at least 1 s), and each attempt's `expireInSeconds` plus a supervision.
 */
export function longestRetrySeconds(policy: { readonly retryLimit: number; readonly retryDelay: number; readonly retryBackoff: boolean; readonly expireInSeconds: number }): number {
  let delays = 0;
  for (let retry = 1; retry <= policy.retryLimit; retry += 1) delays += policy.retryBackoff ? Math.max(policy.retryDelay, 1) * 2 ** Math.min(16, retry) : policy.retryDelay;
  return delays + (policy.retryLimit + 1) * (policy.expireInSeconds + SUPERVISION_SECONDS);
}

/**
 * Refuses a retention that pg-boss would reach while a job still waits for a retry: pg-boss
 * deletes such a job, and it would be neither applied nor a dead letter.
 * @throws {RequestValidationError} naming both options and the least retention they allow
 */
export function checkRetention(policy: Parameters<typeof longestRetrySeconds>[0] & { readonly retentionSeconds: number }): void {
  const longest = longestRetrySeconds(policy);
  if (policy.retentionSeconds >= longest) return;
  const retries = `retries ${policy.retryLimit}, retryDelaySeconds ${policy.retryDelay}${policy.retryBackoff ? ' doubling' : ''}, expireInSeconds ${policy.expireInSeconds}`;
  const allowed = longest <= TEN_YEARS_SECONDS ? `at least ${longest} (${retries}) up to ${TEN_YEARS_SECONDS}` : `at least ${longest} for ${retries}, past the ${TEN_YEARS_SECONDS} allowed: lower retries`;
  throw new RequestValidationError('createPgBossQueue', [
    {
      field: 'retentionSeconds, retries',
      rule: 'invalid_option',
      message: `retentionSeconds must outlast the retries, or pg-boss deletes a job still waiting for a retry, without a dead letter: ${allowed}; got ${policy.retentionSeconds}. Raise retentionSeconds or lower retries`,
    },
  ]);
}

/** work's options. */
export const PGBOSS_WORK_OPTIONS = declareOptions<PgBossWorkOptions>()([
  { name: 'provider', rule: { type: 'object', methods: [], allowed: 'a provider client (new ProviderClient({ ... })), whose creditCard.getStatus reads each status' } },
  // pg-boss refuses less than half a second.
  { name: 'pollingIntervalSeconds', rule: { type: 'number', min: 0.5, max: 600, unit: 'seconds' }, default: DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS },
  { name: 'localConcurrency', rule: { type: 'number', min: 1, max: 100, integer: true }, default: DEFAULT_PGBOSS_LOCAL_CONCURRENCY },
  { name: 'batchSize', rule: { type: 'number', min: 1, max: 100, integer: true }, default: DEFAULT_PGBOSS_BATCH_SIZE },
  METER_OPTION,
  { name: 'backlogCheckSeconds', rule: { type: 'number', min: 1, max: 3600, unit: 'seconds' }, default: DEFAULT_PGBOSS_BACKLOG_CHECK_SECONDS },
  { name: 'onBacklog', rule: { type: 'function' } },
  { name: 'onDeadLetter', rule: { type: 'function' } },
]);

