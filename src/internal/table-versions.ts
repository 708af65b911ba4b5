// The versions of the tables payorch keeps in a merchant's database, and the verdict on a live
// table: what both engine families share (PostgreSQL in src/postgres/versions.ts, SQLite
// for D1 and Durable Objects in src/inboxes/sqlite-dialect/versions.ts). Each table records its version in
// `payorch_schema` beside it; its live columns are compared too, since a table changed by hand
// shows no version of its own. Each table's shape was frozen as version 1 at the first release;
// adding a version is one entry of a table's `versions`, and its `create` makes the new version.

/** One stored shape of a table, and the way to it from the version before. */
export interface TableVersion {
  readonly version: number;
  /**
   * Its columns and keys as the engine's catalog describes them, in any order: `name type` with
   * ` NOT NULL` when it is, and `PRIMARY KEY (a, b)`, `UNIQUE (a)` (the engine's spelling of types).
   */
  readonly shape: readonly string[];
  /** The statements that carry a table of the version before to this one; none for the first. */
  readonly up?: ((table: string) => readonly string[]) | undefined;
}

/** A table payorch creates and migrates. */
export interface VersionedTable {
  /**
   * What it holds, as `payorch_schema.component` names it: a table holds one thing only. Dead
   * letters of pg-boss are `dead-letters`; another engine's are `<engine>-dead-letters`.
   */
  readonly component: 'callback-inbox' | 'dead-letters' | `${string}-dead-letters`;
  /** What messages call it: "the inbox table of payorch/postgres". */
  readonly what: string;
  /** Oldest first; the last is the version this payorch uses. */
  readonly versions: readonly [TableVersion, ...TableVersion[]];
  /**
   * The version numbers builds before the first release recorded, whose rows hold keys or jobs in
   * another form (the raw API key): a table recorded at one is refused, and no version may take one,
   * or such a table would be judged by a shape that says nothing of its rows (test/internal/table-versions.test.ts).
   */
  readonly retired?: readonly number[] | undefined;
  /**
   * What to do with a table a build before the first release made, as every refusal of a shape or
   * number that is not this payorch's says it: "Made by a build before the first release? …".
   */
  readonly preRelease: string;
  /**
   * The statements that create the current version, for the quoted `table`: `IF NOT EXISTS`, so
   * that run again, or over a table of an earlier version, they change nothing (the migration does).
   */
  readonly create: (table: string) => readonly string[];
  /** The way to migrate it, as a message says it: "createPostgresInboxTable({ pool }) or `payorch migrate postgres-inbox`". */
  readonly migrate: string;
  /** The guide's section on upgrading, as a message points to it. */
  readonly guide: string;
}

/** What to do with an inbox table a build before the first release made (docs/inboxes.md, "Upgrading"). */
export const PRE_RELEASE_INBOX = "Made by a build before the first release? Its keys are under the raw API key: run the guide's statements, since its columns renamed alone would apply its payments again";
/** What to do with a dead letters' table a build before the first release made (docs/deferred.md). */
export const PRE_RELEASE_DEAD_LETTERS = 'Made by a build before the first release? Its jobs are of another form: replay or purge them with that build';

/** The table's live state, as the engine's catalog and `payorch_schema` show it. */
export type TableState = (
  | { readonly exists: false }
  | { readonly exists: true; readonly recorded: { readonly component: string; readonly version: number } | undefined; readonly shape: readonly string[] }
) & {
  /** How a `payorch_schema` of the user's own differs from payorch's (see {@link foreignRecord}); its rows are then not read. */
  readonly foreignRecord?: string | undefined;
};

/** What to do with a table: create it, migrate it from `version`, use it, or refuse it with `message`. */
export type TableVerdict =
  | { readonly kind: 'missing' }
  | { readonly kind: 'current'; readonly recorded: boolean }
  | { readonly kind: 'earlier'; readonly version: number; readonly recorded: boolean }
  | { readonly kind: 'refused'; readonly message: string };

export const currentVersion = (table: VersionedTable): number => (table.versions.at(-1) ?? table.versions[0]).version;

/** The steps that carry `table` (quoted) from `version` to the current version. */
export function stepsAfter(table: VersionedTable, version: number, quoted: string): readonly string[] {
  return table.versions.filter((each) => each.version > version).flatMap((each) => each.up?.(quoted) ?? []);
}

const known = (table: VersionedTable): string => {
  const first = table.versions[0].version;
  const last = currentVersion(table);
  return first === last ? `version ${last}` : `versions ${first} to ${last}`;
};

