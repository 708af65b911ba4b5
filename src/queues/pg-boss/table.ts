// The dead letters' table: how it is named, made and created. A table of the merchant's own
// PostgreSQL, which no retention of pg-boss's reaches.
import { checkOptions, declareOptions } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import { POOL_OPTION, SCHEMA_OPTION, TABLE_OPTION, quoteTable, tableName } from '../../inboxes/postgres/table.js';
import type { PostgresPool } from '../../inboxes/postgres/table.js';

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
 * may hold), how many attempts it had, its last error, when it died, and its earlier lives (a JSON
 * array of `{ attempts, lastError, deadAt }`, null for a job never replayed). `seq` orders
 * them (oldest first) and pages them. Run it in your migrations, or call
 * {@link createPgBossDeadLetterTable}.
 *
 * @example
 * ```ts
 * import { pgBossDeadLetterTableSql } from 'payorch/pg-boss';
 * console.log(pgBossDeadLetterTableSql());
 * // CREATE TABLE IF NOT EXISTS "payorch_dead_letters" (
 * //   seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
 * //   id text NOT NULL UNIQUE,
 * //   queue text NOT NULL,
 * //   job text NOT NULL,
 * //   attempts integer NOT NULL,
 * //   last_error text NOT NULL,
 * //   dead_at timestamptz NOT NULL DEFAULT now(),
 * //   history text
 * // );
 * // CREATE INDEX IF NOT EXISTS "payorch_dead_letters_queue" ON "payorch_dead_letters" (queue, seq)
 * ```
 */
export function pgBossDeadLetterTableSql(table?: string): string {
  return tableSql(quoteTable('pgBossDeadLetterTableSql', table, DEFAULT_PGBOSS_DEAD_LETTER_TABLE));
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
    '  dead_at timestamptz NOT NULL DEFAULT now(),',
    '  history text',
    ');',
    `CREATE INDEX IF NOT EXISTS "${table}_queue" ON ${quoted} (queue, seq)`,
  ].join('\n');
}

/**
 * Creates the dead letters' table if it does not exist ({@link pgBossDeadLetterTableSql}).
 *
 * @example
 * ```ts
 * import { createPgBossDeadLetterTable } from 'payorch/pg-boss';
 * import type pg from 'pg';
 * declare const pool: pg.Pool;
 * await createPgBossDeadLetterTable({ pool });
 * ```
 */
export async function createPgBossDeadLetterTable(options: PgBossDeadLetterTableOptions): Promise<void> {
  checkOptions('createPgBossDeadLetterTable', options, TABLE_OPTIONS);
  const name = deadLetterTableName('createPgBossDeadLetterTable', options);
  const client = await options.pool.connect();
  try {
    await client.query(tableSql(await name(client)));
  } finally {
    client.release();
  }
}
