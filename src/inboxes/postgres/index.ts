/**
 * payorch/postgres: the transactional callback inbox, for receivers that run as several instances
 * or must apply each callback once across restarts (Node, with `pg` as an optional peer). It never
 * imports `pg`: the pool is yours.
 *
 * @module payorch/postgres
 */
import { checkOptions } from '../../core/option-checks.js';
import { CallbackRetentionError, InboxCommitError, InboxError, isPayorchError } from '../../errors/error.js';
import { guardTransaction, transactionControlRefusal } from './transaction-control.js';
import { claimRefusal } from '../claim-refusal.js';
import type { CallbackInbox, CallbackInboxOutcome } from '../inbox.js';
import { sha256Hex } from '../../internal/hash/sha256.js';
import { keyRecordTime } from '../record-time.js';
import { DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS, DEFAULT_POSTGRES_INBOX_TABLE, POSTGRES_INBOX_OPTIONS, checkInboxTable } from './table.js';
import type { PostgresInboxContext, PostgresInboxOptions } from './table.js';
import { statementPoolingRefusal, tableName } from '../../postgres/table.js';
import type { PostgresClientOf, PostgresPool, PostgresQueryResult } from '../../postgres/table.js';
import { callListener } from '../../core/listener.js';

/** A pool that emits `'error'` for its idle clients, as pg's `Pool` does. */
interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  listenerCount(event: 'error'): number;
}

function isErrorEmitter(value: object): value is ErrorEmitter {
  const candidate = value as Partial<Record<'on' | 'listenerCount', unknown>>;
  return typeof candidate.on === 'function' && typeof candidate.listenerCount === 'function';
}

// The sentinel row that holds a table's horizon in its applied_at (see prunePostgresInbox): no
// verified callback has an empty tracking code, and a claim reads a real one only. The claim finds
// it through the primary key; its record time of 0 keeps it first in the record-time index, and
// out of every prune batch.
const HORIZON_ROW = "record_time = 0 AND merchant_id = '' AND tracking_code = ''";

/**
 * A callback inbox in PostgreSQL, for any number of receiver instances. For each callback it
 * opens a transaction, claims the key (its status added to the row of its merchant and tracking
 * code, `INSERT … ON CONFLICT DO UPDATE`), runs the handlers with that transaction's client, and
 * commits: the key and the handlers' changes are committed together or not at all, so a callback
 * is applied exactly once across instances, crashes and redeliveries.
 *
 * - Already applied: the claim changes nothing, the transaction is rolled back, the answer is 200.
 * - **One tracking code at a time.** Claims of the same merchant and tracking code wait for each
 *   other (on its row), whatever their statuses, on any instance, inline or through
 *   `receiver.apply`; `appliedStatuses` then lists every status applied before this one. A copy
 *   of a callback under way is a duplicate once that one commits, and applies it itself if that
 *   one rolls back. Claims of other tracking codes never wait. A wait longer than `lockTimeoutMs`
 *   fails the callback (answered 500, delivered again).
 * - A handler throws, or the connection or the process dies before COMMIT: PostgreSQL rolls the
 *   transaction back, key included, and the redelivery applies it.
 * - A statement failed and a handler caught its error: PostgreSQL aborted the transaction anyway.
 *   The inbox rejects with an `InboxCommitError` (the receiver answers 500 and tells `onError`); a
 *   failed COMMIT too.
 * - Only the inbox ends the transaction: while the handlers hold `client`, a query that would
 *   (`BEGIN`, `COMMIT`, `ROLLBACK`, `END`, `ABORT`, `PREPARE TRANSACTION`; an older helper's own
 *   transaction) is refused before it reaches PostgreSQL, and the callback is then not applied, even
 *   if the handler caught the refusal: an `InboxCommitError`. A handler's own transaction is a
 *   `SAVEPOINT`. It also commits only the transaction that claimed the key, checked in the COMMIT's
 *   round trip, for what reaches the connection another way.
 * - The row is keyed by merchant and tracking code alone: a key given with another record time (a
 *   transfer's `created_at` in another form) is the same key, and the row keeps the first.
 * - A record at or before the table's horizon (see {@link prunePostgresInbox}) whose key is not
 *   held: refused with a `CallbackRetentionError`, nothing recorded (the receiver answers 422).
 * - Behind a pooler: transaction and session pooling work (the claim is named by a digest of its
 *   text, and made unnamed where the pooler loses the name); statement pooling refuses
 *   transactions, and the inbox refuses with a `StatementPoolingError`.
 *
 * @example
 * ```ts
 * declare const apiKey: string;
 * declare const secretKey: string;
 * import { Pool } from 'pg';
 * import { createCallbackReceiver } from 'payorch';
 * import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * await createPostgresInboxTable({ pool });
 * const receiver = createCallbackReceiver({
 *   apiKey,
 *   secretKey,
 *   inbox: createPostgresInbox({ pool }),
 *   kind: 'deposit',
 *   // The user and the amount against your order row: the hash does not cover them.
 *   confirm: async (callback, { client }) => {
 *     const { rows } = await client.query<{ user_id: string; max_amount: string }>('SELECT user_id, max_amount FROM orders WHERE tracking_code = $1', [callback.payload.tracking_code]);
 *     const order = rows[0];
 *     return callback.kind === 'deposit' && order !== undefined && order.user_id === callback.payload.user_id && callback.payload.amount <= Number(order.max_amount);
 *   },
 * });
 * receiver.on('deposit.completed', async (callback, { client }) => {
 *   // The user of your order row, never the callback's.
 *   await client.query('UPDATE balances SET amount = balances.amount + $2 FROM orders WHERE orders.tracking_code = $1 AND balances.user_id = orders.user_id', [callback.payload.tracking_code, callback.payload.amount]);
 * });
 * ```
 */
