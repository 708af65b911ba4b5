// The SQL that the two SQLite inboxes share, D1 (payorch/d1) and a Durable Object's storage
// (payorch/durable-object): one table, one read, one claim, one prune. Not importable by users:
// each entry wraps it in the transaction its platform offers.
import { CallbackRetentionError, InboxError } from '../../errors/error.js';
import { checkValue, TEN_YEARS_SECONDS } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import type { CallbackKey } from '../inbox.js';
import type { SqliteTable } from './versions.js';
import { PRE_RELEASE_INBOX } from '../../internal/table-versions.js';

/** The table of applied keys when none is named. */
const DEFAULT_SQLITE_INBOX_TABLE = 'payorch_callback_inbox';

/** How old a record's key may grow before a prune forgets it, by default: 90 days. */
export const DEFAULT_SQLITE_INBOX_RETENTION_SECONDS = 90 * 86_400;

export const SQLITE_TABLE_OPTION: OptionDeclaration<'table'> = {
  name: 'table',
  rule: { type: 'text', maxLength: 63, pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, allowed: 'a name of letters, digits and _ (up to 63)' },
  default: DEFAULT_SQLITE_INBOX_TABLE,
};

export const OLDER_THAN_OPTION: OptionDeclaration<'olderThanSeconds'> = {
  name: 'olderThanSeconds',
  rule: { type: 'number', min: 86_400, max: TEN_YEARS_SECONDS, integer: true, unit: 's' },
  default: DEFAULT_SQLITE_INBOX_RETENTION_SECONDS,
  note: 'keys are kept by the age of their record, and callbacks of older records are refused, so any retention is safe; a day is the least',
};

// The horizon lives in the table as one row no callback can have: no merchant id is empty (the
// receiver refuses a blank merchantId and API key) and no tracking code is. Its record_time is
// the horizon. A second table would need a second migration and a second thing to back up.
const HORIZON_ROW = `merchant_id = '' AND tracking_code = '' AND status = 'payorch:horizon'`;

/** The table's name, checked and quoted: checked, so quoting cannot be escaped. */
export function quoteSqliteTable(where: string, table: string | undefined): string {
  const name = table ?? DEFAULT_SQLITE_INBOX_TABLE;
  checkValue(where, SQLITE_TABLE_OPTION, name);
  return `"${name}"`;
}

