// A version after a table's last that exists only in the tests. Every table payorch keeps was frozen
// at version 1 for the first release, so no shipped step migrates anything yet; these prove the
// mechanism a real version 2 will use (docs/inboxes.md, "Upgrading"): the step is added to the
// table's own list of versions, which every path reads (the check on first use, the migration, the
// creation, the SQL printed for migration tools), and taken back after the file's tests.
import type { TableVersion } from '../../src/internal/table-versions.js';

/** The number the test-only version takes: the first after the last version and every retired one. */
function laterVersionOf(table: { readonly versions: readonly TableVersion[]; readonly retired?: readonly number[] | undefined }): number {
  return Math.max(...table.versions.map((each) => each.version), ...(table.retired ?? [])) + 1;
}

/**
 * Adds to the table's `versions` the next version a release could take (past its `retired`
 * numbers): one more nullable column, `note`, of `type` (the engine's spelling as its catalog shows
 * it). Returns the function that takes it back.
 */
export function addLaterVersion(table: { readonly versions: readonly TableVersion[]; readonly retired?: readonly number[] | undefined }, type: 'text' | 'TEXT'): () => void {
  // The list is the table's own, typed read-only for the library; pushed to here, in a test only.
  const list = table.versions as TableVersion[];
  const last = list.at(-1);
  if (last === undefined) throw new Error('a table has at least one version');
  const later: TableVersion = { version: laterVersionOf(table), shape: [...last.shape, `note ${type}`], up: (name) => [`ALTER TABLE ${name} ADD COLUMN note ${type}`] };
  list.push(later);
  // Taken back once, however often called: a second splice at -1 would remove the last version.
  return () => {
    const at = list.indexOf(later);
    if (at >= 0) list.splice(at, 1);
  };
}
