// The dead letters' table of a PostgreSQL queue: how it is named, made and created. A table of the
// merchant's own PostgreSQL, which no retention of the engine's reaches. Each adapter names itself
// in the table's refusals, and the engine whose jobs it holds in `payorch_schema` (`component`).
import { checkOptions, declareOptions } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import type { TableMigration } from '../core/table-migration.js';
import { QueueError } from '../errors/error.js';
import { PRE_RELEASE_DEAD_LETTERS } from '../internal/table-versions.js';
import { POOL_OPTION, SCHEMA_OPTION, TABLE_OPTION, quoteTable, tableName } from './table.js';
import type { PostgresPool } from './table.js';
import { migratePostgresTable, recordSql } from './versions.js';
import type { PostgresTable } from './versions.js';

/** The dead letters' table when none is named. */
export const DEFAULT_DEAD_LETTER_TABLE = 'payorch_dead_letters';

/** Where a PostgreSQL queue's dead letters' table is, and the pool to reach it. */
export interface DeadLetterTableOptions {
  /**
   * A node-postgres pool of the database the queue uses.
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

export const DEAD_LETTER_TABLE_OPTION: OptionDeclaration<'table'> = { ...TABLE_OPTION, default: DEFAULT_DEAD_LETTER_TABLE };

/** The options of each adapter's function that creates the table. */
export const TABLE_OPTIONS = declareOptions<DeadLetterTableOptions>()([POOL_OPTION, DEAD_LETTER_TABLE_OPTION, SCHEMA_OPTION]);

/** The table's name with its schema, resolved as the PostgreSQL inbox resolves its own. */
export const deadLetterTableName = (where: string, options: Omit<DeadLetterTableOptions, 'pool'>) => tableName(where, options, DEFAULT_DEAD_LETTER_TABLE);

/**
 * The SQL that creates the dead letters' table: one row per dead job, with the queue it died on,
 * the job as it was (its JSON, as text: `jsonb` refuses a `\u0000` or a lone surrogate a callback
 * may hold), how many attempts it had, its last error, when it died, and its earlier lives (a JSON
 * array of `{ attempts, lastError, deadAt }`, null for a job never replayed). `seq` orders them
 * (oldest first) and pages them. First it records the table's version in `payorch_schema`, when
 * the table does not exist yet. Each adapter exports it under its own name (pgBossDeadLetterTableSql).
 */
export function deadLetterTableSql(where: string, definition: PostgresTable, table?: string): string {
  const quoted = quoteTable(where, table, DEFAULT_DEAD_LETTER_TABLE);
  return [...recordSql(definition, quoted, true), tableSql(quoted)].join(';\n');
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

/** The queue adapter a dead letters' table is made for. */
export interface DeadLetterTableOwner {
  /** The adapter's entry, as its refusals name it: `payorch/pg-boss`. */
  readonly adapter: string;
  /**
   * What `payorch_schema` records the table holds: the engine whose jobs its rows are. A table
   * recorded for another engine is refused, so a dead letter is never replayed into an engine that
   * did not write it.
   */
  readonly component: PostgresTable['component'];
  /** How to create or migrate the table, as a refusal tells it. */
  readonly migrate: string;
  /** The guide's section on upgrading it. */
  readonly guide: string;
}

/**
 * The versions of the dead letters' table, oldest first, every adapter's: version 1 is the shape of
 * the first release. A new version is one entry: its columns and keys, and the statements from the
 * one before.
 */
const DEAD_LETTER_VERSIONS: PostgresTable['versions'] = [
  {
    version: 1,
    shape: ['seq bigint NOT NULL', 'id text NOT NULL', 'queue text NOT NULL', 'job text NOT NULL', 'attempts integer NOT NULL', 'last_error text NOT NULL', 'dead_at timestamp with time zone NOT NULL', 'history text', 'PRIMARY KEY (seq)', 'UNIQUE (id)'],
  },
];

/** The dead letters' table of `owner`. */
export const deadLetterTable = (owner: DeadLetterTableOwner): PostgresTable => ({
  component: owner.component,
  what: `the dead letters' table of ${owner.adapter}`,
  versions: DEAD_LETTER_VERSIONS,
  // Pre-release builds recorded 2 (the job as text) and 3 (with its history), jobs of another form.
  retired: [2, 3],
  preRelease: PRE_RELEASE_DEAD_LETTERS,
  migrate: owner.migrate,
  guide: owner.guide,
  create: (table) => tableSql(table).split(';\n'),
  refuse: (message, options) => new QueueError(`${owner.adapter}: ${message}`, options),
});

/**
 * Brings the dead letters' table to the version this payorch uses, keeping every dead letter:
 * creates it when it does not exist ({@link deadLetterTableSql}), migrates a table of an
 * earlier version in place, and does nothing to a current one, in one transaction under an advisory
 * lock. A table of a later version, or with columns of no version, is refused with a `QueueError`.
 * Each adapter exports it under its own name (createPgBossDeadLetterTable), `where` naming it.
 *
 * @returns the version the table was at (`from`, undefined when created) and is at (`to`)
 * @throws {QueueError} for a table of a later version or of no version's columns, naming the versions
 */
export async function createDeadLetterTable(where: string, definition: PostgresTable, options: DeadLetterTableOptions): Promise<TableMigration> {
  checkOptions(where, options, TABLE_OPTIONS);
  const name = deadLetterTableName(where, options);
  const client = await options.pool.connect();
  // A failure may have lost the connection (a pooler in statement pooling closes it): not pooled again.
  let failed = true;
  try {
    const migration = await migratePostgresTable(client, definition, await name(client));
    failed = false;
    return migration;
  } finally {
    client.release(failed);
  }
}