/** CREATE TABLE for the keys, the horizon row among them. */
export function sqliteInboxTableSql(quoted: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (`,
    '  merchant_id TEXT NOT NULL,',
    '  tracking_code TEXT NOT NULL,',
    '  status TEXT NOT NULL,',
    '  record_time INTEGER NOT NULL,',
    '  applied_at INTEGER NOT NULL,',
    '  PRIMARY KEY (merchant_id, tracking_code, status)',
    ')',
  ].join('\n');
}

/**
 * The versions of the inbox's table, oldest first, D1's and a Durable Object's: version 1 is the
 * shape of the first release. A new version is one entry: its columns and primary key (as
 * `pragma_table_info` shows them), and the statements from the one before.
 */
export const SQLITE_INBOX_VERSIONS: SqliteTable['versions'] = [
  {
    version: 1,
    shape: ['merchant_id TEXT NOT NULL', 'tracking_code TEXT NOT NULL', 'status TEXT NOT NULL', 'record_time INTEGER NOT NULL', 'applied_at INTEGER NOT NULL', 'PRIMARY KEY (merchant_id, tracking_code, status)'],
  },
];

/** Recorded by a pre-release build for its `merchant_id` table, its keys the raw API key. */
export const SQLITE_INBOX_RETIRED: readonly number[] = [2];

/** The inbox's table for the entry `entry` and the way it migrates. */
export function sqliteInboxTable(entry: string, migrate: string): SqliteTable {
  return {
    component: 'callback-inbox',
    what: `the inbox table of ${entry}`,
    versions: SQLITE_INBOX_VERSIONS,
    retired: SQLITE_INBOX_RETIRED,
    preRelease: PRE_RELEASE_INBOX,
    migrate,
    guide: 'docs/inboxes.md, "Upgrading"',
    create: (table) => [sqliteInboxTableSql(table)],
    refuse: (message, options) => new InboxError(`${entry}: ${message}`, options),
  };
}

/** The statements of one inbox table. */
export interface SqliteInboxStatements {
  /** What is known of a key: its tracking code's applied statuses (`horizon` 0) and the horizon (`horizon` 1). Binds merchant id, tracking code. */
  readonly state: string;
  /**
   * Inserts the key: bind it with {@link claimValues}. Its record time is the one its tracking
   * code's rows hold, else the one bound: a record time read from an unsigned field (a transfer's
   * `created_at`) may come in another form, and the rows of one tracking code are kept and
   * forgotten together. A record at or before the horizon, or a tracking code with a status the
   * caller did not see when it read the state, gets a NULL record_time, which NOT NULL refuses:
   * SQLite has no RAISE outside triggers, and this fails the statement, so the batch or
   * transaction it is in. A present key fails it on the primary key. The count suffices to tell a
   * status added: statuses are only ever added to a tracking code, and a prune that removed one
   * fails the claim too, which the redelivery settles.
   */
  readonly claim: string;
  /** Raises the horizon to the bound value (and applied_at to the second), never lowers it. */
  readonly raiseHorizon: string;
  /** Deletes the keys of records older than the horizon. */
  readonly forget: string;
}

export function sqliteInboxStatements(quoted: string): SqliteInboxStatements {
  const horizon = `(SELECT record_time FROM ${quoted} WHERE ${HORIZON_ROW})`;
  return {
    state: `SELECT 0 AS horizon, status, record_time, applied_at FROM ${quoted} WHERE merchant_id = ? AND tracking_code = ?
UNION ALL SELECT 1, status, record_time, applied_at FROM ${quoted} WHERE ${HORIZON_ROW}
ORDER BY 1, 4`,
    claim: `INSERT INTO ${quoted} (merchant_id, tracking_code, status, record_time, applied_at)
SELECT ?1, ?2, ?3, CASE WHEN kept > coalesce(${horizon}, -1) AND seen = ?5 THEN kept END, ?6
  FROM (SELECT coalesce(min(record_time), ?4) AS kept, count(*) AS seen FROM ${quoted} WHERE merchant_id = ?1 AND tracking_code = ?2)`,
    raiseHorizon: `INSERT INTO ${quoted} (merchant_id, tracking_code, status, record_time, applied_at) VALUES ('', '', 'payorch:horizon', ?, ?)
ON CONFLICT (merchant_id, tracking_code, status) DO UPDATE SET record_time = max(record_time, excluded.record_time), applied_at = excluded.applied_at`,
    forget: `DELETE FROM ${quoted} WHERE record_time < coalesce(${horizon}, -1)`,
  };
}

/**
 * The values {@link SqliteInboxStatements.claim} binds: the key, its record time, how many
 * statuses of its tracking code the caller saw, and when, in milliseconds. Explicit rather than
 * a column default: `unixepoch('subsec')` needs SQLite 3.42, and older ones give NULL.
 */
export function claimValues(key: CallbackKey, recordTime: number, seen: SqliteKeyState, nowMs: number): unknown[] {
  return [key.merchantId, key.trackingCode, key.status, recordTime, seen.appliedStatuses.length, nowMs];
}

/** What the state read says about one key. */
export interface SqliteKeyState {
  readonly present: boolean;
  /** The other statuses applied for the merchant and tracking code. */
  readonly appliedStatuses: readonly string[];
  /** The record time its tracking code's rows hold (the first given), or undefined when it has none. */
  readonly recordTime: number | undefined;
  /** Unix seconds, or undefined before any prune. */
  readonly horizon: number | undefined;
}

/** Reads the rows of {@link SqliteInboxStatements.state} for `key`. */
export function readSqliteKeyState(rows: readonly unknown[], key: CallbackKey): SqliteKeyState {
  let present = false;
  let horizon: number | undefined;
  let recordTime: number | undefined;
  const appliedStatuses: string[] = [];
  for (const row of rows) {
    const { horizon: isHorizon, status, record_time: time } = row as Partial<Record<'horizon' | 'status' | 'record_time', unknown>>;
    if (Number(isHorizon) === 1) {
      horizon = Number(time);
      continue;
    }
    recordTime = Math.min(recordTime ?? Infinity, Number(time));
    if (status === key.status) present = true;
    else appliedStatuses.push(String(status));
  }
  return { present, appliedStatuses, recordTime, horizon };
}

/**
 * The refusal of a record at or before the horizon, or undefined when it may be applied: judged by
 * the record time its tracking code holds, else the one given.
 */
export function retentionRefusal(key: CallbackKey, given: number, state: SqliteKeyState): CallbackRetentionError | undefined {
  const recordTime = state.recordTime ?? given;
  if (state.horizon === undefined || recordTime > state.horizon) return undefined;
  return new CallbackRetentionError(key, recordTime, state.horizon);
}

/** The horizon a prune sets: the record time `olderThanSeconds` before now, Unix seconds. */
export function horizonFor(olderThanSeconds: number, nowMs: number): number {
  return Math.floor(nowMs / 1000) - olderThanSeconds;
}
