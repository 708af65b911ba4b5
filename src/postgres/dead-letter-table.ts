// The dead letters' table: how it is named, made and created. A table of the merchant's own
// PostgreSQL, which no retention of pg-boss's reaches.
import { checkOptions, declareOptions } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import type { TableMigration } from '../core/table-migration.js';
import { QueueError } from '../errors/error.js';
import { POOL_OPTION, SCHEMA_OPTION, TABLE_OPTION, quoteTable, tableName } from '../inboxes/postgres/table.js';
import type { PostgresPool } from '../inboxes/postgres/table.js';
import { migratePostgresTable, recordSql } from './versions.js';
import type { PostgresTable } from './versions.js';

/** The dead letters' table when none is named. */
export const DEFAULT_PGBOSS_DEAD_LETTER_TABLE = 'payorch_dead_letters';

/** Settings of {@link createPgBossDeadLetterTable}, and where {@link createPgBossQueue} finds the table. */
export interface PgBossDeadLetterTableOptions {
  /**
   * A node-postgres pool of the database pg-boss uses.
   * @example new Pool({ connectionString: process.env.DATABASE_URL })
   */
  readonly pool: PostgresPool;
  /**
   * The dead letters' table, optionally schema-qualified. Letters, digits and `_` only. Queues
   * may share one: each adapter reads and writes the rows of its own `queue`.
   * @default 'payorch_dead_letters'
   * @example 'billing.payorch_dead_letters'
   */
  readonly table?: string | undefined;
  /**
   * The schema of `table` (or give `table` as `schema.table`). Without either, the schema current
   * on the first connection used (`SELECT current_schema()`), fixed from then on.
   * @default the current schema at first use
   * @example 'billing'
   */
  readonly schema?: string | undefined;
}

export const DEAD_LETTER_TABLE_OPTION: OptionDeclaration<'table'> = { ...TABLE_OPTION, default: DEFAULT_PGBOSS_DEAD_LETTER_TABLE };

/** createPgBossDeadLetterTable's options. */
export const TABLE_OPTIONS = declareOptions<PgBossDeadLetterTableOptions>()([POOL_OPTION, DEAD_LETTER_TABLE_OPTION, SCHEMA_OPTION]);

/** The table's name with its schema, resolved as the PostgreSQL inbox resolves its own. */
export const deadLetterTableName = (where: string, options: Omit<PgBossDeadLetterTableOptions, 'pool'>) => tableName(where, options, DEFAULT_PGBOSS_DEAD_LETTER_TABLE);

/**
 * The SQL that creates the dead letters' table: one row per dead job, with the queue it died on,
 * the job as it was (its JSON, as text: `jsonb` refuses a `\u0000` or a lone surrogate a callback
 * may hold), how many attempts it had, its last error, and when it died. `seq` orders them (oldest
 * first) and pages them. First it records the table's version in `payorch_schema`, when the table
 * does not exist yet. Run it in your migrations, or call {@link createPgBossDeadLetterTable}, which
 * also migrates a table of an earlier version.
 *
 * @example
 * ```ts
 * import { pgBossDeadLetterTableSql } from 'payorch/pg-boss';
 * console.log(pgBossDeadLetterTableSql());
 * // CREATE TABLE IF NOT EXISTS payorch_schema (table_name text PRIMARY KEY, component text NOT NULL, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now());
 * // INSERT INTO payorch_schema (table_name, component, version) SELECT 'payorch_dead_letters', 'dead-letters', 1 WHERE to_regclass('"payorch_dead_letters"') IS NULL ON CONFLICT (table_name) DO UPDATE SET component = EXCLUDED.component, version = EXCLUDED.version, migrated_at = now();
 * // CREATE TABLE IF NOT EXISTS "payorch_dead_letters" (
 * //   seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
 * //   id text NOT NULL UNIQUE,
 * //   queue text NOT NULL,
 * //   job text NOT NULL,
 * //   attempts integer NOT NULL,
 * //   last_error text NOT NULL,
 * //   dead_at timestamptz NOT NULL DEFAULT now()
 * // );
 * // CREATE INDEX IF NOT EXISTS "payorch_dead_letters_queue" ON "payorch_dead_letters" (queue, seq)
 * ```
 */
