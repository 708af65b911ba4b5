/**
 * payorch/postgres: the transactional callback inbox, for receivers that run as several instances
 * or must apply each callback once across restarts (Node, with `pg` as an optional peer). It never
 * imports `pg`: the pool is yours.
 *
 * @module payorch/postgres
 */
import { DEFAULT_CALLBACK_MAX_AGE_SECONDS, DEFAULT_TOLERANCE_SECONDS } from '../callbacks/age.js';
import { checkOptions, checkValue } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import type { CallbackInbox, CallbackKey, CallbackInboxOutcome } from '../receiver/inbox.js';

/** The parts of a node-postgres result the inbox reads. */
export interface PostgresQueryResult {
  readonly rowCount: number | null;
  /** The rows of a SELECT. */
  readonly rows?: readonly unknown[] | undefined;
}

/**
 * The parts of a node-postgres `PoolClient` the inbox uses; pg's own `PoolClient` fits, and the
 * handlers get yours with all its methods.
 */
export interface PostgresClient {
  /** Runs one statement with its `$1`, `$2`… values. */
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  /** Runs a named statement, prepared once per connection (pg's `QueryConfig`). */
  query(config: { readonly name: string; readonly text: string; readonly values: unknown[] }): Promise<PostgresQueryResult>;
  /** Returns the client to its pool; an error destroys it instead (a broken connection). */
  release(error?: Error | boolean): void;
  /** Listens for the connection failing while the inbox holds the client. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Stops listening, before the client goes back to its pool. */
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

/** A node-postgres `Pool` (or anything that hands out clients the same way). */
export interface PostgresPool {
  /** Takes a client from the pool, for one transaction. */
  connect(): Promise<PostgresClient>;
}

/** A pool that emits `'error'` for its idle clients, as pg's `Pool` does. */
interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  listenerCount(event: 'error'): number;
}

function isErrorEmitter(value: object): value is ErrorEmitter {
  const candidate = value as Partial<Record<'on' | 'listenerCount', unknown>>;
  return typeof candidate.on === 'function' && typeof candidate.listenerCount === 'function';
}

/**
 * The client type a pool hands out: pg's `PoolClient` for a pg `Pool`. Its `connect` is
 * overloaded (promise and callback forms), hence the first branch.
 */
export type PostgresClientOf<TPool> = TPool extends {
  /** The promise form. */
  connect(): Promise<infer C>;
  /** The callback form. */
  connect(callback: never): void;
}
  ? C
  : TPool extends {
        /** The promise form alone. */
        connect(): Promise<infer C>;
      }
    ? C
    : PostgresClient;

/** What the PostgreSQL inbox gives each handler: the key, the client of the open transaction, what was applied before. */
export interface PostgresInboxContext<TClient> {
  readonly key: CallbackKey;
  /**
   * The other statuses already applied for this account and tracking code (committed before this
   * transaction began). Every status of spec 6 ends its record: a non-empty list means a second
   * end was reported, so refund once per tracking code, not per status.
   */
  readonly appliedStatuses: readonly string[];
  /**
   * The client whose transaction also inserts the callback's key: run your own changes on it,
   * and they commit together with the key, or not at all. Do not COMMIT or ROLLBACK it yourself.
   */
  readonly client: TClient;
}

/** Settings of {@link createPostgresInbox} and {@link createCallbackInboxTable}. */
export interface PostgresInboxOptions<TPool extends PostgresPool> {
  /**
   * The node-postgres pool to take a client from for each callback.
   * @example new Pool({ connectionString: process.env.DATABASE_URL })
   */
  readonly pool: TPool;
  /**
   * The table of applied keys, optionally schema-qualified. Letters, digits and `_` only.
   * @default 'payorch_callback_inbox'
   * @example 'billing.payorch_callback_inbox'
   */
  readonly table?: string | undefined;
  /**
   * Told when an idle client of the pool fails (PostgreSQL restarted, a connection was
   * terminated). pg's `Pool` emits `'error'` for it, and an `'error'` nobody listens to ends the
   * process: when the pool has no listener of its own, the inbox adds one that calls this. The
   * pool replaces the client; the next callback gets a fresh connection.
   * @default a console.warn line with the error's message
   * @example (error) => logger.warn({ error }, 'database connection lost')
   */
  readonly onPoolError?: ((error: Error) => void) | undefined;
}

/** The table of applied keys when none is named. */
export const DEFAULT_CALLBACK_INBOX_TABLE = 'payorch_callback_inbox';

const TABLE_OPTION: OptionDeclaration = {
  name: 'table',
  rule: {
    type: 'text',
    maxLength: 127,
    pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}(?:\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/,
    allowed: 'a name of letters, digits and _ (up to 63), optionally schema.table',
  },
};

/** createPostgresInbox's options. */
const POSTGRES_INBOX_OPTIONS: readonly OptionDeclaration[] = [
  { name: 'pool', rule: { type: 'object', methods: ['connect'], allowed: 'a node-postgres Pool (an object with connect())' }, required: true },
  TABLE_OPTION,
  { name: 'onPoolError', rule: { type: 'function' } },
];