export function createPostgresInbox<TPool extends PostgresPool>(options: PostgresInboxOptions<TPool>): CallbackInbox<PostgresInboxContext<PostgresClientOf<TPool>>> {
  checkOptions('createPostgresInbox', options, POSTGRES_INBOX_OPTIONS);
  const name = tableName('createPostgresInbox', options, DEFAULT_POSTGRES_INBOX_TABLE);
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS;
  // One round trip with BEGIN: the bound on waiting for another callback of the tracking code.
  const begin = `BEGIN; SET LOCAL lock_timeout = ${String(lockTimeoutMs)}`;
  // The claim in one statement: the horizon, the status added to its tracking code's row when the
  // record is younger, and what that row held. A claim of a tracking code whose row another
  // transaction holds waits for it, then adds to the row as that one left it (READ COMMITTED
  // updates the newest version): `claimed` lists every status applied before, its own last. The
  // row is found by merchant and tracking code alone; a held row keeps the record time first
  // given, and the horizon is judged by it. The horizon and `held` read the statement's snapshot,
  // taken after the statement's lock on the table; a prune raises the horizon, then waits for
  // every claim holding that lock before it deletes a row, so no claim that missed the horizon
  // can miss a deleted row.
  const claimSql = (table: string): string => `WITH horizon AS (SELECT extract(epoch FROM applied_at)::bigint AS at FROM ${table} WHERE ${HORIZON_ROW}),
held AS (SELECT record_time, statuses FROM ${table} WHERE merchant_id = $1::text AND tracking_code = $2::text),
claimed AS (INSERT INTO ${table} AS inbox (merchant_id, tracking_code, statuses, record_time, applied_at) SELECT $1::text, $2::text, ARRAY[$3::text], $4::bigint, now()
  WHERE NOT EXISTS (SELECT 1 FROM horizon WHERE coalesce((SELECT record_time FROM held), $4::bigint) <= at)
  ON CONFLICT (merchant_id, tracking_code) DO UPDATE SET statuses = inbox.statuses || EXCLUDED.statuses, applied_at = now()
  WHERE NOT inbox.statuses @> EXCLUDED.statuses RETURNING inbox.statuses, txid_current()::text AS txid)
SELECT (SELECT statuses FROM claimed) AS claimed, (SELECT txid FROM claimed) AS txid, (SELECT at FROM horizon) AS horizon, (SELECT statuses FROM held) AS held,
  coalesce((SELECT record_time FROM held), $4::bigint) AS record_time`;
  let claim: { readonly table: string; readonly sql: string; readonly name: string } | undefined;
  // Prepared once per connection under a name made from a digest of its text: a name means one
  // text, on one schema-qualified table, so processes, tables and applications sharing a pooler's
  // server connections can never run each other's claim. A pooler that moves a client between
  // server connections (PgBouncer's transaction pooling before 1.21) answers that the name is
  // unknown or taken: the claim is then rolled back, before any handler ran, and made again
  // unnamed, as every claim of this inbox is from then on.
  let named = true;
  guardPool(options.pool, options.onPoolError);

  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      const record = keyRecordTime(key);
      const client = await options.pool.connect();
      // A connection that dies while checked out emits 'error' on its client; unheard, that
      // would end the process. The failed query rejects as well, and that is what we act on.
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      let table = claim?.table ?? '(the inbox table)';
      let claiming = false;
      let committing = false;
      let ended = false;
      // The id of the transaction that holds the claimed key, once a handler may have ended it.
      let txid: string | undefined;
      let applying = false;
      let guard: ReturnType<typeof guardTransaction> | undefined;
      try {
        if (claim === undefined) {
          table = await name(client);
          await checkInboxTable(client, table);
          const sql = claimSql(table);
          claim = { table, sql, name: `payorch_claim_${sha256Hex(sql).slice(0, 32)}` };
        }
        try {
          await client.query(begin);
        } catch (error) {
          const refusal = statementPoolingRefusal(error, 'the inbox (the callback was not applied)');
          if (refusal !== undefined) {
            broken = error as Error;
            throw refusal;
          }
          throw error;
        }
        const values = [key.merchantId, key.trackingCode, key.status, record];
        // Read once: copies under way at the same time may each meet the pooler and fall back.
        const byName = named;
        let result: PostgresQueryResult;
        claiming = true;
        try {
          result = byName ? await client.query({ name: claim.name, text: claim.sql, values }) : await client.query(claim.sql, values);
        } catch (error) {
          if (!byName || !isPreparedStatementError(error)) throw error;
          named = false;
          await client.query('ROLLBACK');
          await client.query(begin);
          result = await client.query(claim.sql, values);
        }
        claiming = false;
        const { rows = [] } = result;
        const [row] = rows as readonly (Partial<Record<'claimed' | 'txid' | 'horizon' | 'held' | 'record_time', unknown>> | undefined)[];
        if (!Array.isArray(row?.claimed)) {
          // Claimed nothing: a duplicate, unless the horizon stopped a key that was not held (the
          // catch below rolls back).
          const horizon = row?.horizon === null || row?.horizon === undefined ? undefined : Number(row.horizon);
          const held = Array.isArray(row?.held) ? row.held.map(String) : [];
          const kept = row?.record_time === null || row?.record_time === undefined ? record : Number(row.record_time);
          if (horizon !== undefined && kept <= horizon && !held.includes(key.status)) throw new CallbackRetentionError(key, kept, horizon);
          await client.query('ROLLBACK');
          return 'duplicate';
        }
        // Every status of the tracking code applied before, in order; this one was added last.
        const appliedStatuses = row.claimed.slice(0, -1).map(String);
        // Digits only: it is written into the COMMIT's text below.
        if (typeof row.txid !== 'string' || !/^\d+$/.test(row.txid)) throw new InboxError(`payorch/postgres: the claim of ${key.trackingCode} (${key.status}) returned no transaction id; not applied, so that it is delivered again`);
        txid = row.txid;
        applying = true;
        guard = guardTransaction(client);
        try {
          await apply({ key, appliedStatuses, client: client as PostgresClientOf<TPool> });
        } finally {
          guard.remove();
        }
        // A handler that meant to end the transaction meant to undo or to keep something on its
        // own: neither is what committing here would do, even if it caught the refusal.
        const refused = guard.refused();
        if (refused !== undefined) throw transactionControlRefusal(refused);
        applying = false;
        committing = true;
        const { command } = lastResult(await client.query(commitSql(txid)));
        if (command !== 'COMMIT') {
          // The transaction is over either way: nothing is left to roll back.
          ended = true;
          throw new InboxCommitError(
            `payorch/postgres: PostgreSQL answered the COMMIT of ${key.trackingCode} (${key.status}) with ${command}: a statement of the transaction failed, and a handler caught its error (a lock_timeout, a constraint). Nothing was committed, the key included; not applied, so that it is delivered again`,
          );
        }
        return 'applied';
      } catch (error) {
        // Rolled back by PostgreSQL anyway if the connection is gone; said explicitly otherwise,
        // so that the client goes back to the pool clean. Once the handlers had the client, the
        // same round trip reads how the claiming transaction ended: a handler may have ended it.
        let fate: unknown;
        try {
          if (broken === undefined && !ended) {
            if (txid === undefined) await client.query('ROLLBACK');
            else fate = (lastResult(await client.query(`ROLLBACK; SELECT txid_status(${txid}) AS fate`)).rows?.[0] as Partial<Record<'fate', unknown>> | undefined)?.fate;
          }
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
        }
        const code = (error as Partial<Record<'code', unknown>> | null)?.code;
        const callback = `${key.trackingCode} (${key.status})`;
        // A handler's failure, or the check before COMMIT: then how the claiming transaction ended
        // is a handler's doing (a COMMIT that failed yet committed is the connection's, below).
        const byHandler = applying || (committing && (code === ENDED_BY_A_HANDLER || code === '25P02'));
        if (byHandler && fate === 'committed') {
          throw new InboxCommitError(
            applying
              ? `payorch/postgres: a handler committed the transaction of ${callback} itself (a COMMIT of its own on the client), key included, then threw: the key is recorded and the handlers after it did not run. The redelivery is a duplicate and runs nothing, so apply what is missing by hand. A handler's own transaction is a SAVEPOINT on the client (docs/inboxes.md, "PostgreSQL")`
              : `payorch/postgres: a handler committed the transaction of ${callback} itself (a COMMIT of its own on the client), key included: what ran after that COMMIT committed on its own, or not at all. The redelivery is a duplicate and runs nothing. A handler's own transaction is a SAVEPOINT on the client (docs/inboxes.md, "PostgreSQL")`,
            { cause: error },
          );
        }
        if (byHandler && fate === 'in progress') {
          throw new InboxCommitError(
            `payorch/postgres: a handler prepared the transaction of ${callback} (PREPARE TRANSACTION): it holds the key uncommitted until COMMIT PREPARED or ROLLBACK PREPARED ends it; not applied, and its redelivery waits for it (docs/inboxes.md, "PostgreSQL")`,
            { cause: error },
          );
        }
        // A statement the guard refused, unless something past it committed or prepared the
        // transaction after all (above).
        const refused = guard?.refused();
        if (refused !== undefined) {
          throw new InboxCommitError(
            `payorch/postgres: a handler sent ${refused} on the inbox's client while applying ${callback}, and the inbox refused it: the inbox ends the transaction itself. Nothing was committed, the key included; not applied, so that it is delivered again, and refused again until the handler's own transaction is a SAVEPOINT (SAVEPOINT s, RELEASE SAVEPOINT s, ROLLBACK TO SAVEPOINT s; docs/inboxes.md, "PostgreSQL")`,
            { cause: error },
          );
        }
        if (byHandler && code === ENDED_BY_A_HANDLER) {
          throw new InboxCommitError(
            `payorch/postgres: a handler ended the transaction of ${callback} before the inbox's COMMIT (a ROLLBACK or BEGIN … COMMIT of its own on the client, a PREPARE TRANSACTION that failed, its error caught). Nothing of that transaction was committed, the key included; not applied, so that it is delivered again. What a handler wrote on the client after it ended ran on its own and runs again with the redelivery: a handler's own transaction is a SAVEPOINT on the client (docs/inboxes.md, "PostgreSQL")`,
            { cause: error },
          );
        }
        // 25P02 in_failed_sql_transaction: the check before COMMIT met an aborted transaction.
        if (byHandler && code === '25P02') {
          throw new InboxCommitError(
            `payorch/postgres: a statement of the transaction of ${callback} failed, and a handler caught its error (a lock_timeout, a constraint): PostgreSQL aborted the transaction. Nothing was committed, the key included; not applied, so that it is delivered again`,
            { cause: error },
          );
        }
        // 42703 undefined_column, 42P10 no unique index for ON CONFLICT: changed since it was checked.
        if (claiming && (code === '42703' || code === '42P10')) {
          claim = undefined;
          throw new InboxError(`payorch/postgres: ${table} changed since this inbox checked it (by hand?), and nothing was applied; the next callback checks it again (docs/inboxes.md, "Upgrading")`, { cause: error });
        }
        if (committing && !isPayorchError(error, InboxCommitError)) {
          // A COMMIT that failed (a deferred constraint, a serialization failure) committed nothing;
          // one whose connection was lost may have: the redelivery then finds the key, a duplicate.
          throw new InboxCommitError(`payorch/postgres: the COMMIT of ${key.trackingCode} (${key.status}) failed; not applied, so that it is delivered again (a duplicate then, if it committed before the connection was lost)`, { cause: error });
        }
        // 55P03 lock_not_available, in the claim: another callback of this tracking code held it.
        if (claiming && code === '55P03') {
          throw new InboxError(`payorch/postgres: another callback of ${key.trackingCode} was being applied for longer than lockTimeoutMs (${String(lockTimeoutMs)} ms); not applied, so that it is delivered again`, { cause: error });
        }
        // Any other failure of the claim is the table's or the server's, never a handler's; no
        // COMMIT was sent. Class 23 (a constraint) and P0001 (a RAISE) come from something added to
        // the table by hand. The driver's error is its cause.
        if (claiming) throw claimRefusal('payorch/postgres', table, callback, error, typeof code === 'string' && (code.startsWith('23') || code === 'P0001'));
        throw error;
      } finally {
        client.removeListener('error', onError);
        client.release(broken ?? false);
      }
    },
  };
}

