// The inbox's table, how it is named and created, and what every operation on it shares: the
// options and the error a statement pooler earns. The pool and client shapes, and how a table is
// named, are every PostgreSQL adapter's: src/postgres/table.ts.
import { declareOptions } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import type { TableMigration } from '../../core/table-migration.js';
import { InboxError } from '../../errors/error.js';
import { POOL_OPTION, SCHEMA_OPTION, TABLE_OPTION, quoteTable, tableName } from '../../postgres/table.js';
import type { PostgresClient, PostgresPool } from '../../postgres/table.js';
import type { CallbackInboxContext } from '../inbox.js';
import { PRE_RELEASE_INBOX } from '../../internal/table-versions.js';
import { checkPostgresTable, migratePostgresTable, recordSql } from '../../postgres/versions.js';
import type { PostgresTable } from '../../postgres/versions.js';

/** What the PostgreSQL inbox gives each handler: the key, the client of the open transaction, what was applied before. */
export interface PostgresInboxContext<TClient> extends CallbackInboxContext {
  /**
   * Every other status applied for this merchant and tracking code before this one, in the order
   * they were applied. Callbacks of one tracking code are applied one at a time (a second waits
   * for the first's transaction), so two end statuses racing on two instances never both see an
   * empty list. Every status of spec 6 ends its record: a non-empty list means a second end was
   * reported, so refund once per tracking code, not per status.
   */
  readonly appliedStatuses: readonly string[];
  /**
   * The client whose transaction also inserts the callback's key: run your own changes on it,
   * and they commit together with the key, or not at all. Do not COMMIT or ROLLBACK it yourself
   * (the callback then fails with an `InboxCommitError`): a helper's own transaction on it is a
   * SAVEPOINT.
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
   * another callback of the same merchant and tracking code being applied (copies, or a second end
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

/** The inbox's `table`, whose default is its own. */
export const INBOX_TABLE_OPTION: OptionDeclaration<'table'> = { ...TABLE_OPTION, default: DEFAULT_POSTGRES_INBOX_TABLE };

/** createPostgresInbox's options. */
export const POSTGRES_INBOX_OPTIONS = declareOptions<PostgresInboxOptions<PostgresPool>>()([
  POOL_OPTION,
  INBOX_TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'onPoolError', rule: { type: 'function' } },
  { name: 'lockTimeoutMs', rule: { type: 'number', min: 1, max: 60_000, integer: true }, default: DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS, note: 'keep it below the senders\' patience, a few seconds' },
]);

/**
 * The SQL that creates the inbox's table: one row per merchant + tracking code, its key, with the
 * statuses applied for it in the order they were applied, and the record time first given for it
 * (the Unix seconds the tracking code ends with, or a transfer's `created_at`), which only
 * {@link prunePostgresInbox} reads, through the second index. First it records the table's version
 * in `payorch_schema`, when the table does not exist yet. Run it in your migrations, or call
 * {@link createPostgresInboxTable}, which also migrates a table of an earlier version.
 *
 * @example
 * ```ts
 * import { postgresInboxTableSql } from 'payorch/postgres';
 * console.log(postgresInboxTableSql());
 * // CREATE TABLE IF NOT EXISTS payorch_schema (table_name text PRIMARY KEY, component text NOT NULL, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now());
 * // INSERT INTO payorch_schema (table_name, component, version) SELECT 'payorch_callback_inbox', 'callback-inbox', 1 WHERE to_regclass('"payorch_callback_inbox"') IS NULL ON CONFLICT (table_name) DO UPDATE SET component = EXCLUDED.component, version = EXCLUDED.version, migrated_at = now();
 * // CREATE TABLE IF NOT EXISTS "payorch_callback_inbox" (
 * //   merchant_id text NOT NULL,
 * //   tracking_code text NOT NULL,
 * //   statuses text[] NOT NULL,
 * //   record_time bigint NOT NULL,
 * //   applied_at timestamptz NOT NULL DEFAULT now(),
 * //   PRIMARY KEY (merchant_id, tracking_code)
 * // );
 * // CREATE INDEX IF NOT EXISTS "payorch_callback_inbox_record_time" ON "payorch_callback_inbox" (record_time, merchant_id, tracking_code)
 * ```
 */
