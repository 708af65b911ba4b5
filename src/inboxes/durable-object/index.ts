/**
 * payorch/durable-object: a callback inbox in the SQLite storage of a Cloudflare Durable Object,
 * for a receiver that runs inside the object (one object per merchant). The key and the object's
 * own SQL commit in one `storage.transaction`. Runs without `nodejs_compat`, and needs no
 * `@cloudflare/workers-types`: the types below are the parts of the storage it uses.
 *
 * @module payorch/durable-object
 */
import { checkOptions, declareOptions, joinOptions } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome } from '../inbox.js';
import { keyRecordTime } from '../record-time.js';
import { claimRefusal } from '../claim-refusal.js';
// The SQL, the key reads and the retention rules both SQLite inboxes share.
import * as sqlite from '../sqlite-dialect/inbox-sql.js';
import { judgeTable } from '../../internal/table-versions.js';
import { SQLITE_STATE_SQL, sqliteForeignRecord, sqliteMigrationFor, sqliteTableState } from '../sqlite-dialect/versions.js';

/** The parts of a SQL cursor the inbox reads; the storage's `SqlStorageCursor` fits. */
export interface DurableObjectSqlCursorLike {
  /** Every row, as objects. */
  toArray(): unknown[];
  /** How many rows the statement wrote. */
  readonly rowsWritten: number;
}

/** The parts of a SQLite-backed Durable Object's `ctx.storage` the inbox uses; `DurableObjectStorage` fits. */
export interface DurableObjectStorageLike {
  /** The object's SQLite database. */
  readonly sql: {
    /** Runs one statement with its `?` values. */
    exec(query: string, ...bindings: unknown[]): DurableObjectSqlCursorLike;
  };
  /** Runs `closure` in a transaction: its SQL commits when it resolves, and rolls back when it rejects. */
  transaction<T>(closure: () => Promise<T>): Promise<T>;
}

/** What the Durable Object inbox gives each handler. */
export interface DurableObjectInboxContext<TStorage extends DurableObjectStorageLike = DurableObjectStorageLike> extends CallbackInboxContext {
  /**
   * The object's storage, inside the transaction that also inserts the callback's key: what you
   * write with `storage.sql.exec` (or its key-value methods) commits with the key, or not at all.
   */
  readonly storage: TStorage;
}

/** Settings of {@link createDurableObjectInbox}. */
export interface DurableObjectInboxOptions<TStorage extends DurableObjectStorageLike = DurableObjectStorageLike> {
  /**
   * The object's storage: SQLite-backed (`new_sqlite_classes` in the migration).
   * @example this.ctx.storage
   */
  readonly storage: TStorage;
  /**
   * The table of applied keys in the object's database. Letters, digits and `_` only.
   * @default 'payorch_callback_inbox'
   */
  readonly table?: string | undefined;
}

const STORAGE_OPTION: OptionDeclaration<'storage'> = {
  name: 'storage',
  rule: { type: 'object', methods: ['transaction'], allowed: "a SQLite-backed Durable Object's storage (ctx.storage)" },
  required: true,
};
const STORAGE_SQL_OPTION: OptionDeclaration<'storage.sql'> = {
  name: 'storage.sql',
  rule: { type: 'object', methods: ['exec'], allowed: 'the SQL API of a SQLite-backed Durable Object (new_sqlite_classes in the migration)' },
  required: true,
};
const DURABLE_OBJECT_INBOX_OPTIONS = declareOptions<DurableObjectInboxOptions>()([STORAGE_OPTION, STORAGE_SQL_OPTION, sqlite.SQLITE_TABLE_OPTION]);

const DURABLE_OBJECT_INBOX_TABLE = /* @__PURE__ */ sqlite.sqliteInboxTable('payorch/durable-object', 'the inbox itself, on its first use');

/**
 * Creates the table when missing, or migrates it from an earlier version, in one transaction of the
 * object's: what the inbox and its prune do on first use. A later version, or columns of no
 * version, are refused with an InboxError, and nothing changes.
 */
