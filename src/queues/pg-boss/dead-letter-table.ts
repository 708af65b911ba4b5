// What payorch/pg-boss names of its dead letters' table, which is every PostgreSQL queue's
// (src/postgres/dead-letter-table.ts): its refusals say payorch/pg-boss, and `payorch_schema`
// records it as `dead-letters`, as tables made before other engines were recorded.
import type { TableMigration } from '../../core/table-migration.js';
import { DEFAULT_DEAD_LETTER_TABLE, createDeadLetterTable, deadLetterTable, deadLetterTableSql } from '../../postgres/dead-letter-table.js';
import type { DeadLetterTableOptions } from '../../postgres/dead-letter-table.js';

/** The dead letters' table when none is named. */
export const DEFAULT_PGBOSS_DEAD_LETTER_TABLE = DEFAULT_DEAD_LETTER_TABLE;

// Exported under pg-boss's name as the neutral interface itself, not an alias of it: a public
// declaration may name only what some entry exports (test/package/declaration-names.test.ts).
export type { DeadLetterTableOptions as PgBossDeadLetterTableOptions } from '../../postgres/dead-letter-table.js';

/** The dead letters' table of payorch/pg-boss. */
export const PGBOSS_DEAD_LETTER_TABLE = /* @__PURE__ */ deadLetterTable({
  adapter: 'payorch/pg-boss',
  component: 'dead-letters',
  migrate: 'createPgBossDeadLetterTable({ pool }) or `payorch migrate pg-boss-dead-letters`',
  guide: 'docs/deferred.md, "Upgrading the dead letters\' table"',
});

/** How a missing table is to be created, as the refusal says. */
export const PGBOSS_CREATE_DEAD_LETTER_TABLE = 'createPgBossDeadLetterTable, or pgBossDeadLetterTableSql() in your migrations, before starting the workers';

/**
 * The SQL that creates the dead letters' table: one row per dead job, with the queue it died on,
 * the job as it was (its JSON, as text: `jsonb` refuses a `\u0000` or a lone surrogate a callback
 * may hold), how many attempts it had, its last error, when it died, and its earlier lives (a JSON
 * array of `{ attempts, lastError, deadAt }`, null for a job never replayed). `seq` orders them
 * (oldest first) and pages them. First it records the table's version in `payorch_schema`, when
 * the table does not exist yet. Run it in your migrations, or call
 * {@link createPgBossDeadLetterTable}, which also migrates a table of an earlier version.
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
 * //   dead_at timestamptz NOT NULL DEFAULT now(),
 * //   history text
 * // );
 * // CREATE INDEX IF NOT EXISTS "payorch_dead_letters_queue" ON "payorch_dead_letters" (queue, seq)
 * ```
 */
export function pgBossDeadLetterTableSql(table?: string): string {
  return deadLetterTableSql('pgBossDeadLetterTableSql', PGBOSS_DEAD_LETTER_TABLE, table);
}

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
export function createPgBossDeadLetterTable(options: DeadLetterTableOptions): Promise<TableMigration> {
  return createDeadLetterTable('createPgBossDeadLetterTable', PGBOSS_DEAD_LETTER_TABLE, options);
}