// Raised by the check before COMMIT when the transaction under way is not the claim's.
const ENDED_BY_A_HANDLER = 'PYO01';

/*
 * The COMMIT of the claiming transaction, and only of it, in one round trip: a handler that ran
 * its own ROLLBACK or COMMIT (a helper's BEGIN … COMMIT on the client it is given) ended that
 * transaction, and PostgreSQL answers a COMMIT outside any transaction with the tag COMMIT. So the
 * transaction under way is checked against the claim's id first, in the same query string: a
 * failed check skips the COMMIT that follows it. A query string without parameters goes by the
 * simple protocol and prepares nothing, so poolers (PgBouncer, Hyperdrive) pass it as it is, and
 * the check runs in the transaction it checks, or, once it ended, in one of its own that a
 * transaction pooler may give any server connection: either way not the claim's.
 */
function commitSql(txid: string): string {
  return `DO $payorch$ BEGIN IF txid_current_if_assigned() IS DISTINCT FROM ${txid} THEN RAISE EXCEPTION 'payorch: the transaction under way is not the one that claimed the callback' USING ERRCODE = '${ENDED_BY_A_HANDLER}'; END IF; END $payorch$; COMMIT`;
}

/** The result of the last statement of a query string: pg answers one of several statements with an array. */
function lastResult(answer: PostgresQueryResult | readonly PostgresQueryResult[]): PostgresQueryResult {
  const results: readonly PostgresQueryResult[] = Array.isArray(answer) ? (answer as readonly PostgresQueryResult[]) : [answer as PostgresQueryResult];
  return results.at(-1) ?? { command: '', rowCount: null };
}

