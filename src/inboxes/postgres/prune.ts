// Pruning the inbox's table: raise its horizon, wait for the claims under way, delete in batches.
import { DEFAULT_CALLBACK_MAX_AGE_SECONDS, DEFAULT_TOLERANCE_SECONDS } from '../../core/callback-age.js';
import { checkOptions, declareOptions, TEN_YEARS_SECONDS } from '../../core/option-checks.js';
import { DEFAULT_POSTGRES_INBOX_TABLE, INBOX_TABLE_OPTION, checkInboxTable } from './table.js';
import { POOL_OPTION, SCHEMA_OPTION, statementPoolingRefusal, tableName } from '../../postgres/table.js';
import type { PostgresPool, PostgresQueryResult } from '../../postgres/table.js';

/** Settings of {@link prunePostgresInbox}. */
export interface PrunePostgresInboxOptions {
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

/** The shortest retention {@link prunePostgresInbox} accepts, in seconds: a record age of 3 days and 300 s. */
export const MIN_POSTGRES_INBOX_RETENTION_SECONDS = DEFAULT_CALLBACK_MAX_AGE_SECONDS + DEFAULT_TOLERANCE_SECONDS;

/** The record age {@link prunePostgresInbox} prunes by default, in seconds: 90 days. */
export const DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS = 90 * 86_400;

/** prunePostgresInbox's options. */
export const PRUNE_OPTIONS = declareOptions<PrunePostgresInboxOptions>()([
  POOL_OPTION,
  INBOX_TABLE_OPTION,
  SCHEMA_OPTION,
  { name: 'olderThanSeconds', rule: { type: 'number', min: MIN_POSTGRES_INBOX_RETENTION_SECONDS, max: TEN_YEARS_SECONDS, integer: true }, default: DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS },
]);

/** How many rows one prune transaction deletes: small enough to commit in milliseconds. */
const PRUNE_BATCH_ROWS = 1000;

/** How often a prune looks again whether the claims under way when it raised the horizon ended. */
const PRUNE_POLL_MS = 20;

/**
 * Raises the table's horizon to now minus `olderThanSeconds` (never lowers it), then deletes the
 * keys whose record is older than the horizon, without ever making a callback wait:
 *
 * 1. It raises the horizon in a short transaction of its own. Claims only read that row.
 * 2. It waits for the claims that were under way then to end (it watches their transactions in
 *    `pg_locks`; it takes no lock they would wait for): from then on every claim sees the horizon,
 *    and refuses a record at or before it whose key is not held, so a deleted key can never let
 *    a re-signed redelivery apply twice.
 * 3. It deletes in batches of 1000 rows, one transaction each, found in record-time order through
 *    the table's record-time index. Claims never write rows behind the horizon, so no batch waits for
 *    a claim and no claim waits for a batch.
 *
 * The horizon is a row of the table itself (merchant id and tracking code empty, record time 0), so
 * every inbox on the table obeys it whatever its settings. Before the first prune nothing is
 * refused. Run it daily, at any hour.
 *
 * @returns how many keys (rows of a tracking code) were deleted
 * @throws {RequestValidationError} (`invalid_option`, `olderThanSeconds`) for a retention shorter than 259500 s or longer than 10 years
 * @example
 * ```ts
 * import { prunePostgresInbox } from 'payorch/postgres';
 * import type pg from 'pg';
 * declare const pool: pg.Pool;
 * setInterval(() => void prunePostgresInbox({ pool }).catch(console.error), 86_400_000).unref();
 * ```
 */
export async function prunePostgresInbox(options: PrunePostgresInboxOptions): Promise<number> {
  checkOptions('prunePostgresInbox', options, PRUNE_OPTIONS);
  const name = tableName('prunePostgresInbox', options, DEFAULT_POSTGRES_INBOX_TABLE);
  const seconds = options.olderThanSeconds ?? DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS;
  const client = await options.pool.connect();
  let broken: Error | undefined;
  // One statement in a transaction of its own: a pooler in statement pooling refuses it before
  // anything changed.
  const inTransaction = async (text: string, values: unknown[]): Promise<PostgresQueryResult> => {
    await client.query('BEGIN');
    try {
      const result = await client.query(text, values);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
      });
      throw error;
    }
  };
  try {
    const table = await name(client);
    await checkInboxTable(client, table);
    // The horizon in whole seconds, by the database's clock (the same for every instance).
    const raised = await inTransaction(
      `INSERT INTO ${table} AS inbox (record_time, merchant_id, tracking_code, statuses, applied_at)
  VALUES (0, '', '', '{payorch:horizon}', to_timestamp(floor(extract(epoch FROM now())) - $1::bigint))
  ON CONFLICT (merchant_id, tracking_code) DO UPDATE SET applied_at = GREATEST(inbox.applied_at, EXCLUDED.applied_at)
  RETURNING extract(epoch FROM applied_at)::bigint AS at`,
      [seconds],
    );
    const horizon = String((raised.rows?.[0] as Partial<Record<'at', unknown>> | undefined)?.at);
    // Every transaction holding a claim's lock on the table now took it, and its snapshot, before
    // the horizon was committed, or reads it: wait for the former to end. Each transaction holds
    // its virtual transaction id until it ends.
    const { rows: found = [] } = await client.query(
      `SELECT coalesce(array_agg(DISTINCT virtualtransaction), '{}') AS under_way FROM pg_locks
  WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND relation = $1::regclass AND mode = 'RowExclusiveLock'`,
      [table],
    );
    let underWay = ((found[0] as Partial<Record<'under_way', unknown>> | undefined)?.under_way as unknown[] | undefined) ?? [];
    while (underWay.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, PRUNE_POLL_MS));
      const { rows = [] } = await client.query(`SELECT coalesce(array_agg(virtualxid), '{}') AS under_way FROM pg_locks WHERE locktype = 'virtualxid' AND virtualxid = ANY($1::text[])`, [underWay]);
      underWay = ((rows[0] as Partial<Record<'under_way', unknown>> | undefined)?.under_way as unknown[] | undefined) ?? [];
    }
    // Each batch starts after the last row of the one before in the record-time index, so that
    // none walks the index entries its predecessors deleted; the horizon row (record time 0,
    // empty codes) comes first and is never in a batch.
    let after: unknown[] = [0, '', ''];
    let deleted = 0;
    for (;;) {
      const { rows = [] } = await inTransaction(
        `WITH batch AS (SELECT ctid AS row_id, record_time, merchant_id, tracking_code FROM ${table}
    WHERE (record_time, merchant_id, tracking_code) > ($2::bigint, $3::text, $4::text) AND record_time < $1::bigint
    ORDER BY record_time, merchant_id, tracking_code LIMIT ${String(PRUNE_BATCH_ROWS)}),
  deleted AS (DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT row_id FROM batch)) RETURNING 1)
SELECT (SELECT count(*) FROM deleted) AS deleted, (SELECT count(*) FROM batch) AS found, last.record_time, last.merchant_id, last.tracking_code
  FROM (SELECT record_time, merchant_id, tracking_code FROM batch ORDER BY record_time DESC, merchant_id DESC, tracking_code DESC LIMIT 1) AS last`,
        [horizon, ...after],
      );
      const [last] = rows as readonly (Partial<Record<'deleted' | 'found' | 'record_time' | 'merchant_id' | 'tracking_code', unknown>> | undefined)[];
      if (last === undefined) return deleted;
      deleted += Number(last.deleted);
      if (Number(last.found) < PRUNE_BATCH_ROWS) return deleted;
      after = [last.record_time, last.merchant_id, last.tracking_code];
    }
  } catch (error) {
    const refusal = statementPoolingRefusal(error, 'prunePostgresInbox');
    if (refusal !== undefined) {
      broken = error as Error;
      throw refusal;
    }
    throw error;
  } finally {
    client.release(broken ?? false);
  }
}