// Quoted, so a table name is never read as SQL; checked, so quoting cannot be escaped.
function quoteTable(where: string, table: string | undefined): string {
  const name = table ?? DEFAULT_CALLBACK_INBOX_TABLE;
  checkValue(where, TABLE_OPTION, name);
  return name.split('.').map((part) => `"${part}"`).join('.');
}

/**
 * The SQL that creates the inbox's table: one row per applied account + tracking_code + status,
 * with when it was applied. Run it in your migrations, or call {@link createCallbackInboxTable}.
 * A table made by payorch 0.x before the account column: docs/decisions.md shows the migration.
 *
 * @example
 * ```ts
 * console.log(callbackInboxTableSql());
 * // CREATE TABLE IF NOT EXISTS "payorch_callback_inbox" (
 * //   account text NOT NULL,
 * //   tracking_code text NOT NULL,
 * //   status text NOT NULL,
 * //   applied_at timestamptz NOT NULL DEFAULT now(),
 * //   PRIMARY KEY (account, tracking_code, status)
 * // )
 * ```
 */
export function callbackInboxTableSql(table?: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoteTable('callbackInboxTableSql', table)} (`,
    '  account text NOT NULL,',
    '  tracking_code text NOT NULL,',
    '  status text NOT NULL,',
    '  applied_at timestamptz NOT NULL DEFAULT now(),',
    '  PRIMARY KEY (account, tracking_code, status)',
    ')',
  ].join('\n');
}

/**
 * Creates the inbox's table if it does not exist ({@link callbackInboxTableSql}).
 *
 * @example
 * ```ts
 * await createCallbackInboxTable({ pool });
 * ```
 */
export async function createCallbackInboxTable(options: PostgresInboxOptions<PostgresPool>): Promise<void> {
  const sql = callbackInboxTableSql(options.table);
  const client = await options.pool.connect();
  try {
    await client.query(sql);
  } finally {
    client.release();
  }
}

// Numbers each inbox's statement name: two inboxes on one pool (two tables) need two.
let inboxes = 0;

/**
 * A callback inbox in PostgreSQL, for any number of receiver instances. For each callback it
 * opens a transaction, inserts the key (`INSERT … ON CONFLICT DO NOTHING`), runs the handlers
 * with that transaction's client, and commits: the key and the handlers' changes are committed
 * together or not at all, so a callback is applied exactly once across instances, crashes and
 * redeliveries.
 *
 * - Already applied: the insert inserts nothing, the transaction is rolled back, the answer is 200.
 * - Copies at the same time: the second insert waits on the first transaction's key. If that one
 *   commits, the copy is a duplicate; if it rolls back, the copy applies the callback itself.
 * - A handler throws, or the connection or the process dies before COMMIT: PostgreSQL rolls the
 *   transaction back, key included, and the redelivery applies it.
 *
 * @example
 * ```ts
 * import { Pool } from 'pg';
 * import { createCallbackReceiver } from 'payorch';
 * import { createCallbackInboxTable, createPostgresInbox } from 'payorch/postgres';
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * await createCallbackInboxTable({ pool });
 * const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createPostgresInbox({ pool }) });
 * receiver.on('deposit.completed', async (callback, { client }) => {
 *   await client.query('UPDATE balances SET amount = amount + $1 WHERE user_id = $2', [callback.payload.amount, callback.payload.user_id]);
 * });
 * ```
 */
export function createPostgresInbox<TPool extends PostgresPool>(options: PostgresInboxOptions<TPool>): CallbackInbox<PostgresInboxContext<PostgresClientOf<TPool>>> {
  checkOptions('createPostgresInbox', options, POSTGRES_INBOX_OPTIONS);
  const table = quoteTable('createPostgresInbox', options.table);
  // The key's insert and the statuses already applied to its tracking code, in one statement: one
  // round trip fewer per callback than an INSERT and a SELECT, so a callback costs what a
  // hand-written BEGIN, INSERT … ON CONFLICT, COMMIT costs (bench/RESULTS.md). The SELECT sees the
  // statement's snapshot, taken before the insert: the key's own status is excluded anyway.
  const name = `payorch_inbox_claim_${++inboxes}`;
  const claim = `WITH inserted AS (INSERT INTO ${table} (account, tracking_code, status) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1)
