/**
 * payorch/postgres: the transactional callback inbox, for receivers that run as several instances
 * or must apply each callback once across restarts (Node, with `pg` as an optional peer). It never
 * imports `pg`: the pool is yours.
 *
 * @module payorch/postgres
 */
import { DEFAULT_CALLBACK_MAX_AGE_SECONDS, DEFAULT_TOLERANCE_SECONDS } from '../webhooks/age.js';
import { checkOptions, checkValue, declareOptions, TEN_YEARS_SECONDS } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import { CallbackRetentionError, RequestValidationError, StatementPoolingError } from '../errors/error.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome } from '../webhooks/inbox.js';
import { sha256Hex } from '../internal/hash/web.js';
import { keyRecordTime } from '../webhooks/record-time.js';

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
  /**
   * Runs a named statement, prepared once per connection (pg's `QueryConfig`). The inbox names its
   * claim by a digest of its text, so a name always means the same statement on the same table.
   */
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
export interface PostgresInboxContext<TClient> extends CallbackInboxContext {
  /**
   * Every other status applied for this account and tracking code before this one, in the order
   * they were applied. Callbacks of one tracking code are applied one at a time (a second waits
   * for the first's transaction), so two end statuses racing on two instances never both see an
   * empty list. Every status of spec 6 ends its record: a non-empty list means a second end was
   * reported, so refund once per tracking code, not per status.
   */
  readonly appliedStatuses: readonly string[];
  /**
   * The client whose transaction also inserts the callback's key: run your own changes on it,
   * and they commit together with the key, or not at all. Do not COMMIT or ROLLBACK it yourself.
   */
  readonly client: TClient;
}

/** Settings of {@link createPostgresInbox} and {@link createPostgresInboxTable}. */
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
   * The schema of `table` (or give `table` as `schema.table`). Without either, the schema is the
   * one current (`SELECT current_schema()`) on the first connection used, before any handler
   * runs, and it stays fixed: a handler's `SET search_path` (a schema per tenant) does not move
   * the table. Set it when other code of yours changes `search_path` on the pool's connections.
   * @default the current schema at first use
   * @example 'billing'
   */
  readonly schema?: string | undefined;
  /**
   * Told when an idle client of the pool fails (PostgreSQL restarted, a connection was
   * terminated). pg's `Pool` emits `'error'` for it, and an `'error'` nobody listens to ends the
   * process: when the pool has no listener of its own, the inbox adds one that calls this. The
   * pool replaces the client; the next callback gets a fresh connection.
   * @default a console.warn line with the error's message
   * @example (error) => logger.warn({ error }, 'database connection lost')
   */
  readonly onPoolError?: ((error: Error) => void) | undefined;
  /**
   * How long a callback waits, in milliseconds, for a lock its transaction needs: above all for
   * another callback of the same account and tracking code being applied (copies, or a second end
   * status). Past it the callback is not applied: the receiver answers 500 and the service
   * delivers it again. Keep it below the senders' patience (they give up after 5 to 10 s). It is
   * the transaction's `lock_timeout`, so it bounds your handlers' lock waits too.
   * @default 3000
   * @example 2000
   */
  readonly lockTimeoutMs?: number | undefined;
}

/** The table of applied keys when none is named. */
export const DEFAULT_POSTGRES_INBOX_TABLE = 'payorch_callback_inbox';

/** How long a callback waits for another of its tracking code by default, in milliseconds (`lockTimeoutMs`). */
export const DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS = 3000;

const TABLE_OPTION: OptionDeclaration<'table'> = {
  name: 'table',
  rule: {
    type: 'text',
    maxLength: 127,
    pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}(?:\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/,
    allowed: 'a name of letters, digits and _ (up to 63), optionally schema.table',
  },
  default: DEFAULT_POSTGRES_INBOX_TABLE,
};

const SCHEMA_OPTION: OptionDeclaration<'schema'> = {
  name: 'schema',
  rule: { type: 'text', maxLength: 63, pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, allowed: 'a name of letters, digits and _ (up to 63)' },
};

const POOL_OPTION: OptionDeclaration<'pool'> = { name: 'pool', rule: { type: 'object', methods: ['connect'], allowed: 'a node-postgres Pool (an object with connect())' }, required: true };

