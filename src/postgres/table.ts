// What every PostgreSQL part of payorch shares (the inbox, each queue's dead letters, the command):
// the node-postgres pool and client shapes, typed structurally so that no adapter imports `pg`,
// and how a table is named, checked and quoted.
import { checkValue } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import { RequestValidationError, StatementPoolingError } from '../errors/error.js';

/** The parts of a node-postgres result payorch reads. */
export interface PostgresQueryResult {
  /**
   * The command tag PostgreSQL answered with (pg's `command`). The inbox reads it on its COMMIT,
   * which PostgreSQL answers with `ROLLBACK`, not an error, when a statement of the transaction
   * failed; anything but `COMMIT` fails the callback.
   */
  readonly command: string;
  readonly rowCount: number | null;
  /** The rows of a SELECT. */
  readonly rows?: readonly unknown[] | undefined;
}

/**
 * The parts of a node-postgres `PoolClient` payorch uses; pg's own `PoolClient` fits, and the
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

/** A table's name, optionally schema-qualified; each table adds its own default. */
export const TABLE_OPTION: OptionDeclaration<'table'> = {
  name: 'table',
  rule: {
    type: 'text',
    maxLength: 127,
    pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}(?:\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/,
    allowed: 'a name of letters, digits and _ (up to 63), optionally schema.table',
  },
};

export const SCHEMA_OPTION: OptionDeclaration<'schema'> = {
  name: 'schema',
  rule: { type: 'text', maxLength: 63, pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, allowed: 'a name of letters, digits and _ (up to 63)' },
};

export const POOL_OPTION: OptionDeclaration<'pool'> = { name: 'pool', rule: { type: 'object', methods: ['connect'], allowed: 'a node-postgres Pool (an object with connect())' }, required: true };

// Quoted, so a table name is never read as SQL; checked, so quoting cannot be escaped.
export function quoteTable(where: string, table: string | undefined, defaultTable: string): string {
  const name = table ?? defaultTable;
  checkValue(where, TABLE_OPTION, name);
  return name.split('.').map((part) => `"${part}"`).join('.');
}

/**
 * The table, named with its schema once it is known: from `schema` or a qualified `table` at
 * once, otherwise from `current_schema()` on the first connection (before any handler runs). The
 * inbox, its table's migration and prune, and each PostgreSQL queue's dead letters resolve it the same way.
 */
export function tableName(where: string, options: { readonly table?: string | undefined; readonly schema?: string | undefined }, defaultTable: string): (client: PostgresClient) => Promise<string> {
  const table = quoteTable(where, options.table, defaultTable);
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
        // The fix is the option: a schema named outright, whatever the connection's search_path.
        if (typeof schema !== 'string') throw new RequestValidationError(where, [{ field: 'schema', rule: 'invalid_option', message: `must be given: no schema of search_path exists, so ${table} has none` }]);
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
 * PgBouncer in statement pooling refuses a transaction block (and closes the connection): such a
 * refusal as the StatementPoolingError that says what needed one and how to connect instead.
 */
export function statementPoolingRefusal(error: unknown, needed: string): StatementPoolingError | undefined {
  if (!/statement pooling/i.test(error instanceof Error ? error.message : '')) return undefined;
  return new StatementPoolingError(`payorch/postgres: ${needed} needs a transaction, which a pooler in statement pooling refuses; use transaction or session pooling, or connect directly (docs/inboxes.md, "Poolers")`, { cause: error });
}
