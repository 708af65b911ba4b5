// The settings of payorch/pg-boss: the queue's (createPgBossQueue) and the workers' (work), each
// declared once with its range and default.
import { declareOptions, TEN_YEARS_SECONDS } from '../../core/option-checks.js';
import { POOL_OPTION, SCHEMA_OPTION } from '../../inboxes/postgres/table.js';
import type { PostgresPool } from '../../inboxes/postgres/table.js';
import type { DeadLetter } from '../dead-letters.js';
import type { CardStatusSource } from '../../webhooks/status-read.js';
import type { PgBossLike } from './boss.js';
import { DEAD_LETTER_TABLE_OPTION } from './table.js';

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
   * How many times pg-boss retries a job after its first attempt fails; then it is a dead letter.
   * A job that can never apply (a `CallbackJobError`: changed in the queue, another merchant's,
   * sealed with a key past its window; a `CallbackRetentionError`) is a dead letter at once.
   * @default 10
   * @example 5
   */
  readonly retryLimit?: number | undefined;
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
   * How long an attempt may run, in seconds, before pg-boss takes it for dead (its worker stopped
   * or hung) and retries it. pg-boss notices it in its supervision, every
   * `superviseIntervalSeconds` of the `PgBoss`.
   * @default 300
   * @example 60
   */
  readonly expireInSeconds?: number | undefined;
  /**
   * How long a job may wait to be worked, in seconds, before pg-boss deletes it without making it
   * a dead letter (pg-boss's `retentionSeconds`): a queue whose workers stopped that long loses
   * callbacks it answered 200 for. The default is the PostgreSQL inbox's retention, past which a
   * callback can no longer be applied anyway. Alert on a queue that does not drain.
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
   * How often each worker asks pg-boss for a job when the queue was empty, in seconds.
   * @default 2
   * @example 0.5
   */
  readonly pollingIntervalSeconds?: number | undefined;
  /**
   * How many jobs this process applies at once (pg-boss's `localConcurrency`). Callbacks of one
   * tracking code still apply one at a time: the inbox holds its row.
   * @default 1
   * @example 4
   */
  readonly localConcurrency?: number | undefined;
  /**
   * Told of each job as it becomes a dead letter: alert on it. A dead letter is kept until a person
   * replays or purges it; `deadLetter.lastError` says why it died.
   * @default a console.error line with its id, kind, tracking code, attempts and last error
   * @example (deadLetter) => logger.error({ deadLetter }, 'a callback job is a dead letter')
   */
  readonly onDeadLetter?: ((deadLetter: DeadLetter) => void) | undefined;
}

/** The queue of callbacks' jobs when none is named. */
export const DEFAULT_PGBOSS_QUEUE = 'payorch-callbacks';
export const DEFAULT_PGBOSS_RETRY_LIMIT = 10;
export const DEFAULT_PGBOSS_RETRY_DELAY_SECONDS = 5;
export const DEFAULT_PGBOSS_EXPIRE_IN_SECONDS = 300;
export const DEFAULT_PGBOSS_RETENTION_SECONDS = 90 * 86_400;
export const DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS = 2;

/** createPgBossQueue's options. */
export const PGBOSS_QUEUE_OPTIONS = declareOptions<PgBossQueueOptions>()([
  { name: 'boss', rule: { type: 'object', methods: ['createQueue', 'updateQueue', 'send', 'work', 'offWork'], allowed: 'a started PgBoss of pg-boss 12 (new PgBoss(…), then await boss.start())' }, required: true },
  POOL_OPTION,
  // pg-boss's own rule for a name, short enough for the `-dead` queue beside it.
  { name: 'queue', rule: { type: 'text', maxLength: 100, pattern: /^[\w.\-/]+$/, allowed: 'a pg-boss queue name: letters, digits, _, -, . and / (up to 100)' }, default: DEFAULT_PGBOSS_QUEUE },
  DEAD_LETTER_TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'retryLimit', rule: { type: 'number', min: 0, max: 100, integer: true }, default: DEFAULT_PGBOSS_RETRY_LIMIT },
  { name: 'retryDelaySeconds', rule: { type: 'number', min: 0, max: 86_400, integer: true }, default: DEFAULT_PGBOSS_RETRY_DELAY_SECONDS },
  { name: 'retryBackoff', rule: { type: 'boolean' }, default: true },
  { name: 'expireInSeconds', rule: { type: 'number', min: 1, max: 86_400, integer: true }, default: DEFAULT_PGBOSS_EXPIRE_IN_SECONDS },
  { name: 'retentionSeconds', rule: { type: 'number', min: 3600, max: TEN_YEARS_SECONDS, integer: true }, default: DEFAULT_PGBOSS_RETENTION_SECONDS },
]);

/** work's options. */
export const PGBOSS_WORK_OPTIONS = declareOptions<PgBossWorkOptions>()([
  { name: 'provider', rule: { type: 'object', methods: [], allowed: 'a provider client (new ProviderClient({ ... })), whose creditCard.getStatus reads each status' } },
  // pg-boss refuses less than half a second.
  { name: 'pollingIntervalSeconds', rule: { type: 'number', min: 0.5, max: 600, unit: 'seconds' }, default: DEFAULT_PGBOSS_POLLING_INTERVAL_SECONDS },
  { name: 'localConcurrency', rule: { type: 'number', min: 1, max: 100, integer: true }, default: 1 },
  { name: 'onDeadLetter', rule: { type: 'function' } },
]);

