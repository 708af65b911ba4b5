/**
 * payorch/d1: a callback inbox in Cloudflare D1, for a receiver in a Worker. D1 has no interactive
 * transaction (`BEGIN` is refused), but `db.batch()` is atomic: the inbox commits the callback's
 * key and the statements your handlers return in one batch. Runs without `nodejs_compat`, and
 * needs no `@cloudflare/workers-types`: the types below are the parts of D1 it uses.
 *
 * @module payorch/d1
 */
import { checkOptions, declareOptions, joinOptions } from '../../core/option-checks.js';
import type { TableMigration } from '../../core/table-migration.js';
import { InboxCommitError } from '../../errors/error.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome, CallbackKey } from '../inbox.js';
import { keyRecordTime } from '../record-time.js';
// The SQL, the key reads and the retention rules both SQLite inboxes share.
import * as sqlite from '../sqlite-dialect/inbox-sql.js';
import { checkD1Table, migrateD1Table } from '../sqlite-dialect/versions.js';

/**
 * The parts of a D1 prepared statement that the inbox and your handlers use; D1's own
 * `D1PreparedStatement` fits. For all of D1's methods (`raw`, `exec`, sessions), type `db` with
 * `D1Database` from `@cloudflare/workers-types`: the D1 inbox and its context take it as their
 * type parameter.
 */
export interface D1PreparedStatementLike {
  /** Binds the `?` values. */
  bind(...values: unknown[]): D1PreparedStatementLike;
  /** Runs it and returns its rows (`results`). */
  // D1's own signatures, so that `all<Order>()` and `first<Order>()` read as they do on D1.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  all<T = unknown>(): Promise<{ readonly results?: readonly T[] | undefined }>;
  /** Runs it; `meta.changes` counts the rows it changed. */
  run(): Promise<{ readonly meta?: { readonly changes?: number | undefined } | undefined }>;
  /** Runs it and returns the first row (or its column `column`), or `null` when there is no row. */
  first<T = unknown>(column?: string): Promise<T | null>;
}

/** The parts of a D1 binding (`env.DB`) the inbox uses; D1's own `D1Database` fits. */
export interface D1DatabaseLike {
  /** Prepares one statement. */
  prepare(query: string): D1PreparedStatementLike;
  /** Runs statements in one transaction: all of them commit, or none. */
  batch(statements: D1PreparedStatementLike[]): Promise<unknown[]>;
}

/** The statement type a database prepares: D1's `D1PreparedStatement` for D1's `D1Database`. */
export type D1StatementOf<TDb> = TDb extends {
  /** What a D1 binding prepares. */
  prepare(query: string): infer S;
}
  ? S
  : D1PreparedStatementLike;

/** What the D1 inbox gives each handler. */
export interface D1InboxContext<TDb extends D1DatabaseLike = D1DatabaseLike> extends CallbackInboxContext {
  /** The database, to read from. Writes go into `statements`. */
  readonly db: TDb;
  /**
   * Push your writes here, prepared and bound, not run: after the handlers return, the inbox runs
   * them in one `db.batch` with the callback's key, so they commit together exactly once, or not
   * at all. A write you run yourself is outside that batch: it happens at least once, and may run
   * at the same time for copies of one callback.
   */
  readonly statements: D1StatementOf<TDb>[];
}

/** Settings of {@link createD1Inbox} and {@link createD1InboxTable}. */
export interface D1InboxOptions<TDb extends D1DatabaseLike = D1DatabaseLike> {
  /**
   * The D1 binding.
   * @example env.DB
   */
  readonly db: TDb;
  /**
   * The table of applied keys. Letters, digits and `_` only.
   * @default 'payorch_callback_inbox'
   * @example 'billing_callback_inbox'
   */
  readonly table?: string | undefined;
}

const DB_OPTION: OptionDeclaration<'db'> = {
  name: 'db',
  rule: { type: 'object', methods: ['prepare', 'batch'], allowed: 'a D1 binding (an object with prepare() and batch()), for example env.DB' },
  required: true,
};
const D1_INBOX_OPTIONS = declareOptions<D1InboxOptions>()([DB_OPTION, sqlite.SQLITE_TABLE_OPTION]);

const D1_INBOX_TABLE = /* @__PURE__ */ sqlite.sqliteInboxTable('payorch/d1', 'createD1InboxTable({ db }), or the SQL `payorch migrate d1-inbox --from <its version>` prints, as a wrangler migration');
const CREATE = 'createD1InboxTable({ db }), or the SQL `payorch migrate d1-inbox` prints, as a wrangler migration';
const bare = (quoted: string): string => quoted.slice(1, -1);

/**
 * The SQL that creates the D1 inbox's table: one row per applied merchant_id + tracking_code +
 * status, with the record time read from the tracking code, and one row that holds the horizon
 * of {@link pruneD1Inbox}. Run it in a migration (`wrangler d1 migrations`), or call
 * {@link createD1InboxTable}.
 *
 * @example
 * ```ts
 * import { d1InboxTableSql } from 'payorch/d1';
 * console.log(d1InboxTableSql());
 * // CREATE TABLE IF NOT EXISTS "payorch_callback_inbox" (
 * //   merchant_id TEXT NOT NULL,
 * //   tracking_code TEXT NOT NULL,
 * //   status TEXT NOT NULL,
 * //   record_time INTEGER NOT NULL,
 * //   applied_at INTEGER NOT NULL,
 * //   PRIMARY KEY (merchant_id, tracking_code, status)
 * // )
 * ```
 */