/** createPostgresInbox's options. */
const POSTGRES_INBOX_OPTIONS = declareOptions<PostgresInboxOptions<PostgresPool>>()([
  POOL_OPTION,
  TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'onPoolError', rule: { type: 'function' } },
  { name: 'lockTimeoutMs', rule: { type: 'number', min: 1, max: 60_000, integer: true }, default: DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS, note: 'keep it below the senders\' patience, a few seconds' },
]);

// Quoted, so a table name is never read as SQL; checked, so quoting cannot be escaped.
function quoteTable(where: string, table: string | undefined): string {
  const name = table ?? DEFAULT_POSTGRES_INBOX_TABLE;
  checkValue(where, TABLE_OPTION, name);
  return name.split('.').map((part) => `"${part}"`).join('.');
}

/**
 * The table, named with its schema once it is known: from `schema` or a qualified `table` at
 * once, otherwise from `current_schema()` on the first connection (before any handler runs). The
 * inbox, createPostgresInboxTable and prunePostgresInbox resolve it the same way.
 */
function tableName(where: string, options: { readonly table?: string | undefined; readonly schema?: string | undefined }): (client: PostgresClient) => Promise<string> {
  const table = quoteTable(where, options.table);
  checkValue(where, SCHEMA_OPTION, options.schema);
  if (options.schema !== undefined && table.includes('.')) {
    throw new RequestValidationError(where, [{ field: 'schema', rule: 'invalid_option', message: 'must be left out when `table` names its schema (schema.table): give the schema once' }]);
  }
  if (table.includes('.')) return () => Promise.resolve(table);
  if (options.schema !== undefined) return () => Promise.resolve(`"${options.schema}".${table}`);
  let resolved: Promise<string> | undefined;
  return (client) => {
    if (resolved === undefined) {
      resolved = client.query('SELECT current_schema() AS schema').then(({ rows = [] }) => {
        const schema = (rows[0] as Partial<Record<'schema', unknown>> | undefined)?.schema;
        if (typeof schema !== 'string') throw new Error(`payorch/postgres: no schema of search_path exists, so ${table} has none; set the inbox's \`schema\``);
        return `"${schema.replaceAll('"', '""')}".${table}`;
      });
      // A failed look-up is tried again by the next callback.
      resolved.catch(() => {
        resolved = undefined;
      });
    }
    return resolved;
  };
}

/**
 * The SQL that creates the inbox's table: one row per account + tracking code, with the statuses
 * applied for it in the order they were applied. The record time (the Unix seconds the tracking
 * code ends with) leads the primary key, so that {@link prunePostgresInbox} finds old rows through
 * it. Run it in your migrations, or call {@link createPostgresInboxTable}. A table made by an
 * earlier payorch 0.x has another shape: create this one afresh.
 *
 * @example
 * ```ts
 * console.log(postgresInboxTableSql());
 * // CREATE TABLE IF NOT EXISTS "payorch_callback_inbox" (
 * //   record_time bigint NOT NULL,
 * //   account text NOT NULL,
 * //   tracking_code text NOT NULL,
 * //   statuses text[] NOT NULL,
 * //   applied_at timestamptz NOT NULL DEFAULT now(),
 * //   PRIMARY KEY (record_time, account, tracking_code)
 * // )
 * ```
 */
export function postgresInboxTableSql(table?: string): string {
  return tableSql(quoteTable('postgresInboxTableSql', table));
}

