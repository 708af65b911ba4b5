// `payorch migrate` for the D1 stores (docs/cli.md, docs/inboxes.md "Upgrading"): the SQL it prints,
// applied as wrangler applies a migration, to a real D1 in workerd (miniflare); the SQL it prints
// after an upgrade, from the same function, with a later version of the test's own
// (test/helpers/later-version.ts). PostgreSQL's stores: migrate.pg.test.ts.
import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { D1_WORKER, d1At } from '../helpers/d1-over-http.js';
import { payorch } from './run.js';
import { sqliteInboxTable } from '../../src/inboxes/sqlite-dialect/inbox-sql.js';
import { sqliteMigrationSql } from '../../src/inboxes/sqlite-dialect/versions.js';
import { addLaterVersion } from '../helpers/later-version.js';

// The D1 inbox's table as the command prints it (payorch/d1's own is module-private).
const TABLE = sqliteInboxTable('payorch/d1', 'createD1InboxTable({ db })');

let miniflare: Miniflare;
let db: D1DatabaseLike;

beforeAll(async () => {
  miniflare = new Miniflare({ modules: true, script: D1_WORKER, compatibilityDate: '2025-09-01', d1Databases: { DB: 'migrate' } });
  db = d1At(await miniflare.ready);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

/** A migration file, as wrangler runs it: its statements in one batch. */
const apply = (sql: string) => db.batch(sql.split(';\n').filter((statement) => statement.trim() !== '').map((statement) => db.prepare(statement)));

test('d1-inbox --from 1, the version this payorch uses, prints SQL that records the table at it, keeping its keys', async () => {
  const made = await payorch(['migrate', 'd1-inbox', '--table', 'inbox_v1']);
  expect(made.stdout.split('\n')[0]).toBe('-- payorch d1-inbox: creates "inbox_v1" at version 1.');
  // Made by a migration tool of its own, from the columns alone: no record.
  await apply(made.stdout.split('\n').filter((line) => !line.includes('payorch_schema')).join('\n'));
  await db.prepare("INSERT INTO inbox_v1 VALUES ('shop', 'MAN-d1cli001-1763812000', 'completed', 1763812000, 1)").run();
  const run = await payorch(['migrate', 'd1-inbox', '--from', '1', '--table', 'inbox_v1']);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout.split('\n')[0]).toBe('-- payorch d1-inbox: records "inbox_v1" at version 1, the one this payorch uses: nothing to migrate.');
  await apply(run.stdout);
  expect((await db.prepare('SELECT merchant_id, tracking_code, status FROM inbox_v1').all()).results).toEqual([{ merchant_id: 'shop', tracking_code: 'MAN-d1cli001-1763812000', status: 'completed' }]);
  expect((await db.prepare("SELECT component, version FROM payorch_schema WHERE table_name = 'inbox_v1'").all()).results).toEqual([{ component: 'callback-inbox', version: 1 }]);
});

test('the SQL --from prints after an upgrade (to a version 3 of this test\'s own; 2 is retired) migrates a table of version 1 keeping its keys, and fails, changing nothing, when applied again', async () => {
  await apply(TABLE.create('"inbox_up"').join(';\n'));
  await db.prepare("INSERT INTO inbox_up VALUES ('shop', 'MAN-d1cli002-1763812000', 'completed', 1763812000, 1)").run();
  await apply(sqliteMigrationSql(TABLE, 'inbox_up', 1).join(';\n'));
  const takeBack = addLaterVersion(TABLE, 'TEXT');
  try {
    const sql = sqliteMigrationSql(TABLE, 'inbox_up', 1).join(';\n');
    await apply(sql);
    expect((await db.prepare('SELECT merchant_id, tracking_code, status, note FROM inbox_up').all()).results).toEqual([{ merchant_id: 'shop', tracking_code: 'MAN-d1cli002-1763812000', status: 'completed', note: null }]);
    expect((await db.prepare("SELECT component, version FROM payorch_schema WHERE table_name = 'inbox_up'").all()).results).toEqual([{ component: 'callback-inbox', version: 3 }]);
    await expect(apply(sql)).rejects.toThrow(/NOT NULL constraint failed: payorch_schema\.version/);
    expect((await db.prepare("SELECT version FROM payorch_schema WHERE table_name = 'inbox_up'").all()).results).toEqual([{ version: 3 }]);
  } finally {
    takeBack();
  }
});

test('d1-dead-letters without --from prints SQL that creates the table and records its version', async () => {
  const run = await payorch(['migrate', 'd1-dead-letters']);
  expect(run.code).toBe(0);
  await apply(run.stdout);
  expect((await db.prepare("SELECT component, version FROM payorch_schema WHERE table_name = 'payorch_dead_letters'").all()).results).toEqual([{ component: 'dead-letters', version: 1 }]);
});

test.each([
  [['migrate'], 'name the store: postgres-inbox, pg-boss-dead-letters, d1-inbox, d1-dead-letters'],
  [['migrate', 'postgres-inbx'], 'did you mean postgres-inbox?'],
  [['migrate', 'd1-inbox', '--from', '2'], '--from: must be a version of d1-inbox (1); got "2"'],
  [['migrate', 'd1-inbox', '--table', 'a;b'], '--table: must be a name of letters, digits and _ (up to 63)'],
  [['migrate', 'postgres-inbox', '--from', '1'], '--from is for the D1 stores'],
])('payorch %j is a usage error (exit 2): %s', async (args, message) => {
  const run = await payorch(args);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(message);
});
