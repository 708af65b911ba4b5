// The version lists of every table payorch keeps: oldest first, and never a number a build before
// the first release recorded (`retired`), which such a table carries over rows of another form: a
// release that took one would judge those rows by a shape that says nothing of them. The tables
// themselves, against real servers: test/postgres/versions.pg.test.ts, test/cloudflare/table-versions.test.ts.
import { describe, expect, test } from 'vitest';
import { POSTGRES_INBOX_TABLE } from '../../src/inboxes/postgres/table.js';
import { sqliteInboxTable } from '../../src/inboxes/sqlite-dialect/inbox-sql.js';
import { judgeTable } from '../../src/internal/table-versions.js';
import type { VersionedTable } from '../../src/internal/table-versions.js';
import { PGBOSS_DEAD_LETTER_TABLE } from '../../src/queues/pg-boss/dead-letter-table.js';
import { D1_DEAD_LETTERS_TABLE } from '../../src/queues/cloudflare-queues/dead-letters.js';

// The numbers pre-release builds recorded, from their history: written here, not read from the
// tables, so that dropping one from `retired` to give a version its number fails.
const TABLES: readonly [string, VersionedTable, readonly number[]][] = [
  ['the PostgreSQL inbox', POSTGRES_INBOX_TABLE, [2]],
  ['the PostgreSQL dead letters', PGBOSS_DEAD_LETTER_TABLE, [2, 3]],
  ['the D1 and Durable Object inbox', sqliteInboxTable('payorch/d1', 'createD1InboxTable({ db })'), [2]],
  ['the D1 dead letters', D1_DEAD_LETTERS_TABLE, [2]],
];

describe.each(TABLES)('%s', (_name, table, preRelease) => {
  test('lists its versions oldest first, from 1, none a number a pre-release build recorded', () => {
    const numbers = table.versions.map((each) => each.version);
    expect(numbers[0]).toBe(1);
    expect([...numbers].sort((a, b) => a - b)).toEqual(numbers);
    expect(table.retired).toEqual(preRelease);
    expect(numbers.filter((number) => preRelease.includes(number))).toEqual([]);
  });

  test('refuses a table recorded at each retired number, with its shape or another', () => {
    expect(table.retired?.length).toBeGreaterThan(0);
    for (const number of table.retired ?? []) {
      const verdict = judgeTable(table, '"t"', { exists: true, recorded: { component: table.component, version: number }, shape: table.versions[0].shape });
      expect(verdict).toEqual({ kind: 'refused', message: expect.stringContaining(`is recorded at version ${String(number)}, a number only builds before the first release recorded`) as string });
    }
  });
});