function prepareTable(storage: DurableObjectStorageLike, quoted: string): Promise<void> {
  const bare = quoted.slice(1, -1);
  const rows = (query: string, ...bindings: unknown[]): unknown[] => storage.sql.exec(query, ...bindings).toArray();
  return storage.transaction(() => {
    const present = rows(SQLITE_STATE_SQL.present, bare);
    const versioned = present.some((row) => (row as Partial<Record<'name', unknown>>).name === 'payorch_schema');
    const foreign = versioned ? sqliteForeignRecord(rows(SQLITE_STATE_SQL.recordShape)) : undefined;
    const state = sqliteTableState(bare, present, rows(SQLITE_STATE_SQL.shape, bare), versioned && foreign === undefined ? rows(SQLITE_STATE_SQL.record, bare) : undefined, foreign);
    for (const statement of sqliteMigrationFor(DURABLE_OBJECT_INBOX_TABLE, bare, judgeTable(DURABLE_OBJECT_INBOX_TABLE, quoted, state)).statements) rows(statement);
    return Promise.resolve();
  });
}

/**
 * A callback inbox in a Durable Object's SQLite storage: create it in the object's constructor,
 * with the receiver, and route each merchant's callbacks to one object
 * (`env.PAYORCH.idFromName(merchantId)`). On first use it creates its table when missing, or
 * migrates one of an earlier version in place, keeping its keys (a later version is refused with an
 * `InboxError`). For each callback it opens `storage.transaction`, reads the key, inserts it, runs
 * the handlers, and commits: the key and the object's own SQL commit together exactly once, or not
 * at all.
 *
 * - **Copies at the same time** are serialised by the object: the second sees the first's key
 *   and is a duplicate, or, if the first rolled back, applies the callback itself. Two statuses
 *   of one tracking code likewise: the second's handlers see the first in `appliedStatuses`.
 * - **A handler that throws** rolls the transaction back, key included: the receiver answers 500
 *   and the redelivery applies it.
 * - **The transaction blocks the whole object** until the handlers return: while a handler awaits
 *   an outside call (`fetch`), no other request of this merchant runs. Keep handlers to the
 *   object's own storage, and call other services after the answer (`ctx.waitUntil`) with
 *   `callbackKeyString(key)` as their idempotency key: such calls are at least once.
 * - Retention follows the record's age, as every payorch inbox: {@link pruneDurableObjectInbox}
 *   raises the horizon; a callback at or before it whose key is gone is refused
 *   (`CallbackRetentionError`), never applied twice.
 *
 * @example
 * ```ts
 * import { createCallbackReceiver } from 'payorch';
 * import { createDurableObjectInbox } from 'payorch/durable-object';
 * import type { DurableObjectStorageLike } from 'payorch/durable-object';
 *
 * export class PayorchMerchant {
 *   readonly receiver;
 *   constructor(ctx: { readonly storage: DurableObjectStorageLike }, env: { readonly API_KEY: string; readonly SECRET_KEY: string }) {
 *     this.receiver = createCallbackReceiver({ apiKey: env.API_KEY, secretKey: env.SECRET_KEY, inbox: createDurableObjectInbox({ storage: ctx.storage }) });
 *   }
 *   fetch(request: Request): Promise<Response> {
 *     return this.receiver.handle(request);
 *   }
 * }
 * ```
 */
