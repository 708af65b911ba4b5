// The versions of payorch's tables in SQLite: D1's (the inbox, Cloudflare Queues' dead letters) and
// a Durable Object's inbox. The version is recorded in `payorch_schema` beside the table, the
// columns read with `pragma_table_info`. A migration is a list of statements run as one batch or
// transaction, which fails as a whole unless the table is still at the version it starts from: a
// second run at once (another isolate, a migration applied twice) changes nothing. The same
// statements are what `payorch migrate d1-inbox --from <version>` prints for wrangler.
import type { TableMigration } from '../../core/table-migration.js';
import { currentVersion, earlierMessage, foreignRecord, judgeTable, missingMessage, stepsAfter } from '../../internal/table-versions.js';
import type { TableState, TableVerdict, VersionedTable } from '../../internal/table-versions.js';

/** A table of SQLite: its versions, the SQL that creates its first, its refusal. */
export interface SqliteTable extends VersionedTable {
  /** The error a refusal is: an InboxError for an inbox, a QueueError for a queue's table. */
  readonly refuse: (message: string, options?: { readonly cause?: unknown }) => Error;
}

/** The reads that tell a table's state, each binding the table's name: give their rows to {@link sqliteTableState}. */
export const SQLITE_STATE_SQL = {
  present: `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?1, 'payorch_schema')`,
  shape: `SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?1)`,
  // Binds nothing. Read, then `record`, only when `present` lists payorch_schema, and `record` only
  // when payorch_schema is payorch's (sqliteForeignRecord).
  recordShape: `SELECT name, type, pk FROM pragma_table_info('payorch_schema')`,
  record: `SELECT component, version FROM payorch_schema WHERE table_name = ?1`,
};

/** How a payorch_schema of the user's own, of `recordShape`'s rows, differs from payorch's; undefined when it is payorch's. */
export function sqliteForeignRecord(recordShape: readonly unknown[]): string | undefined {
  const rows = recordShape.map((row) => row as Partial<Record<'name' | 'type' | 'pk', unknown>>);
  // SQLite reads any type naming INT as an integer.
  const columns = rows.map((column) => `${String(column.name)} ${/INT/i.test(String(column.type)) ? 'INTEGER' : String(column.type).toUpperCase()}`);
  const key = rows
    .filter((column) => Number(column.pk) > 0)
    .sort((a, b) => Number(a.pk) - Number(b.pk))
    .map((column) => String(column.name));
  return foreignRecord(key.length > 0 ? [...columns, `PRIMARY KEY (${key.join(', ')})`] : columns, ['table_name TEXT', 'component TEXT', 'version INTEGER', 'PRIMARY KEY (table_name)']);
}

/**
 * The table's state from the rows of {@link SQLITE_STATE_SQL}: `record` undefined when payorch_schema
 * is not there, or (`foreign`, from {@link sqliteForeignRecord}) not payorch's.
 */
export function sqliteTableState(bare: string, present: readonly unknown[], shape: readonly unknown[], record: readonly unknown[] | undefined, foreign?: string): TableState {
  const names = present.map((row) => (row as Partial<Record<'name', unknown>>).name);
  if (foreign !== undefined) return { exists: false, foreignRecord: foreign };
  if (!names.includes(bare)) return { exists: false };
  const columns = shape.map((row) => row as Partial<Record<'name' | 'type' | 'not_null' | 'pk', unknown>>);
  const key = columns
    .filter((column) => Number(column.pk) > 0)
    .sort((a, b) => Number(a.pk) - Number(b.pk))
    .map((column) => String(column.name));
  const [found] = record ?? [];
  const { component, version } = (found ?? {}) as Partial<Record<'component' | 'version', unknown>>;
  return {
    exists: true,
    recorded: found === undefined ? undefined : { component: String(component), version: Number(version) },
    shape: [...columns.map((column) => `${String(column.name)} ${String(column.type)}${Number(column.not_null) === 1 ? ' NOT NULL' : ''}`), ...(key.length > 0 ? [`PRIMARY KEY (${key.join(', ')})`] : [])],
  };
}

const SCHEMA_TABLE = 'CREATE TABLE IF NOT EXISTS payorch_schema (table_name TEXT PRIMARY KEY, component TEXT NOT NULL, version INTEGER NOT NULL, migrated_at INTEGER NOT NULL)';
// Milliseconds, in whole seconds: unixepoch('subsec') needs SQLite 3.42.
const NOW_MS = "CAST(strftime('%s', 'now') AS INTEGER) * 1000";

/**
 * The statements that bring the table `bare` from version `from` (undefined: it does not exist) to
 * the current one, recording it; literals, so that they run as a wrangler migration too (the
 * names are checked: letters, digits and `_`). From an earlier version, they first record the table
 * at `from` if nothing is recorded, then fail (NOT NULL constraint failed: payorch_schema.version)
 * unless it is at `from`, before any change.
 */