export function d1InboxTableSql(table?: string): string {
  return sqlite.sqliteInboxTableSql(sqlite.quoteSqliteTable('d1InboxTableSql', table));
}

/**
 * Brings the D1 inbox's table to the version this payorch uses, keeping every applied key: creates
 * it when it does not exist ({@link d1InboxTableSql}), migrates a table of an earlier version in
 * place, and records the version in `payorch_schema`, in one batch; a batch that runs twice at once
 * changes the table once. A table of a later version, or with columns of no version, is refused with
 * an `InboxError`. To migrate with wrangler instead, apply the SQL `payorch migrate d1-inbox --from
 * <version>` prints.
 *
 * @returns the version the table was at (`from`, undefined when created) and is at (`to`)
 * @throws {InboxError} for a table of a later version or of no version's columns, naming the versions
 * @example
 * ```ts
 * import { createD1InboxTable } from 'payorch/d1';
 * import type { D1DatabaseLike } from 'payorch/d1';
 * declare const env: { readonly DB: D1DatabaseLike };
 * await createD1InboxTable({ db: env.DB });
 * ```
 */
export async function createD1InboxTable(options: D1InboxOptions): Promise<TableMigration> {
  checkOptions('createD1InboxTable', options, D1_INBOX_OPTIONS);
  return migrateD1Table(options.db, D1_INBOX_TABLE, bare(sqlite.quoteSqliteTable('createD1InboxTable', options.table)));
}

/**
 * A callback inbox in Cloudflare D1. Handlers do not write: they push prepared statements into
 * `context.statements`, and the inbox runs the callback's key insert and those statements in one
 * `db.batch`, which D1 commits atomically.
 *
 * What is exactly once, and what is not (D1 has no transaction a handler could hold open):
 * - **The statements the handlers return** commit exactly once per merchant_id + tracking_code +
 *   status, with the key, across isolates, redeliveries and concurrent copies: the key insert is
 *   a plain INSERT on the primary key, so the batch of a second copy fails as a whole.
 * - **The statuses of one tracking code** commit one at a time: the batch commits only if the
 *   statuses the handlers saw in `appliedStatuses` are still all there are. When another status
 *   (a withdrawal's `failed` beside its `rejected`) committed while the handlers ran, the batch
 *   fails as a whole, the receiver answers 500, and the redelivery sees that status. D1 holds no
 *   lock while handlers run, so both handlers may have run: only their returned statements are
 *   once, in order.
 * - **Anything else a handler does** (a `fetch`, a write it runs itself, an e-mail) happens at
 *   least once, and concurrent copies of one callback may do it at the same time, each in its
 *   own isolate: give the other service `callbackKeyString(key)` as its idempotency key.
 * - A handler that throws records nothing; the receiver answers 500 and the redelivery applies it.
 *   A batch that fails (a statement a handler pushed breaks a constraint, D1 is unreachable)
 *   commits nothing either: the inbox rejects with an `InboxCommitError`, answered 500.
 * - Retention follows the record's age, as every payorch inbox: {@link pruneD1Inbox} raises the
 *   table's horizon, and a callback whose record time is at or before it is not applied (a
 *   `CallbackRetentionError`), unless its key is still there (a duplicate).
 *
 * @example
 * ```ts
 * import { createCallbackReceiver } from 'payorch';
 * import { createD1Inbox } from 'payorch/d1';
 * import type { D1DatabaseLike } from 'payorch/d1';
 * declare const env: { readonly DB: D1DatabaseLike };
 * declare const apiKey: string;
 * declare const secretKey: string;
 *
 * const receiver = createCallbackReceiver({
 *   apiKey,
 *   secretKey,
 *   inbox: createD1Inbox({ db: env.DB }),
 *   kind: 'deposit',
 *   // The user and the amount against your order row: the hash does not cover them.
 *   confirm: async (callback, { db }) => {
 *     const order = await db.prepare('SELECT user_id, max_amount FROM orders WHERE tracking_code = ?').bind(callback.payload.tracking_code).first<{ user_id: string; max_amount: number }>();
 *     return callback.kind === 'deposit' && order !== null && order.user_id === callback.payload.user_id && callback.payload.amount <= order.max_amount;
 *   },
 * });
 * receiver.on('deposit.completed', (callback, { db, statements }) => {
 *   // The user of your order row, never the callback's.
 *   statements.push(db.prepare('UPDATE balances SET amount = amount + ? WHERE user_id = (SELECT user_id FROM orders WHERE tracking_code = ?)').bind(callback.payload.amount, callback.payload.tracking_code));
 * });
 * ```
 */
