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
import type { CallbackInbox, CallbackKey, CallbackInboxOutcome } from '../webhooks/inbox.js';
import { sha256Hex } from '../internal/hash/web.js';
import { recordTimeOf } from '../webhooks/record-time.js';

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
}

/** The table of applied keys when none is named. */
export const DEFAULT_CALLBACK_INBOX_TABLE = 'payorch_callback_inbox';

const TABLE_OPTION: OptionDeclaration<'table'> = {
  name: 'table',
  rule: {
    type: 'text',
    maxLength: 127,
    pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}(?:\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/,
    allowed: 'a name of letters, digits and _ (up to 63), optionally schema.table',
  },
  default: DEFAULT_CALLBACK_INBOX_TABLE,
};

const SCHEMA_OPTION: OptionDeclaration<'schema'> = {
  name: 'schema',
  rule: { type: 'text', maxLength: 63, pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, allowed: 'a name of letters, digits and _ (up to 63)' },
};

const POOL_OPTION: OptionDeclaration<'pool'> = { name: 'pool', rule: { type: 'object', methods: ['connect'], allowed: 'a node-postgres Pool (an object with connect())' }, required: true };

/** createPostgresInbox's options. */
const POSTGRES_INBOX_OPTIONS = declareOptions<PostgresInboxOptions<PostgresPool>>()([POOL_OPTION, TABLE_OPTION, SCHEMA_OPTION, { name: 'onPoolError', rule: { type: 'function' } }]);

// Quoted, so a table name is never read as SQL; checked, so quoting cannot be escaped.
function quoteTable(where: string, table: string | undefined): string {
  const name = table ?? DEFAULT_CALLBACK_INBOX_TABLE;
  checkValue(where, TABLE_OPTION, name);
  return name.split('.').map((part) => `"${part}"`).join('.');
}

/**
 * The table, named with its schema once it is known: from `schema` or a qualified `table` at
 * once, otherwise from `current_schema()` on the first connection (before any handler runs). The
 * inbox, createCallbackInboxTable and pruneCallbackInbox resolve it the same way.
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
  return tableSql(quoteTable('callbackInboxTableSql', table));
}

function tableSql(quoted: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (`,
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
  const name = tableName('createCallbackInboxTable', options);
  const client = await options.pool.connect();
  try {
    await client.query(tableSql(await name(client)));
  } finally {
    client.release();
  }
}

// The sentinel row that holds a table's horizon (see pruneCallbackInbox): no verified callback has
// an empty tracking code, and `appliedStatuses` reads a real account and tracking code only.
const HORIZON_ROW = "account = '' AND tracking_code = '' AND status = 'payorch:horizon'";

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
 * - A record at or before the table's horizon (see {@link pruneCallbackInbox}) whose key is not
 *   held: refused with a `CallbackRetentionError`, nothing recorded (the receiver answers 422).
 * - Behind a pooler: transaction and session pooling work (the claim is named by a digest of its
 *   text, and made unnamed where the pooler loses the name); statement pooling refuses
 *   transactions, and the inbox refuses with a `StatementPoolingError`.
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
  const name = tableName('createPostgresInbox', options);
  // The claim in one statement: the horizon, the key's insert when its record is younger, whether
  // the key was held, and the statuses applied before: one round trip per callback, not one per
  // step. The parts read the statement's snapshot, taken after the insert's lock on the table:
  // once a prune has committed (it locks the table against claims), its horizon and deletions are
  // seen.
  const claimSql = (table: string): string => `WITH horizon AS (SELECT extract(epoch FROM applied_at)::bigint AS at FROM ${table} WHERE ${HORIZON_ROW}),
inserted AS (INSERT INTO ${table} (account, tracking_code, status) SELECT $1::text, $2::text, $3::text
  WHERE NOT EXISTS (SELECT 1 FROM horizon WHERE $4::bigint <= at) ON CONFLICT DO NOTHING RETURNING 1)
SELECT EXISTS (SELECT 1 FROM inserted) AS inserted, (SELECT at FROM horizon) AS horizon,
  ARRAY(SELECT status FROM ${table} WHERE account = $1::text AND tracking_code = $2::text ORDER BY applied_at) AS applied`;
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
      const record = recordTimeOf(key.trackingCode);
      const client = await options.pool.connect();
      // A connection that dies while checked out emits 'error' on its client; unheard, that
      // would end the process. The failed query rejects as well, and that is what we act on.
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      let table = claim?.table ?? '(the inbox table)';
      try {
        if (claim === undefined) {
          table = await name(client);
          const sql = claimSql(table);
          claim = { table, sql, name: `payorch_claim_${sha256Hex(sql).slice(0, 32)}` };
        }
        try {
          await client.query('BEGIN');
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
        try {
          result = byName ? await client.query({ name: claim.name, text: claim.sql, values }) : await client.query(claim.sql, values);
        } catch (error) {
          if (!byName || !isPreparedStatementError(error)) throw error;
          named = false;
          await client.query('ROLLBACK');
          await client.query('BEGIN');
          result = await client.query(claim.sql, values);
        }
        const { rows = [] } = result;
        const [claimed] = rows as readonly (Partial<Record<'inserted' | 'horizon' | 'applied', unknown>> | undefined)[];
        // Every status of the tracking code committed before this statement, its own included.
        const statuses = Array.isArray(claimed?.applied) ? claimed.applied.map(String) : [];
        if (claimed?.inserted !== true) {
          // Not inserted: a duplicate, unless the horizon stopped a key that was not held (the
          // catch below rolls back).
          const horizon = claimed?.horizon === null || claimed?.horizon === undefined ? undefined : Number(claimed.horizon);
          if (horizon !== undefined && record <= horizon && !statuses.includes(key.status)) throw new CallbackRetentionError(key, record, horizon);
          await client.query('ROLLBACK');
          return 'duplicate';
        }
        const appliedStatuses = statuses.filter((status) => status !== key.status);
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

/** The shortest retention {@link pruneCallbackInbox} accepts, in seconds: a record age of 3 days and 300 s. */
export const MIN_CALLBACK_INBOX_RETENTION_SECONDS = DEFAULT_CALLBACK_MAX_AGE_SECONDS + DEFAULT_TOLERANCE_SECONDS;