export function sqliteMigrationSql(table: SqliteTable, bare: string, from: number | undefined): readonly string[] {
  const to = currentVersion(table);
  const quoted = `"${bare}"`;
  const record = `INSERT INTO payorch_schema (table_name, component, version, migrated_at) VALUES ('${bare}', '${table.component}', ${String(from ?? to)}, ${NOW_MS})`;
  // Recorded only when the table does not exist yet: run over a table of an earlier version, the
  // creation leaves its record alone.
  if (from === undefined) {
    return [
      SCHEMA_TABLE,
      `INSERT INTO payorch_schema (table_name, component, version, migrated_at) SELECT '${bare}', '${table.component}', ${String(to)}, ${NOW_MS} WHERE NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${bare}') ON CONFLICT (table_name) DO UPDATE SET component = excluded.component, version = excluded.version, migrated_at = excluded.migrated_at`,
      ...table.create(quoted),
    ];
  }
  if (from === to) return [SCHEMA_TABLE, `${record} ON CONFLICT (table_name) DO NOTHING`];
  return [
    SCHEMA_TABLE,
    `${record} ON CONFLICT (table_name) DO NOTHING`,
    `UPDATE payorch_schema SET version = NULL WHERE table_name = '${bare}' AND version <> ${String(from)}`,
    ...stepsAfter(table, from, quoted),
    `UPDATE payorch_schema SET version = ${String(to)}, migrated_at = ${NOW_MS} WHERE table_name = '${bare}'`,
  ];
}

/** What to run on a table given its verdict: nothing for a current recorded one; throws the refusal. */
export function sqliteMigrationFor(table: SqliteTable, bare: string, verdict: TableVerdict): { readonly from: number | undefined; readonly statements: readonly string[] } {
  switch (verdict.kind) {
    case 'refused':
      throw table.refuse(verdict.message);
    case 'missing':
      return { from: undefined, statements: sqliteMigrationSql(table, bare, undefined) };
    case 'earlier':
      return { from: verdict.version, statements: sqliteMigrationSql(table, bare, verdict.version) };
    case 'current':
      return { from: currentVersion(table), statements: verdict.recorded ? [] : sqliteMigrationSql(table, bare, currentVersion(table)) };
  }
}

/** Throws the refusal of a table that is not at the current version where it is used. */
export function sqliteCheck(table: SqliteTable, bare: string, verdict: TableVerdict, create: string): void {
  switch (verdict.kind) {
    case 'current':
      return;
    case 'missing':
      throw table.refuse(missingMessage(table, `"${bare}"`, create));
    case 'earlier':
      throw table.refuse(earlierMessage(table, `"${bare}"`, verdict.version));
    case 'refused':
      throw table.refuse(verdict.message);
  }
}

/** The parts of a D1 binding used here (D1's `D1Database` fits). */
interface D1Like {
  prepare(query: string): { bind(...values: unknown[]): unknown; all(): Promise<{ readonly results?: readonly unknown[] | undefined }> };
  batch(statements: never[]): Promise<unknown[]>;
}

const resultsOf = (result: unknown): readonly unknown[] => (result as { readonly results?: readonly unknown[] } | undefined)?.results ?? [];

async function d1State(db: D1Like, bare: string): Promise<TableState> {
  const [present, shape, recordShape] = await db.batch([db.prepare(SQLITE_STATE_SQL.present).bind(bare), db.prepare(SQLITE_STATE_SQL.shape).bind(bare), db.prepare(SQLITE_STATE_SQL.recordShape)] as never[]);
  const versioned = resultsOf(present).some((row) => (row as Partial<Record<'name', unknown>>).name === 'payorch_schema');
  const foreign = versioned ? sqliteForeignRecord(resultsOf(recordShape)) : undefined;
  const record = versioned && foreign === undefined ? resultsOf(await (db.prepare(SQLITE_STATE_SQL.record).bind(bare) as ReturnType<D1Like['prepare']>).all()) : undefined;
  return sqliteTableState(bare, resultsOf(present), resultsOf(shape), record, foreign);
}

/** Creates or migrates a D1 table in one batch; a batch that lost to another run finds the table current. */
export async function migrateD1Table(db: D1Like, table: SqliteTable, bare: string): Promise<TableMigration> {
  const { from, statements } = sqliteMigrationFor(table, bare, judgeTable(table, `"${bare}"`, await d1State(db, bare)));
  try {
    if (statements.length > 0) await db.batch(statements.map((statement) => db.prepare(statement)) as never[]);
  } catch (error) {
    const again = judgeTable(table, `"${bare}"`, await d1State(db, bare));
    if (again.kind !== 'current') throw error;
    return { table: `"${bare}"`, from: currentVersion(table), to: currentVersion(table) };
  }
  return { table: `"${bare}"`, from, to: currentVersion(table) };
}

// The D1 tables found current, by binding: a Worker makes its inbox per request, over one `env.DB`.
const checkedD1 = new WeakMap<object, Map<string, Promise<void>>>();

/** Checks, once per binding and table, that a D1 table is at the current version. */
export function checkD1Table(db: D1Like, table: SqliteTable, bare: string, create: string): Promise<void> {
  let tables = checkedD1.get(db);
  if (tables === undefined) checkedD1.set(db, (tables = new Map<string, Promise<void>>()));
  const known = tables.get(bare);
  if (known !== undefined) return known;
  const checking = d1State(db, bare).then((state) => {
    sqliteCheck(table, bare, judgeTable(table, `"${bare}"`, state), create);
  });
  tables.set(bare, checking);
  // A refusal or a failed read is tried again by the next use: the table may be migrated meanwhile.
  checking.catch(() => tables.delete(bare));
  return checking;
}