// The record time is a function of the tracking code, so (record_time, account, tracking_code) is
// unique exactly when (account, tracking_code) is: one index serves the claim and the prune.
function tableSql(quoted: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (`,
    '  record_time bigint NOT NULL,',
    '  account text NOT NULL,',
    '  tracking_code text NOT NULL,',
    '  statuses text[] NOT NULL,',
    '  applied_at timestamptz NOT NULL DEFAULT now(),',
    '  PRIMARY KEY (record_time, account, tracking_code)',
    ')',
  ].join('\n');
}

/**
 * Creates the inbox's table if it does not exist ({@link postgresInboxTableSql}).
 *
 * @example
 * ```ts
 * await createPostgresInboxTable({ pool });
 * ```
 */
export async function createPostgresInboxTable(options: PostgresInboxOptions<PostgresPool>): Promise<void> {
  const name = tableName('createPostgresInboxTable', options);
  const client = await options.pool.connect();
  try {
    await client.query(tableSql(await name(client)));
  } finally {
    client.release();
  }
}

// The sentinel row that holds a table's horizon in its applied_at (see prunePostgresInbox): no
// verified callback has an empty tracking code, and a claim reads a real one only. Its record time
// of 0 keeps it first in the primary key, where the claim finds it, and out of every prune batch.
const HORIZON_ROW = "record_time = 0 AND account = '' AND tracking_code = ''";

/**
 * A callback inbox in PostgreSQL, for any number of receiver instances. For each callback it
 * opens a transaction, claims the key (its status added to the row of its account and tracking
 * code, `INSERT … ON CONFLICT DO UPDATE`), runs the handlers with that transaction's client, and
 * commits: the key and the handlers' changes are committed together or not at all, so a callback
 * is applied exactly once across instances, crashes and redeliveries.
 *
 * - Already applied: the claim changes nothing, the transaction is rolled back, the answer is 200.
 * - **One tracking code at a time.** Claims of the same account and tracking code wait for each
 *   other (on its row), whatever their statuses, on any instance, inline or through
 *   `receiver.apply`; `appliedStatuses` then lists every status applied before this one. A copy
 *   of a callback under way is a duplicate once that one commits, and applies it itself if that
 *   one rolls back. Claims of other tracking codes never wait. A wait longer than `lockTimeoutMs`
 *   fails the callback (answered 500, delivered again).
 * - A handler throws, or the connection or the process dies before COMMIT: PostgreSQL rolls the
 *   transaction back, key included, and the redelivery applies it.
 * - A record at or before the table's horizon (see {@link prunePostgresInbox}) whose key is not
 *   held: refused with a `CallbackRetentionError`, nothing recorded (the receiver answers 422).
 * - Behind a pooler: transaction and session pooling work (the claim is named by a digest of its
 *   text, and made unnamed where the pooler loses the name); statement pooling refuses
 *   transactions, and the inbox refuses with a `StatementPoolingError`.
 *
 * @example
 * ```ts
 * import { Pool } from 'pg';
 * import { createCallbackReceiver } from 'payorch';
 * import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * await createPostgresInboxTable({ pool });
 * const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createPostgresInbox({ pool }) });
 * receiver.on('deposit.completed', async (callback, { client }) => {
 *   await client.query('UPDATE balances SET amount = amount + $1 WHERE user_id = $2', [callback.payload.amount, callback.payload.user_id]);
 * });
 * ```
 */
export function createPostgresInbox<TPool extends PostgresPool>(options: PostgresInboxOptions<TPool>): CallbackInbox<PostgresInboxContext<PostgresClientOf<TPool>>> {
  checkOptions('createPostgresInbox', options, POSTGRES_INBOX_OPTIONS);
  const name = tableName('createPostgresInbox', options);
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS;
  // One round trip with BEGIN: the bound on waiting for another callback of the tracking code.
  const begin = `BEGIN; SET LOCAL lock_timeout = ${String(lockTimeoutMs)}`;
  // The claim in one statement: the horizon, the status added to its tracking code's row when the
  // record is younger, and what that row held. A claim of a tracking code whose row another
  // transaction holds waits for it, then adds to the row as that one left it (READ COMMITTED
  // updates the newest version): `claimed` lists every status applied before, its own last. The
  // horizon and `held` read the statement's snapshot, taken after the statement's lock on the
  // table; a prune raises the horizon, then waits for every claim holding that lock before it
  // deletes a row, so no claim that missed the horizon can miss a deleted row.
  const claimSql = (table: string): string => `WITH horizon AS (SELECT extract(epoch FROM applied_at)::bigint AS at FROM ${table} WHERE ${HORIZON_ROW}),
claimed AS (INSERT INTO ${table} AS inbox (record_time, account, tracking_code, statuses) SELECT $4::bigint, $1::text, $2::text, ARRAY[$3::text]
  WHERE NOT EXISTS (SELECT 1 FROM horizon WHERE $4::bigint <= at)
  ON CONFLICT (record_time, account, tracking_code) DO UPDATE SET statuses = inbox.statuses || EXCLUDED.statuses, applied_at = now()
  WHERE NOT inbox.statuses @> EXCLUDED.statuses RETURNING inbox.statuses)