export function createD1Inbox<TDb extends D1DatabaseLike>(options: D1InboxOptions<TDb>): CallbackInbox<D1InboxContext<TDb>> {
  checkOptions('createD1Inbox', options, D1_INBOX_OPTIONS);
  const { db } = options;
  const table = sqlite.quoteSqliteTable('createD1Inbox', options.table);
  const sql = sqlite.sqliteInboxStatements(table);

  async function stateOf(key: CallbackKey): Promise<ReturnType<typeof sqlite.readSqliteKeyState>> {
    const { results = [] } = await db.prepare(sql.state).bind(key.merchantId, key.trackingCode).all();
    return sqlite.readSqliteKeyState(results, key);
  }

  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      const recordTime = keyRecordTime(key);
      await checkD1Table(db, D1_INBOX_TABLE, bare(table), CREATE);
      // The key before the horizon: a kept key is a duplicate whatever its age.
      const before = await stateOf(key);
      if (before.present) return 'duplicate';
      const refused = sqlite.retentionRefusal(key, recordTime, before);
      if (refused !== undefined) throw refused;
      const statements: D1StatementOf<TDb>[] = [];
      await apply({ key, appliedStatuses: before.appliedStatuses, db, statements });
      const claim = db.prepare(sql.claim).bind(...sqlite.claimValues(key, recordTime, before, Date.now()));
      try {
        await db.batch([claim, ...(statements as D1PreparedStatementLike[])]);
        return 'applied';
      } catch (error) {
        // The batch failed as a whole. Read again rather than parse D1's message: a copy that
        // committed first is a duplicate, a prune that ran meanwhile a refusal, another status
        // recorded meanwhile a conflict, anything else (one of the handlers' statements failed,
        // D1 was unreachable) the failure it is. None of them committed anything.
        const after = await stateOf(key).catch(() => undefined);
        if (after?.present === true) return 'duplicate';
        const refused = after === undefined ? undefined : sqlite.retentionRefusal(key, recordTime, after);
        if (refused !== undefined) throw refused;
        if (after !== undefined && after.appliedStatuses.length !== before.appliedStatuses.length) {
          throw new InboxCommitError(
            `payorch/d1: ${key.trackingCode}: ${after.appliedStatuses.filter((status) => !before.appliedStatuses.includes(status)).join(', ') || 'another status'} was applied while the handlers of ${key.status} ran; ${key.status} was not recorded, so that its redelivery sees it in appliedStatuses`,
            { cause: error },
          );
        }
        throw new InboxCommitError(`payorch/d1: the batch of ${key.trackingCode} (${key.status}) and its handlers' statements failed, and D1 committed none of it; not applied, so that it is delivered again`, { cause: error });
      }
    },
  };
}

/** Settings of {@link pruneD1Inbox}. */
export interface PruneD1InboxOptions extends D1InboxOptions {
  /**
   * The retention, by the age of the record (the Unix seconds at the end of its tracking code),
   * not by when the callback was applied. The prune raises the table's horizon to now minus this
   * (never lowers it) and deletes the keys of older records; from then on a callback of a record
   * at or before the horizon whose key is gone is refused, never applied twice. At least a day.
   * @default 7776000 (90 days)
   * @example 365 * 86400
   */
  readonly olderThanSeconds?: number | undefined;
}

const PRUNE_D1_OPTIONS = declareOptions<PruneD1InboxOptions>()(joinOptions(D1_INBOX_OPTIONS, [sqlite.OLDER_THAN_OPTION]));

/**
 * Raises the horizon of the D1 inbox and deletes the keys of records older than it, in one batch.
 * Run it from a Cron Trigger, daily.
 *
 * @returns how many keys were deleted
 * @throws {RequestValidationError} (`invalid_option`, `olderThanSeconds`) for a retention shorter than a day or longer than 10 years
 * @example
 * ```ts
 * import { pruneD1Inbox } from 'payorch/d1';
 * import type { D1DatabaseLike } from 'payorch/d1';
 * export default {
 *   async scheduled(_controller: unknown, env: { readonly DB: D1DatabaseLike }) {
 *     await pruneD1Inbox({ db: env.DB });
 *   },
 * };
 * ```
 */
export async function pruneD1Inbox(options: PruneD1InboxOptions): Promise<number> {
  checkOptions('pruneD1Inbox', options, PRUNE_D1_OPTIONS);
  const table = sqlite.quoteSqliteTable('pruneD1Inbox', options.table);
  await checkD1Table(options.db, D1_INBOX_TABLE, bare(table), CREATE);
  const sql = sqlite.sqliteInboxStatements(table);
  const horizon = sqlite.horizonFor(options.olderThanSeconds ?? sqlite.DEFAULT_SQLITE_INBOX_RETENTION_SECONDS, Date.now());
  const [, deleted] = await options.db.batch([options.db.prepare(sql.raiseHorizon).bind(horizon, Date.now()), options.db.prepare(sql.forget)]);
  const changes = (deleted as { readonly meta?: { readonly changes?: unknown } } | undefined)?.meta?.changes;
  return typeof changes === 'number' ? changes : 0;
}

export type { CallbackInbox, CallbackInboxContext, CallbackKey, CallbackInboxOutcome } from '../inbox.js';
export type { TableMigration } from '../../core/table-migration.js';