export function pgBossDeadLetterTableSql(table?: string): string {
  const quoted = quoteTable('pgBossDeadLetterTableSql', table, DEFAULT_PGBOSS_DEAD_LETTER_TABLE);
  return [...recordSql(PGBOSS_DEAD_LETTER_TABLE, quoted, true), tableSql(quoted)].join(';\n');
}

function tableSql(quoted: string): string {
  const table = quoted.slice(quoted.lastIndexOf('."') + 1).slice(1, -1);
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (`,
    '  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,',
    '  id text NOT NULL UNIQUE,',
    '  queue text NOT NULL,',
    '  job text NOT NULL,',
    '  attempts integer NOT NULL,',
    '  last_error text NOT NULL,',
    '  dead_at timestamptz NOT NULL DEFAULT now()',
    ');',
    `CREATE INDEX IF NOT EXISTS "${table}_queue" ON ${quoted} (queue, seq)`,
  ].join('\n');
}

/**
 * The versions of the dead letters' table, oldest first. A new version is one entry: its columns
 * and keys, and the statements from the one before.
 */
export const PGBOSS_DEAD_LETTER_TABLE: PostgresTable = {
  component: 'dead-letters',
  what: "the dead letters' table of payorch/pg-boss",
  versions: [
    {
      version: 1,
      shape: ['seq bigint NOT NULL', 'id text NOT NULL', 'queue text NOT NULL', 'job jsonb NOT NULL', 'attempts integer NOT NULL', 'last_error text NOT NULL', 'dead_at timestamp with time zone NOT NULL', 'PRIMARY KEY (seq)', 'UNIQUE (id)'],
    },
    {
      // The job as JSON text: jsonb refuses a NUL or a lone surrogate a verified callback may hold.
      version: 2,
      shape: ['seq bigint NOT NULL', 'id text NOT NULL', 'queue text NOT NULL', 'job text NOT NULL', 'attempts integer NOT NULL', 'last_error text NOT NULL', 'dead_at timestamp with time zone NOT NULL', 'PRIMARY KEY (seq)', 'UNIQUE (id)'],
      up: (table) => [`ALTER TABLE ${table} ALTER COLUMN job TYPE text USING job::text`],
    },
  ],
  migrate: 'createPgBossDeadLetterTable({ pool }) or `payorch migrate pg-boss-dead-letters`',
  guide: 'docs/deferred.md, "Upgrading the dead letters\' table"',
  create: (table) => tableSql(table).split(';\n'),
  refuse: (message, options) => new QueueError(`payorch/pg-boss: ${message}`, options),
};

/**
 * Brings the dead letters' table to the version this payorch uses, keeping every dead letter:
 * creates it when it does not exist ({@link pgBossDeadLetterTableSql}), migrates a table of an
 * earlier version in place, and does nothing to a current one, in one transaction under an advisory
 * lock. A table of a later version, or with columns of no version, is refused with a `QueueError`.
 * `payorch migrate pg-boss-dead-letters` does the same from a shell.
 *
 * @returns the version the table was at (`from`, undefined when created) and is at (`to`)
 * @throws {QueueError} for a table of a later version or of no version's columns, naming the versions
 * @example
 * ```ts
 * import { createPgBossDeadLetterTable } from 'payorch/pg-boss';
 * import type pg from 'pg';
 * declare const pool: pg.Pool;
 * await createPgBossDeadLetterTable({ pool });
 * ```
 */
export async function createPgBossDeadLetterTable(options: PgBossDeadLetterTableOptions): Promise<TableMigration> {
  checkOptions('createPgBossDeadLetterTable', options, TABLE_OPTIONS);
  const name = deadLetterTableName('createPgBossDeadLetterTable', options);
  const client = await options.pool.connect();
  try {
    return await migratePostgresTable(client, PGBOSS_DEAD_LETTER_TABLE, await name(client));
  } finally {
    client.release();
  }
}
