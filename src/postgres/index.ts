/**
 * payorch/postgres: the transactional callback inbox, for receivers that run as several instances
 * or must apply each callback once across restarts (Node, with `pg` as an optional peer). It never
 * imports `pg`: the pool is yours.
 *
 * @module payorch/postgres
 */
import type { CallbackInbox, CallbackKey, CallbackInboxOutcome } from '../receiver/inbox.js';

/** The parts of a node-postgres result the inbox reads. */
export interface PostgresQueryResult {
  readonly rowCount: number | null;
}

/**
 * The parts of a node-postgres `PoolClient` the inbox uses; pg's own `PoolClient` fits, and the
 * handlers get yours with all its methods.
 */
export interface PostgresClient {
  /** Runs one statement with its `$1`, `$2`… values. */
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
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

/** What the PostgreSQL inbox gives each handler: the key, and the client of the open transaction. */
export interface PostgresInboxContext<TClient> {
  readonly key: CallbackKey;
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
}

/** The table of applied keys when none is named. */
export const DEFAULT_CALLBACK_INBOX_TABLE = 'payorch_callback_inbox';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

// Quoted, so a table name is never read as SQL; checked, so quoting cannot be escaped.
function quoteTable(table: string | undefined): string {
  const name = table ?? DEFAULT_CALLBACK_INBOX_TABLE;
  const parts = typeof name === 'string' ? name.split('.') : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(`payorch/postgres: table must be a name of letters, digits and _ (up to 63), optionally schema.table; got ${JSON.stringify(name)}`);
  }
  return parts.map((part) => `"${part}"`).join('.');
}

/**
 * The SQL that creates the inbox's table: one row per applied tracking_code + status, with when
 * it was applied. Run it in your migrations, or call {@link createCallbackInboxTable}.
 *
 * @example
 * ```ts
 * console.log(callbackInboxTableSql());
 * // CREATE TABLE IF NOT EXISTS "payorch_callback_inbox" (
 * //   tracking_code text NOT NULL,
 * //   status text NOT NULL,
 * //   applied_at timestamptz NOT NULL DEFAULT now(),
 * //   PRIMARY KEY (tracking_code, status)
 * // )
 * ```
 */
export function callbackInboxTableSql(table?: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoteTable(table)} (`,
    '  tracking_code text NOT NULL,',
    '  status text NOT NULL,',
    '  applied_at timestamptz NOT NULL DEFAULT now(),',
    '  PRIMARY KEY (tracking_code, status)',
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
  const sql = callbackInboxTableSql(options.table);
  const client = await options.pool.connect();
  try {
    await client.query(sql);
  } finally {
    client.release();
  }
}

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
  const pool: unknown = options.pool;
  if (typeof pool !== 'object' || pool === null || typeof (pool as Partial<Record<'connect', unknown>>).connect !== 'function') {
    throw new TypeError('createPostgresInbox: pool must be a node-postgres Pool (an object with connect())');
  }
  const insert = `INSERT INTO ${quoteTable(options.table)} (tracking_code, status) VALUES ($1, $2) ON CONFLICT DO NOTHING`;

  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      const client = await options.pool.connect();
      // A connection that dies while checked out emits 'error' on its client; unheard, that
      // would end the process. The failed query rejects as well, and that is what we act on.
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const { rowCount } = await client.query(insert, [key.trackingCode, key.status]);
        if (rowCount === 0) {
          await client.query('ROLLBACK');
          return 'duplicate';
        }
        await apply({ key, client: client as PostgresClientOf<TPool> });
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
        throw error;
      } finally {
        client.removeListener('error', onError);
        client.release(broken ?? false);
      }
    },
  };
}

export type { CallbackInbox, CallbackKey, CallbackInboxOutcome } from '../receiver/inbox.js';