SELECT (SELECT statuses FROM claimed) AS claimed, (SELECT at FROM horizon) AS horizon,
  (SELECT statuses FROM ${table} WHERE record_time = $4::bigint AND account = $1::text AND tracking_code = $2::text) AS held`;
  let claim: { readonly table: string; readonly sql: string; readonly name: string } | undefined;
  // Prepared once per connection under a name made from a digest of its text: a name means one
  // text, on one schema-qualified table, so processes, tables and applications sharing a pooler's
  // server connections can never run each other's claim. A pooler that moves a client between
  // server connections (PgBouncer's transaction pooling before 1.21) answers that the name is
  // unknown or taken: the claim is then rolled back, before any handler ran, and made again
  // unnamed, as every claim of this inbox is from then on.
  let named = true;
  guardPool(options.pool, options.onPoolError);

  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      const record = keyRecordTime(key);
      const client = await options.pool.connect();
      // A connection that dies while checked out emits 'error' on its client; unheard, that
      // would end the process. The failed query rejects as well, and that is what we act on.
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      let table = claim?.table ?? '(the inbox table)';
      let claiming = false;
      try {
        if (claim === undefined) {
          table = await name(client);
          const sql = claimSql(table);
          claim = { table, sql, name: `payorch_claim_${sha256Hex(sql).slice(0, 32)}` };
        }
        try {
          await client.query(begin);
        } catch (error) {
          // PgBouncer in statement pooling refuses transaction blocks and closes the connection.
          if (/statement pooling/i.test(error instanceof Error ? error.message : '')) {
            broken = error as Error;
            throw new StatementPoolingError(
              'payorch/postgres: the pool connects through a pooler in statement pooling, which refuses transactions; the callback was not applied. Use transaction or session pooling, or connect directly (docs/webhooks.md, "Poolers")',
              { cause: error },
            );
          }
          throw error;
        }
        const values = [key.account, key.trackingCode, key.status, record];
        // Read once: copies under way at the same time may each meet the pooler and fall back.
        const byName = named;
        let result: PostgresQueryResult;
        claiming = true;
        try {
          result = byName ? await client.query({ name: claim.name, text: claim.sql, values }) : await client.query(claim.sql, values);
        } catch (error) {
          if (!byName || !isPreparedStatementError(error)) throw error;
          named = false;
          await client.query('ROLLBACK');
          await client.query(begin);
          result = await client.query(claim.sql, values);
        }
        claiming = false;
        const { rows = [] } = result;
        const [row] = rows as readonly (Partial<Record<'claimed' | 'horizon' | 'held', unknown>> | undefined)[];
        if (!Array.isArray(row?.claimed)) {
          // Claimed nothing: a duplicate, unless the horizon stopped a key that was not held (the
          // catch below rolls back).
          const horizon = row?.horizon === null || row?.horizon === undefined ? undefined : Number(row.horizon);
          const held = Array.isArray(row?.held) ? row.held.map(String) : [];
          if (horizon !== undefined && record <= horizon && !held.includes(key.status)) throw new CallbackRetentionError(key, record, horizon);
          await client.query('ROLLBACK');
          return 'duplicate';
        }
        // Every status of the tracking code applied before, in order; this one was added last.
        const appliedStatuses = row.claimed.slice(0, -1).map(String);
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
        const code = (error as Partial<Record<'code', unknown>> | null)?.code;
        // 42703 undefined_column, 42P10 no unique index for ON CONFLICT: a table of another shape.
        if (code === '42703' || code === '42P10') {
          throw new Error(`payorch/postgres: ${table} is not the inbox table this payorch uses (an earlier 0.x made another shape); create it afresh as postgresInboxTableSql() shows`, { cause: error });
        }
        // 55P03 lock_not_available, in the claim: another callback of this tracking code held it.
        if (claiming && code === '55P03') {
          throw new Error(`payorch/postgres: another callback of ${key.trackingCode} was being applied for longer than lockTimeoutMs (${String(lockTimeoutMs)} ms); not applied, so that it is delivered again`, { cause: error });
        }
        throw error;
      } finally {
        client.removeListener('error', onError);
        client.release(broken ?? false);
      }
    },
  };
}

// 26000 invalid_sql_statement_name, 42P05 duplicate_prepared_statement: the server connection
// under the client is not the one the name was prepared on.
function isPreparedStatementError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as Partial<Record<'code' | 'message', unknown>>;
  return code === '26000' || code === '42P05' || (typeof message === 'string' && /prepared statement/i.test(message));
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

/** Settings of {@link prunePostgresInbox}. */
export interface PrunePostgresInboxOptions {
  /** The pool of the inbox. */
  readonly pool: PostgresPool;
  /**
   * The inbox's table.
   * @default 'payorch_callback_inbox'
   */
  readonly table?: string | undefined;
  /**
   * The inbox's schema, as given to it; without it, the schema current on the prune's connection.
   * @default the current schema
   */
  readonly schema?: string | undefined;
  /**
   * The age of the records (the Unix seconds a tracking code ends with) whose keys are deleted,
   * in seconds. The table's horizon is raised to now minus this: from then on the inbox refuses
   * (422, `CallbackRetentionError`) a callback of a record at or before the horizon whose key it
   * does not hold, so a deleted key can never let a re-signed redelivery apply twice. Longer keeps
   * more rows and refuses fewer late callbacks.
   * @default 7776000 (90 days)
   * @example 365 * 86_400
   */
  readonly olderThanSeconds?: number | undefined;
}

/** The shortest retention {@link prunePostgresInbox} accepts, in seconds: a record age of 3 days and 300 s. */
export const MIN_POSTGRES_INBOX_RETENTION_SECONDS = DEFAULT_CALLBACK_MAX_AGE_SECONDS + DEFAULT_TOLERANCE_SECONDS;

/** The record age {@link prunePostgresInbox} prunes by default, in seconds: 90 days. */
export const DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS = 90 * 86_400;

/** prunePostgresInbox's options. */
const PRUNE_OPTIONS = declareOptions<PrunePostgresInboxOptions>()([
  POOL_OPTION,
  TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'olderThanSeconds', rule: { type: 'number', min: MIN_POSTGRES_INBOX_RETENTION_SECONDS, max: TEN_YEARS_SECONDS, integer: true }, default: DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS },
]);

/** How many rows one prune transaction deletes: small enough to commit in milliseconds. */
const PRUNE_BATCH_ROWS = 1000;

/** How often a prune looks again whether the claims under way when it raised the horizon ended. */
const PRUNE_POLL_MS = 20;

/**
 * Raises the table's horizon to now minus `olderThanSeconds` (never lowers it), then deletes the
 * keys whose record is older than the horizon, without ever making a callback wait:
 *
 * 1. It raises the horizon in a short transaction of its own. Claims only read that row.
 * 2. It waits for the claims that were under way then to end (it watches their transactions in
 *    `pg_locks`; it takes no lock they would wait for): from then on every claim sees the horizon,
 *    and refuses a record at or before it whose key is not held, so a deleted key can never let
 *    a re-signed redelivery apply twice.
 * 3. It deletes in batches of 1000 rows, one transaction each, found in record-time order through
 *    the table's primary key. Claims never write rows behind the horizon, so no batch waits for
 *    a claim and no claim waits for a batch.
 *
 * The horizon is a row of the table itself (account and tracking code empty, record time 0), so
 * every inbox on the table obeys it whatever its settings. Before the first prune nothing is
 * refused. Run it daily, at any hour.
 *
 * @returns how many keys (rows of a tracking code) were deleted
 * @throws {RequestValidationError} (`invalid_option`, `olderThanSeconds`) for a retention shorter than 259500 s or longer than 10 years
 * @example
 * ```ts
 * setInterval(() => void prunePostgresInbox({ pool }).catch(console.error), 86_400_000).unref();
 * ```
 */
export async function prunePostgresInbox(options: PrunePostgresInboxOptions): Promise<number> {
  checkOptions('prunePostgresInbox', options, PRUNE_OPTIONS);
  const name = tableName('prunePostgresInbox', options);
  const seconds = options.olderThanSeconds ?? DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS;
  const client = await options.pool.connect();
  let broken: Error | undefined;
  // One statement in a transaction of its own: a pooler in statement pooling refuses it before
  // anything changed.
  const inTransaction = async (text: string, values: unknown[]): Promise<PostgresQueryResult> => {
    await client.query('BEGIN');
    try {
      const result = await client.query(text, values);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
      });
      throw error;
    }
  };
  try {
    const table = await name(client);
    // The horizon in whole seconds, by the database's clock (the same for every instance).
    const raised = await inTransaction(
      `INSERT INTO ${table} AS inbox (record_time, account, tracking_code, statuses, applied_at)
  VALUES (0, '', '', '{payorch:horizon}', to_timestamp(floor(extract(epoch FROM now())) - $1::bigint))
  ON CONFLICT (record_time, account, tracking_code) DO UPDATE SET applied_at = GREATEST(inbox.applied_at, EXCLUDED.applied_at)
  RETURNING extract(epoch FROM applied_at)::bigint AS at`,
      [seconds],
    );
    const horizon = String((raised.rows?.[0] as Partial<Record<'at', unknown>> | undefined)?.at);
    // Every transaction holding a claim's lock on the table now took it, and its snapshot, before
    // the horizon was committed, or reads it: wait for the former to end. Each transaction holds
    // its virtual transaction id until it ends.
    const { rows: found = [] } = await client.query(
      `SELECT coalesce(array_agg(DISTINCT virtualtransaction), '{}') AS under_way FROM pg_locks
  WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND relation = $1::regclass AND mode = 'RowExclusiveLock'`,
      [table],
    );
    let underWay = ((found[0] as Partial<Record<'under_way', unknown>> | undefined)?.under_way as unknown[] | undefined) ?? [];
    while (underWay.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, PRUNE_POLL_MS));
      const { rows = [] } = await client.query(`SELECT coalesce(array_agg(virtualxid), '{}') AS under_way FROM pg_locks WHERE locktype = 'virtualxid' AND virtualxid = ANY($1::text[])`, [underWay]);
      underWay = ((rows[0] as Partial<Record<'under_way', unknown>> | undefined)?.under_way as unknown[] | undefined) ?? [];
    }
    // Each batch starts after the last key of the one before, so that none walks the index
    // entries its predecessors deleted; the horizon row (record time 0, empty codes) comes first
    // and is never in a batch.
    let after: unknown[] = [0, '', ''];
    let deleted = 0;
    for (;;) {
      const { rows = [] } = await inTransaction(
        `WITH batch AS (SELECT ctid AS row_id, record_time, account, tracking_code FROM ${table}
    WHERE (record_time, account, tracking_code) > ($2::bigint, $3::text, $4::text) AND record_time < $1::bigint
    ORDER BY record_time, account, tracking_code LIMIT ${String(PRUNE_BATCH_ROWS)}),
  deleted AS (DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT row_id FROM batch)) RETURNING 1)
