// `payorch migrate` for the D1 stores (docs/cli.md, docs/inboxes.md "Upgrading"): the SQL it prints,
// applied as wrangler applies a migration, to a real D1 in workerd (miniflare). PostgreSQL's stores:
// migrate.pg.test.ts.
import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { D1_WORKER, d1At } from '../helpers/d1-over-http.js';
import { payorch } from './run.js';

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

test('d1-inbox --from 1 prints SQL that migrates a table of version 1 keeping its keys, and fails, changing nothing, when applied again', async () => {
  await db.batch([
    db.prepare('CREATE TABLE "inbox_v1" (account TEXT NOT NULL, tracking_code TEXT NOT NULL, status TEXT NOT NULL, record_time INTEGER NOT NULL, applied_at INTEGER NOT NULL, PRIMARY KEY (account, tracking_code, status))'),
    db.prepare("INSERT INTO inbox_v1 VALUES ('shop', 'MAN-d1cli001-1763812000', 'completed', 1763812000, 1)"),
  ]);
  const run = await payorch(['migrate', 'd1-inbox', '--from', '1', '--table', 'inbox_v1']);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout.split('\n')[0]).toBe('-- payorch d1-inbox: migrates "inbox_v1" from version 1 to 2; it fails, changing nothing, unless the table is at version 1.');
  await apply(run.stdout);
  expect((await db.prepare('SELECT merchant_id, tracking_code, status FROM inbox_v1').all()).results).toEqual([{ merchant_id: 'shop', tracking_code: 'MAN-d1cli001-1763812000', status: 'completed' }]);
  expect((await db.prepare("SELECT component, version FROM payorch_schema WHERE table_name = 'inbox_v1'").all()).results).toEqual([{ component: 'callback-inbox', version: 2 }]);
  await expect(apply(run.stdout)).rejects.toThrow(/NOT NULL constraint failed: payorch_schema\.version/);
  expect((await db.prepare("SELECT version FROM payorch_schema WHERE table_name = 'inbox_v1'").all()).results).toEqual([{ version: 2 }]);
});

test('d1-dead-letters without --from prints SQL that creates the table and records its version', async () => {
  const run = await payorch(['migrate', 'd1-dead-letters']);
  expect(run.code).toBe(0);
  await apply(run.stdout);
  expect((await db.prepare("SELECT component, version FROM payorch_schema WHERE table_name = 'payorch_dead_letters'").all()).results).toEqual([{ component: 'dead-letters', version: 2 }]);
});

test.each([
  [['migrate'], 'name the store: postgres-inbox, pg-boss-dead-letters, d1-inbox, d1-dead-letters'],
  [['migrate', 'postgres-inbx'], 'did you mean postgres-inbox?'],
  [['migrate', 'd1-inbox', '--from', '3'], '--from: must be a version of d1-inbox, 1 to 2; got "3"'],
  [['migrate', 'd1-inbox', '--table', 'a;b'], '--table: must be a name of letters, digits and _ (up to 63)'],
  [['migrate', 'postgres-inbox', '--from', '1'], '--from is for the D1 stores'],
])('payorch %j is a usage error (exit 2): %s', async (args, message) => {
  const run = await payorch(args);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(message);
});