SELECT EXISTS (SELECT 1 FROM inserted) AS inserted,
  ARRAY(SELECT status FROM ${table} WHERE account = $1 AND tracking_code = $2 AND status <> $3 ORDER BY applied_at) AS applied`;
  guardPool(options.pool, options.onPoolError);

  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      const client = await options.pool.connect();
      // A connection that dies while checked out emits 'error' on its client; unheard, that
      // would end the process. The failed query rejects as well, and that is what we act on.
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const values = [key.account, key.trackingCode, key.status];
        // Named: prepared and planned once per connection instead of on every callback.
        const { rows = [] } = await client.query({ name, text: claim, values });
        const [claimed] = rows as readonly (Partial<Record<'inserted' | 'applied', unknown>> | undefined)[];
        if (claimed?.inserted !== true) {
          await client.query('ROLLBACK');
          return 'duplicate';
        }
        const appliedStatuses = Array.isArray(claimed.applied) ? claimed.applied.map(String) : [];
        await apply({ key, appliedStatuses, client: client as PostgresClientOf<TPool> });
        await client.query('COMMIT');
        return 'applied';
      } catch (error) {
        // Rolled back by PostgreSQL anyway if the connection is gone; said explicitly otherwise,
        // so that the client goes back to the pool clean.
        try {
          if (broken === undefined) await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
        }
        // 42703 undefined_column: a table made before the account column.
        if ((error as Partial<Record<'code', unknown>> | null)?.code === '42703') {
          throw new Error(`payorch/postgres: ${table} has no account column; migrate it as docs/decisions.md ("The account in the inbox key") shows`, { cause: error });
        }
        throw error;
      } finally {
        client.removeListener('error', onError);
        client.release(broken ?? false);
      }
    },
  };
}

// One listener per pool, however many inboxes share it.
const guarded = new WeakSet<object>();

function guardPool(pool: object, onPoolError: ((error: Error) => void) | undefined): void {
  if (!isErrorEmitter(pool) || guarded.has(pool) || pool.listenerCount('error') > 0) return;
  guarded.add(pool);
  pool.on('error', (error) => {
    // A pool being ended closes its idle connections on purpose; on Workers (pg-cloudflare) each
    // close emits "Stream was cancelled", once per request with a pool per request. Not a failure.
    if ((pool as Partial<Record<'ending', unknown>>).ending === true) return;
    try {
      if (onPoolError !== undefined) onPoolError(error);
      else console.warn(`payorch/postgres: an idle pooled connection failed (${error.message}); the pool opens a new one`);
    } catch {
      // A listener that throws would end the process just the same.
    }
  });
}

/** Settings of {@link pruneCallbackInbox}. */
export interface PruneCallbackInboxOptions {
  /** The pool of the inbox. */
  readonly pool: PostgresPool;
  /**
   * The inbox's table.
   * @default 'payorch_callback_inbox'
   */
  readonly table?: string | undefined;
  /**
   * Keys applied longer ago than this are deleted. It may not be shorter than the oldest
   * signature a receiver accepts by default (maxAgeSeconds 259200 plus toleranceSeconds 300): a
   * redelivery signed before would verify again and be applied twice. A receiver with a longer
   * `maxAgeSeconds` needs at least that plus its `toleranceSeconds`.
   * @default 259500
   * @example 30 * 86400
   */
  readonly olderThanSeconds?: number | undefined;
}

/** The shortest retention {@link pruneCallbackInbox} accepts, in seconds. */
export const MIN_CALLBACK_INBOX_RETENTION_SECONDS = DEFAULT_CALLBACK_MAX_AGE_SECONDS + DEFAULT_TOLERANCE_SECONDS;

/** pruneCallbackInbox's options. */
const PRUNE_OPTIONS: readonly OptionDeclaration[] = [
  { name: 'pool', rule: { type: 'object', methods: ['connect'], allowed: 'a node-postgres Pool (an object with connect())' }, required: true },
  TABLE_OPTION,
  { name: 'olderThanSeconds', rule: { type: 'number', min: MIN_CALLBACK_INBOX_RETENTION_SECONDS, max: 10 * 365 * 86_400, integer: true } },
];

/**
 * Deletes the keys applied more than `olderThanSeconds` ago: a callback signed that long ago no
 * longer verifies, so its key can never stop a second application. Run it daily.
 *
 * @returns how many keys were deleted
 * @throws {RequestValidationError} (`invalid_option`, `olderThanSeconds`) for a retention shorter than 259500 s or longer than 10 years
 * @example
 * ```ts
 * setInterval(() => void pruneCallbackInbox({ pool }).catch(console.error), 86_400_000).unref();
 * ```
 */
export async function pruneCallbackInbox(options: PruneCallbackInboxOptions): Promise<number> {
  checkOptions('pruneCallbackInbox', options, PRUNE_OPTIONS);
  const seconds = options.olderThanSeconds ?? MIN_CALLBACK_INBOX_RETENTION_SECONDS;
  const sql = `DELETE FROM ${quoteTable('pruneCallbackInbox', options.table)} WHERE applied_at < now() - make_interval(secs => $1)`;
  const client = await options.pool.connect();
  try {
    const { rowCount } = await client.query(sql, [seconds]);
    return rowCount ?? 0;
  } finally {
    client.release();
  }
}

export type { CallbackInbox, CallbackKey, CallbackInboxOutcome } from '../receiver/inbox.js';
