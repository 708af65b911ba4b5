// The versions of payorch's tables in PostgreSQL (the inbox, pg-boss's dead letters): read, checked
// on first use, created or migrated in place. The version is recorded in `payorch_schema`, in the
// table's schema; the columns are read from the catalog. A migration runs in one transaction under
// an advisory lock, as pg-boss migrates its own schema: instances that start at once migrate once.
import type { TableMigration } from '../core/table-migration.js';
import { currentVersion, earlierMessage, foreignRecord, judgeTable, missingMessage, stepsAfter } from '../internal/table-versions.js';
import type { TableState, VersionedTable } from '../internal/table-versions.js';
import { statementPoolingRefusal } from './table.js';

/** The parts of a pg client these use (pg's `PoolClient` fits). */
interface Client {
  query(text: string, values?: unknown[]): Promise<{ readonly rows?: readonly unknown[] | undefined }>;
  release(error?: Error | boolean): void;
}

/** A table of PostgreSQL: its versions, the SQL that creates its first, its refusal. */
export interface PostgresTable extends VersionedTable {
  /** The error a refusal is: an InboxError for an inbox, a QueueError for a queue's table. */
  readonly refuse: (message: string, options?: { readonly cause?: unknown }) => Error;
}

/** `"schema"` and `table` of a quoted `"schema"."table"` (or of a quoted `"table"`: no schema). */
function split(qualified: string): { readonly schema: string | undefined; readonly bare: string } {
  const at = qualified.lastIndexOf('."');
  return at === -1 ? { schema: undefined, bare: qualified.slice(1, -1) } : { schema: qualified.slice(0, at), bare: qualified.slice(at + 2, -1) };
}

const schemaTable = (schema: string | undefined): string => (schema === undefined ? 'payorch_schema' : `${schema}.payorch_schema`);

/**
 * The statements that record `table` at its current version, creating `payorch_schema` when
 * missing: literals, so that they run in a migration tool too (the names are checked: letters,
 * digits and `_`). With `fresh`, they record it only when it does not exist yet, before the
 * statements that create it: run over a table of an earlier version, they leave its record alone.
 */
export function recordSql(table: PostgresTable, qualified: string, fresh: boolean): readonly string[] {
  const { schema, bare } = split(qualified);
  const into = schemaTable(schema);
  const values = `'${bare}', '${table.component}', ${String(currentVersion(table))}`;
  return [
    `CREATE TABLE IF NOT EXISTS ${into} (table_name text PRIMARY KEY, component text NOT NULL, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
    `INSERT INTO ${into} (table_name, component, version) ${fresh ? `SELECT ${values} WHERE to_regclass('${qualified.replaceAll("'", "''")}') IS NULL` : `VALUES (${values})`} ON CONFLICT (table_name) DO UPDATE SET component = EXCLUDED.component, version = EXCLUDED.version, migrated_at = now()`,
  ];
}

// The columns of the relation `$n` as `name type [NOT NULL]`, its primary key and unique
// constraints as `PRIMARY KEY (a, b)`.
const shapeOf = (parameter: string): string => `ARRAY(
  SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
    FROM pg_attribute a WHERE a.attrelid = to_regclass(${parameter}) AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT CASE c.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END || ' (' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n)
      FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) || ')'
    FROM pg_constraint c WHERE c.conrelid = to_regclass(${parameter}) AND c.contype IN ('p', 'u')
)`;

// The table's shape, and payorch_schema's beside it.
const SHAPE_SQL = `SELECT to_regclass($1) IS NOT NULL AS present, to_regclass($2) IS NOT NULL AS versioned, ${shapeOf('$1')} AS shape, ${shapeOf('$2')} AS record_columns`;

// The columns of payorch_schema that payorch reads, as the catalog spells them, and the key its
// INSERT … ON CONFLICT (table_name) needs.
const RECORD_COLUMNS = ['table_name text', 'component text', ['version integer', 'version bigint', 'version smallint'], ['PRIMARY KEY (table_name)', 'UNIQUE (table_name)']] as const;

async function stateOf(client: Client, qualified: string): Promise<TableState> {
  const { schema, bare } = split(qualified);
  const [row] = (await client.query(SHAPE_SQL, [qualified, schemaTable(schema)])).rows ?? [];
  const { present, versioned, shape, record_columns: recordColumns } = (row ?? {}) as Partial<Record<'present' | 'versioned' | 'shape' | 'record_columns', unknown>>;
  // Read for their names and types: payorch writes every column it reads.
  const foreign = versioned === true ? foreignRecord(Array.isArray(recordColumns) ? recordColumns.map((column) => String(column).replace(/ NOT NULL$/, '')) : [], RECORD_COLUMNS) : undefined;
  if (present !== true || foreign !== undefined) return { exists: false, foreignRecord: foreign };
  const live = Array.isArray(shape) ? shape.map(String) : [];
  let recorded: { component: string; version: number } | undefined;
  if (versioned === true) {
    const [record] = (await client.query(`SELECT component, version FROM ${schemaTable(schema)} WHERE table_name = $1`, [bare])).rows ?? [];
    const { component, version } = (record ?? {}) as Partial<Record<'component' | 'version', unknown>>;
    if (record !== undefined) recorded = { component: String(component), version: Number(version) };
  }
  return { exists: true, recorded, shape: live };
}

/**
 * Checks, without changing anything, that `qualified` is at the version this payorch uses.
 * @throws the table's refusal when it is missing, of an earlier or later version, or of no version's shape
 */
export async function checkPostgresTable(client: Client, table: PostgresTable, qualified: string, create: string): Promise<void> {
  const verdict = judgeTable(table, qualified, await stateOf(client, qualified));
  switch (verdict.kind) {
    case 'current':
      return;
    case 'missing':
      throw table.refuse(missingMessage(table, qualified, create));
    case 'earlier':
      throw table.refuse(earlierMessage(table, qualified, verdict.version));
    case 'refused':
      throw table.refuse(verdict.message);
  }
}

/**
 * Brings the table to the current version in one transaction: creates it when missing, runs the
 * migrations after the version it is at, records the version; refuses a later version or a shape of
 * no version, changing nothing. The advisory lock is taken first, so that a second instance waits,
 * then finds the table current (and `payorch_schema` created once).
 */
export async function migratePostgresTable(client: Client, table: PostgresTable, qualified: string): Promise<TableMigration> {
  const { schema } = split(qualified);
  const to = currentVersion(table);
  try {
    await client.query('BEGIN');
  } catch (error) {
    throw statementPoolingRefusal(error, `creating or migrating ${qualified}`) ?? error;
  }
  try {
    await client.query(`SELECT pg_advisory_xact_lock(('x' || md5($1))::bit(64)::bigint)`, [`payorch_schema ${schema ?? ''}`]);
    const verdict = judgeTable(table, qualified, await stateOf(client, qualified));
    let from: number | undefined = to;
    let statements: readonly string[] = [];
    switch (verdict.kind) {
      case 'refused':
        throw table.refuse(verdict.message);
      case 'missing':
        from = undefined;
        statements = [...recordSql(table, qualified, true), ...table.create(qualified)];
        break;
      case 'earlier':
        from = verdict.version;
        statements = [...stepsAfter(table, verdict.version, qualified), ...recordSql(table, qualified, false)];
        break;
      case 'current':
        if (!verdict.recorded) statements = recordSql(table, qualified, false);
        break;
    }
    for (const statement of statements) await client.query(statement);
    await client.query('COMMIT');
    return { table: qualified, from, to };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