// 26000 invalid_sql_statement_name, 42P05 duplicate_prepared_statement: the server connection
// under the client is not the one the name was prepared on.
function isPreparedStatementError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as Partial<Record<'code' | 'message', unknown>>;
  return code === '26000' || code === '42P05' || (typeof message === 'string' && /prepared statement/i.test(message));
}

// One listener per pool, however many inboxes share it.
const guarded = new WeakSet<object>();

function guardPool(pool: object, onPoolError: ((error: Error) => void) | undefined): void {
  if (!isErrorEmitter(pool) || guarded.has(pool) || pool.listenerCount('error') > 0) return;
  guarded.add(pool);
  pool.on('error', (error) => {
    // A pool being ended closes its idle connections on purpose; on Workers (pg-cloudflare) each
    // close emits "Stream was cancelled", once per request with a pool per request. Not a failure.
    if ((pool as Partial<Record<'ending', unknown>>).ending === true) return;
    // A listener that throws or rejects would end the process just the same.
    if (onPoolError !== undefined) callListener(onPoolError, [error], () => undefined);
    else console.warn(`payorch/postgres: an idle pooled connection failed (${error.message}); the pool opens a new one`);
  });
}


export { createPostgresInboxTable, postgresInboxTableSql, DEFAULT_POSTGRES_INBOX_TABLE, DEFAULT_POSTGRES_INBOX_LOCK_TIMEOUT_MS, StatementPoolingError } from './table.js';
export type { PostgresInboxContext, PostgresInboxOptions } from './table.js';
export type { PostgresQueryResult, PostgresClient, PostgresPool, PostgresClientOf } from '../../postgres/table.js';
export type { TableMigration } from '../../core/table-migration.js';
export { prunePostgresInbox, MIN_POSTGRES_INBOX_RETENTION_SECONDS, DEFAULT_POSTGRES_INBOX_RETENTION_SECONDS } from './prune.js';
export type { PrunePostgresInboxOptions } from './prune.js';
export { CallbackRetentionError, InboxCommitError, InboxError } from '../../errors/error.js';
export type { CallbackInbox, CallbackInboxContext, CallbackKey, CallbackInboxOutcome } from '../inbox.js';