export function postgresInboxTableSql(table?: string): string {
  const quoted = quoteTable('postgresInboxTableSql', table, DEFAULT_POSTGRES_INBOX_TABLE);
  return [...recordSql(POSTGRES_INBOX_TABLE, quoted, true), tableSql(quoted)].join(';\n');
}

// The key is the merchant and tracking code alone: a record time read from an unsigned field (a
// transfer's created_at) may be written in another form on the next read, and must not make a
// second row. The prune's index in record-time order is a plain one: a second UNIQUE index is no
// arbiter of the claim's ON CONFLICT, so two copies claimed at the same time would fail on it with
// a unique violation instead of one waiting for the other.
function tableSql(quoted: string): string {
  const table = quoted.slice(quoted.lastIndexOf('."') + 1).slice(1, -1);
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (`,
    '  merchant_id text NOT NULL,',
    '  tracking_code text NOT NULL,',
    '  statuses text[] NOT NULL,',
    '  record_time bigint NOT NULL,',
    '  applied_at timestamptz NOT NULL DEFAULT now(),',
    '  PRIMARY KEY (merchant_id, tracking_code)',
    ');',
    `CREATE INDEX IF NOT EXISTS "${table}_record_time" ON ${quoted} (record_time, merchant_id, tracking_code)`,
  ].join('\n');
}

/**
 * The versions of the inbox's table, oldest first: version 1 is the shape of the first release. A
 * new version is one entry: its columns and keys, and the statements from the one before.
 */
export const POSTGRES_INBOX_TABLE: PostgresTable = {
  component: 'callback-inbox',
  what: 'the inbox table of payorch/postgres',
  versions: [
    {
      version: 1,
      shape: ['merchant_id text NOT NULL', 'tracking_code text NOT NULL', 'statuses text[] NOT NULL', 'record_time bigint NOT NULL', 'applied_at timestamp with time zone NOT NULL', 'PRIMARY KEY (merchant_id, tracking_code)'],
    },
  ],
  // A pre-release build recorded its `merchant_id` table at 2, its keys the raw API key.
  retired: [2],
  preRelease: PRE_RELEASE_INBOX,
  migrate: 'createPostgresInboxTable({ pool }) or `payorch migrate postgres-inbox`',
  guide: 'docs/inboxes.md, "Upgrading"',
  create: (table) => tableSql(table).split(';\n'),
  refuse: (message, options) => new InboxError(`payorch/postgres: ${message}`, options),
};

/**
 * Checks, once per inbox, before its first claim, that the table is at the version this payorch
 * uses: a missing table, one of another version and one changed by hand are refused with an
 * `InboxError` that says what to do.
 */
export function checkInboxTable(client: PostgresClient, table: string): Promise<void> {
  return checkPostgresTable(client, POSTGRES_INBOX_TABLE, table, 'createPostgresInboxTable({ pool }), or postgresInboxTableSql() in your migrations');
}

/**
 * Brings the inbox's table to the version this payorch uses, keeping every applied key: creates it
 * when it does not exist ({@link postgresInboxTableSql}), migrates a table of an earlier version in
 * place, and does nothing to a current one. One transaction, under an advisory lock: instances that
 * start at once migrate it once. A table of a later version, or with columns of no version (changed
 * by hand), is refused with an `InboxError`, and nothing changes. `payorch migrate postgres-inbox`
 * does the same from a shell.
 *
 * @returns the version the table was at (`from`, undefined when created) and is at (`to`)
 * @throws {InboxError} for a table of a later version or of no version's columns, naming the versions
 * @example
 * ```ts
 * import { createPostgresInboxTable } from 'payorch/postgres';
 * import type pg from 'pg';
 * declare const pool: pg.Pool;
 * await createPostgresInboxTable({ pool });
 * ```
 */
export async function createPostgresInboxTable(options: PostgresInboxOptions<PostgresPool>): Promise<TableMigration> {
  const name = tableName('createPostgresInboxTable', options, DEFAULT_POSTGRES_INBOX_TABLE);
  const client = await options.pool.connect();
  // A failure may have lost the connection (a pooler in statement pooling closes it): not pooled again.
  let failed = true;
  try {
    const migration = await migratePostgresTable(client, POSTGRES_INBOX_TABLE, await name(client));
    failed = false;
    return migration;
  } finally {
    client.release(failed);
  }
}

// Defined with the other errors, so that there is one class of that name in the package.
export { StatementPoolingError } from '../../errors/error.js';