export function createDurableObjectInbox<TStorage extends DurableObjectStorageLike>(options: DurableObjectInboxOptions<TStorage>): CallbackInbox<DurableObjectInboxContext<TStorage>> {
  checkOptions('createDurableObjectInbox', options, DURABLE_OBJECT_INBOX_OPTIONS);
  const { storage } = options;
  const table = sqlite.quoteSqliteTable('createDurableObjectInbox', options.table);
  const sql = sqlite.sqliteInboxStatements(table);
  let prepared: Promise<void> | undefined;

  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      const recordTime = keyRecordTime(key);
      prepared ??= prepareTable(storage, table);
      // A refusal is met again by the next callback, and told again.
      prepared.catch(() => (prepared = undefined));
      await prepared;
      // A transaction that rejects, the handlers' error or its own, rejects the callback (500,
      // onError). One that cannot commit once its closure resolved (a deferred foreign key) fails
      // the whole request in the runtime, which resets the object: no 200 either way.
      return storage.transaction(async () => {
        // The key before the horizon: a kept key is a duplicate whatever its age.
        const state = sqlite.readSqliteKeyState(storage.sql.exec(sql.state, key.merchantId, key.trackingCode).toArray(), key);
        if (state.present) return 'duplicate';
        const refused = sqlite.retentionRefusal(key, recordTime, state);
        if (refused !== undefined) throw refused;
        try {
          storage.sql.exec(sql.claim, ...sqlite.claimValues(key, recordTime, state, Date.now()));
        } catch (error) {
          // The table's refusal, never a handler's (none ran). SQLite names a constraint's or a
          // trigger's RAISE as SQLITE_CONSTRAINT.
          throw claimRefusal('payorch/durable-object', table, `${key.trackingCode} (${key.status})`, error, /constraint/i.test(error instanceof Error ? error.message : String(error)));
        }
        await apply({ key, appliedStatuses: state.appliedStatuses, storage });
        return 'applied';
      });
    },
  };
}

/** Settings of {@link pruneDurableObjectInbox}. */
export interface PruneDurableObjectInboxOptions extends DurableObjectInboxOptions {
  /**
   * The retention, by the age of the record (the Unix seconds at the end of its tracking code),
   * not by when the callback was applied. The prune raises the horizon to now minus this (never
   * lowers it) and deletes the keys of older records. At least a day.
   * @default 7776000 (90 days)
   */
  readonly olderThanSeconds?: number | undefined;
}

const PRUNE_DURABLE_OBJECT_OPTIONS = declareOptions<PruneDurableObjectInboxOptions>()(joinOptions(DURABLE_OBJECT_INBOX_OPTIONS, [sqlite.OLDER_THAN_OPTION]));

/**
 * Raises the horizon of the object's inbox and deletes the keys of records older than it, in one
 * transaction. Run it from the object's alarm, daily.
 *
 * @returns how many keys were deleted
 * @throws {RequestValidationError} (`invalid_option`, `olderThanSeconds`) for a retention shorter than a day or longer than 10 years
 * @example
 * ```ts
 * import { pruneDurableObjectInbox } from 'payorch/durable-object';
 * import type { DurableObjectStorageLike } from 'payorch/durable-object';
 *
 * export class PayorchMerchant {
 *   constructor(readonly ctx: { readonly storage: DurableObjectStorageLike & { setAlarm(time: number): Promise<void> } }) {}
 *   async alarm(): Promise<void> {
 *     await pruneDurableObjectInbox({ storage: this.ctx.storage });
 *     await this.ctx.storage.setAlarm(Date.now() + 86_400_000);
 *   }
 * }
 * ```
 */
export function pruneDurableObjectInbox(options: PruneDurableObjectInboxOptions): Promise<number> {
  checkOptions('pruneDurableObjectInbox', options, PRUNE_DURABLE_OBJECT_OPTIONS);
  const { storage } = options;
  const table = sqlite.quoteSqliteTable('pruneDurableObjectInbox', options.table);
  const sql = sqlite.sqliteInboxStatements(table);
  const horizon = sqlite.horizonFor(options.olderThanSeconds ?? sqlite.DEFAULT_SQLITE_INBOX_RETENTION_SECONDS, Date.now());
  // Options are refused at once, before the storage is touched; the table on first use, as the inbox's.
  return prepareTable(storage, table).then(() => storage.transaction(() => {
    storage.sql.exec(sql.raiseHorizon, horizon, Date.now()).toArray();
    const forget = storage.sql.exec(sql.forget);
    forget.toArray();
    return Promise.resolve(forget.rowsWritten);
  }));
}

export type { CallbackInbox, CallbackInboxContext, CallbackKey, CallbackInboxOutcome } from '../inbox.js';