/** How `live` differs from `expected`, or undefined when it does not. */
function difference(expected: readonly string[], live: readonly string[]): string | undefined {
  const extra = live.filter((part) => !expected.includes(part));
  const missing = expected.filter((part) => !live.includes(part));
  if (extra.length === 0 && missing.length === 0) return undefined;
  const list = (parts: readonly string[]): string => parts.map((part) => JSON.stringify(part)).join(', ');
  return [extra.length > 0 ? `has ${list(extra)}` : '', missing.length > 0 ? `lacks ${list(missing)}` : ''].filter(Boolean).join(' and ');
}

/**
 * The verdict on the table `name` in `state`. A recorded version must match its shape. A table
 * with no record (made before versions were recorded) is known by its shape alone, as the first
 * version whose shape it has.
 */
export function judgeTable(table: VersionedTable, name: string, state: TableState): TableVerdict {
  const refused = (message: string): TableVerdict => ({ kind: 'refused', message: `${name} (${table.what}) ${message} (${table.guide})` });
  if (state.foreignRecord !== undefined) {
    return refused(`cannot be checked or created: the payorch_schema beside it is not payorch's (it ${state.foreignRecord}), and payorch records its tables' versions there. Rename that table, or give payorch's tables a schema (or database) of their own`);
  }
  if (!state.exists) return { kind: 'missing' };
  const current = currentVersion(table);
  const at = (version: number, recorded: boolean): TableVerdict => (version === current ? { kind: 'current', recorded } : { kind: 'earlier', version, recorded });
  const { recorded, shape } = state;
  if (recorded !== undefined) {
    if (recorded.component !== table.component) return refused(`holds ${recorded.component}, as payorch_schema records, not ${table.component}: give it a table of its own`);
    if (table.retired?.includes(recorded.version) === true) {
      return refused(`is recorded at version ${recorded.version}, a number only builds before the first release recorded. ${table.preRelease}`);
    }
    if (recorded.version > current) {
      return refused(`is at version ${recorded.version}, which a later payorch migrated it to; this payorch knows ${known(table)}. Run a payorch that knows version ${recorded.version} or later: no payorch migrates a table back`);
    }
    const version = table.versions.find((candidate) => candidate.version === recorded.version);
    if (version === undefined) return refused(`is recorded at version ${recorded.version}, which no payorch made; this payorch knows ${known(table)}`);
    const changed = difference(version.shape, shape);
    if (changed !== undefined) {
      return refused(`is recorded at version ${recorded.version}, but its columns are not that version's (it ${changed}): changed by hand? Give it back version ${recorded.version}'s columns, then ${table.migrate} migrates it. ${table.preRelease}`);
    }
    return at(recorded.version, true);
  }
  const matched = table.versions.find((candidate) => difference(candidate.shape, shape) === undefined);
  if (matched !== undefined) return at(matched.version, false);
  // Told against the nearest version: the fewest columns and keys apart.
  const apart = (candidate: TableVersion): number => candidate.shape.filter((part) => !shape.includes(part)).length + shape.filter((part) => !candidate.shape.includes(part)).length;
  const nearest = table.versions.reduce((best, candidate) => (apart(candidate) < apart(best) ? candidate : best));
  return refused(
    `matches no version payorch made (${known(table)}; beside version ${nearest.version}, it ${difference(nearest.shape, shape) ?? ''}): changed by hand, or made by a build before the first release. Changed by hand: give it back a version's own columns. ${table.preRelease}`,
  );
}

/**
 * How `payorch_schema`'s columns (`name type`, the engine's spelling) and key differ from the ones
 * payorch reads and writes by, or undefined when it has them all: a table of that name the user
 * made reads no version.
 */
export function foreignRecord(columns: readonly string[], expected: readonly (string | readonly [string, ...string[]])[]): string | undefined {
  // A list is any one of its parts (the integer types a version reads the same from).
  const lacking = expected.map((part) => (typeof part === 'string' ? [part] : part)).filter((parts) => !parts.some((part) => columns.includes(part)));
  return lacking.length === 0 ? undefined : `lacks ${lacking.map((parts) => parts.map((part) => JSON.stringify(part)).join(' or ')).join(', ')}`;
}

/** The refusal of a table of an earlier version where it is used, not migrated. */
export function earlierMessage(table: VersionedTable, name: string, version: number): string {
  return `${name} (${table.what}) is at version ${version}, and this payorch uses version ${currentVersion(table)}: migrate it in place, keeping its rows, with ${table.migrate} (${table.guide})`;
}

/** The refusal of a table that is not there where it is used. */
export function missingMessage(table: VersionedTable, name: string, create: string): string {
  return `${name} (${table.what}) does not exist: create it with ${create}`;
}