/** The record age {@link pruneCallbackInbox} prunes by default, in seconds: 90 days. */
export const DEFAULT_CALLBACK_INBOX_RETENTION_SECONDS = 90 * 86_400;

/** pruneCallbackInbox's options. */
const PRUNE_OPTIONS = declareOptions<PruneCallbackInboxOptions>()([
  POOL_OPTION,
  TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'olderThanSeconds', rule: { type: 'number', min: MIN_CALLBACK_INBOX_RETENTION_SECONDS, max: TEN_YEARS_SECONDS, integer: true }, default: DEFAULT_CALLBACK_INBOX_RETENTION_SECONDS },
]);

/**
 * Raises the table's horizon to now minus `olderThanSeconds` (never lowers it), and deletes the
 * keys whose record is older than the horizon, in one transaction that locks the table against
 * claims (`SHARE ROW EXCLUSIVE`) while it runs, so that a claim sees both or neither. The horizon
 * is a row of the table itself (account and tracking code empty, status `payorch:horizon`), so
 * every inbox on the table obeys it whatever its settings. Before the first prune nothing is
 * refused. Run it daily; it waits for the callbacks being applied, and they wait for it.
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
  const name = tableName('pruneCallbackInbox', options);
  const seconds = options.olderThanSeconds ?? DEFAULT_CALLBACK_INBOX_RETENTION_SECONDS;
  const client = await options.pool.connect();
  let broken: Error | undefined;
  try {
    const table = await name(client);
    await client.query('BEGIN');
    try {
      await client.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`);
      // The horizon in whole seconds, by the database's clock (the same for every instance).
      const { rowCount } = await client.query(
        `WITH raised AS (INSERT INTO ${table} AS inbox (account, tracking_code, status, applied_at)
  VALUES ('', '', 'payorch:horizon', to_timestamp(floor(extract(epoch FROM now())) - $1::bigint))
  ON CONFLICT (account, tracking_code, status) DO UPDATE SET applied_at = GREATEST(inbox.applied_at, EXCLUDED.applied_at)
  RETURNING extract(epoch FROM applied_at)::bigint AS at)
DELETE FROM ${table} WHERE tracking_code <> '' AND substring(tracking_code FROM '-([0-9]{1,12})$')::bigint < (SELECT at FROM raised)`,
        [seconds],
      );
      await client.query('COMMIT');
      return rowCount ?? 0;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
      });
      throw error;
    }
  } catch (error) {
    if (/statement pooling/i.test(error instanceof Error ? error.message : '')) {
      broken = error as Error;
      throw new StatementPoolingError('payorch/postgres: pruneCallbackInbox needs a transaction, which a pooler in statement pooling refuses; use transaction or session pooling, or connect directly', { cause: error });
    }
    throw error;
  } finally {
    client.release(broken ?? false);
  }
}

export { CallbackRetentionError, StatementPoolingError } from '../errors/error.js';
export type { CallbackInbox, CallbackKey, CallbackInboxOutcome } from '../webhooks/inbox.js';