SELECT (SELECT count(*) FROM deleted) AS deleted, (SELECT count(*) FROM batch) AS found, last.record_time, last.account, last.tracking_code
  FROM (SELECT record_time, account, tracking_code FROM batch ORDER BY record_time DESC, account DESC, tracking_code DESC LIMIT 1) AS last`,
        [horizon, ...after],
      );
      const [last] = rows as readonly (Partial<Record<'deleted' | 'found' | 'record_time' | 'account' | 'tracking_code', unknown>> | undefined)[];
      if (last === undefined) return deleted;
      deleted += Number(last.deleted);
      if (Number(last.found) < PRUNE_BATCH_ROWS) return deleted;
      after = [last.record_time, last.account, last.tracking_code];
    }
  } catch (error) {
    if (/statement pooling/i.test(error instanceof Error ? error.message : '')) {
      broken = error as Error;
      throw new StatementPoolingError('payorch/postgres: prunePostgresInbox needs a transaction, which a pooler in statement pooling refuses; use transaction or session pooling, or connect directly', { cause: error });
    }
    throw error;
  } finally {
    client.release(broken ?? false);
  }
}

export { CallbackRetentionError, StatementPoolingError } from '../errors/error.js';
export type { CallbackInbox, CallbackInboxContext, CallbackKey, CallbackInboxOutcome } from '../webhooks/inbox.js';
