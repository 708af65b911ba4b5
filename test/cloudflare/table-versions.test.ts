// The versions of the D1 tables (docs/inboxes.md, "Upgrading"; docs/deferred.md): created and
// recorded at version 1, refused when later, of a shape no release made, or changed by hand; migrated
// in place keeping every key and dead letter (once, when two run at once) to a later version that exists
// only in these tests (test/helpers/later-version.ts). On a real D1 (in workerd, its statements sent over HTTP).
// The cases every inbox meets, D1's and the Durable Object's in workerd: inbox-contract.test.ts.
import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InboxError, QueueError } from '../../src/index.js';
import { createD1Inbox, createD1InboxTable } from '../../src/inboxes/d1/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { createCloudflareQueue, createD1DeadLettersTable } from '../../src/queues/cloudflare-queues/index.js';
import { D1_WORKER, d1At } from '../helpers/d1-over-http.js';
import { SQLITE_INBOX_RETIRED, SQLITE_INBOX_VERSIONS } from '../../src/inboxes/sqlite-dialect/inbox-sql.js';
import { D1_DEAD_LETTERS_TABLE } from '../../src/queues/cloudflare-queues/dead-letters.js';
import { addLaterVersion } from '../helpers/later-version.js';

let miniflare: Miniflare;
let db: D1DatabaseLike;
let made = 0;
const fresh = (what: string): string => `${what}_${(made += 1)}`;
const recordOf = async (table: string) => (await db.prepare('SELECT component, version FROM payorch_schema WHERE table_name = ?').bind(table).all()).results;

beforeAll(async () => {
  miniflare = new Miniflare({ modules: true, script: D1_WORKER, compatibilityDate: '2025-09-01', d1Databases: { DB: 'versions' } });
  db = d1At(await miniflare.ready);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

describe('the D1 inbox table', () => {
  test('created, it records version 1; created again, nothing changes', async () => {
    const table = fresh('inbox');
    expect(await createD1InboxTable({ db, table })).toEqual({ table: `"${table}"`, from: undefined, to: 1 });
    expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 1 }]);
    expect(await createD1InboxTable({ db, table })).toEqual({ table: `"${table}"`, from: 1, to: 1 });
  });

  test('of version 1, after an upgrade to a payorch with a version 3 (this test\'s own; 2 is retired), is refused by the inbox until migrated, then migrated once by two calls at once, keeping its keys', async () => {
    const table = fresh('inbox');
    await createD1InboxTable({ db, table });
    // Applied before the upgrade. Not through an inbox: this process's inboxes remember the table as checked.
    await db.prepare(`INSERT INTO "${table}" VALUES ('shop', 'MAN-d1v00001-1763812000', 'completed', 1763812000, 1)`).run();
    const key = { merchantId: 'shop', trackingCode: 'MAN-d1v00001-1763812000', status: 'completed' };
    const takeBack = addLaterVersion({ versions: SQLITE_INBOX_VERSIONS, retired: SQLITE_INBOX_RETIRED }, 'TEXT');
    try {
      const refused = await createD1Inbox({ db, table }).process({ ...key, status: 'failed' }, () => Promise.resolve()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InboxError);
      expect((refused as Error).message).toBe(
        `payorch/d1: "${table}" (the inbox table of payorch/d1) is at version 1, and this payorch uses version 3: migrate it in place, keeping its rows, with createD1InboxTable({ db }), or the SQL \`payorch migrate d1-inbox --from <its version>\` prints, as a wrangler migration (docs/inboxes.md, "Upgrading")`,
      );
      const results = await Promise.all([createD1InboxTable({ db, table }), createD1InboxTable({ db, table })]);
      expect(results.map((result) => result.from).sort()).toEqual([1, 3]);
      expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 3 }]);
      expect(await createD1Inbox({ db, table }).process(key, () => Promise.reject(new Error('applied twice')))).toBe('duplicate');
    } finally {
      takeBack();
    }
  });

  test('of a later version, of a number only pre-release builds recorded, changed by hand, or of a shape no release made (the merchant in account), is refused by the inbox and by createD1InboxTable with an InboxError naming the versions', async () => {
    const [later, retired, altered, unreleased] = [fresh('inbox'), fresh('inbox'), fresh('inbox'), fresh('inbox')];
    await createD1InboxTable({ db, table: later });
    await db.prepare('UPDATE payorch_schema SET version = 5 WHERE table_name = ?').bind(later).run();
    await createD1InboxTable({ db, table: retired });
    await db.prepare('UPDATE payorch_schema SET version = 2 WHERE table_name = ?').bind(retired).run();
    await db.prepare(`CREATE TABLE "${altered}" (merchant_id TEXT NOT NULL, tracking_code TEXT NOT NULL, status TEXT NOT NULL, record_time INTEGER NOT NULL, applied_at INTEGER NOT NULL, note TEXT NOT NULL, PRIMARY KEY (merchant_id, tracking_code, status))`).run();
    await db.prepare(`CREATE TABLE "${unreleased}" (account TEXT NOT NULL, tracking_code TEXT NOT NULL, status TEXT NOT NULL, record_time INTEGER NOT NULL, applied_at INTEGER NOT NULL, PRIMARY KEY (account, tracking_code, status))`).run();
    for (const [table, message] of [
      [later, 'is at version 5, which a later payorch migrated it to; this payorch knows version 1.'],
      [retired, 'is recorded at version 2, a number only builds before the first release recorded'],
      [altered, 'matches no version payorch made (version 1; beside version 1, it has "note TEXT NOT NULL")'],
      [unreleased, 'matches no version payorch made (version 1; beside version 1, it has "account TEXT NOT NULL"'],
    ] as const) {
      const key = { merchantId: 'shop', trackingCode: `MAN-${table}-1763812000`, status: 'completed' };
      for (const refused of [() => createD1InboxTable({ db, table }), () => createD1Inbox({ db, table }).process(key, () => Promise.reject(new Error('applied')))]) {
        const error = await refused().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(InboxError);
        expect((error as Error).message).toContain(message);
      }
    }
  });
});

test('beside a payorch_schema of the user\'s own, of other columns, the D1 inbox and dead letters\' tables are refused with an InboxError or QueueError naming it, never D1\'s error', async () => {
  const own = new Miniflare({ modules: true, script: D1_WORKER, compatibilityDate: '2025-09-01', d1Databases: { DB: 'own-schema' } });
  try {
    const ownDb = d1At(await own.ready);
    await ownDb.prepare('CREATE TABLE payorch_schema (table_name TEXT PRIMARY KEY, version INTEGER)').run();
    const lacks = 'the payorch_schema beside it is not payorch\'s (it lacks "component TEXT"), and payorch records its tables\' versions there';
    const key = { merchantId: 'shop', trackingCode: 'MAN-d1own001-1763812000', status: 'completed' };
    for (const refused of [() => createD1InboxTable({ db: ownDb }), () => createD1Inbox({ db: ownDb }).process(key, () => Promise.reject(new Error('applied')))]) {
      const error = await refused().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InboxError);
      expect((error as Error).message).toContain(lacks);
    }
    const deadLetters = await createD1DeadLettersTable({ db: ownDb }).catch((caught: unknown) => caught);
    expect(deadLetters).toBeInstanceOf(QueueError);
    expect((deadLetters as Error).message).toContain(lacks);
  } finally {
    await own.dispose();
  }
}, 60_000);

describe('the dead letters\' D1 table of payorch/cloudflare-queues', () => {
  const queue = { send: () => Promise.reject(new Error('sent')), sendBatch: () => Promise.reject(new Error('sent')) };

  test('created, it records version 1; of a later version or changed by hand, it is refused with a QueueError naming the versions', async () => {
    const [table, later, altered] = [fresh('dead'), fresh('dead'), fresh('dead')];
    expect(await createD1DeadLettersTable({ db, table })).toEqual({ table: `"${table}"`, from: undefined, to: 1 });
    expect(await createCloudflareQueue({ db, queue, table }).deadLetters.list()).toEqual({ deadLetters: [] });
    await createD1DeadLettersTable({ db, table: later });
    await db.prepare('UPDATE payorch_schema SET version = 5 WHERE table_name = ?').bind(later).run();
    await createD1DeadLettersTable({ db, table: altered });
    await db.prepare(`ALTER TABLE "${altered}" ADD COLUMN note TEXT NOT NULL DEFAULT ''`).run();
    for (const [name, message] of [
      [later, 'is at version 5, which a later payorch migrated it to; this payorch knows version 1.'],
      [altered, 'is recorded at version 1, but its columns are not that version\'s (it has "note TEXT NOT NULL")'],
    ] as const) {
      for (const refused of [() => createD1DeadLettersTable({ db, table: name }), () => createCloudflareQueue({ db, queue, table: name }).deadLetters.list()]) {
        const error = await refused().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(QueueError);
        expect((error as Error).message).toContain(message);
        expect((error as Error).message).toContain('(docs/deferred.md, "Upgrading the dead letters\' table")');
      }
    }
  });

  test('of version 1, after an upgrade to a payorch with a version 3 (this test\'s own; 2 is retired), is migrated in place, keeping its dead letters', async () => {
    const table = fresh('dead');
    await createD1DeadLettersTable({ db, table });
    await db.prepare(`INSERT INTO "${table}" (id, job, attempts, last_error, failed_at, dead_at) VALUES ('kept', '{}', 3, 'Error: down', 1, 1)`).run();
    const takeBack = addLaterVersion(D1_DEAD_LETTERS_TABLE, 'TEXT');
    try {
      expect(await createD1DeadLettersTable({ db, table })).toMatchObject({ from: 1, to: 3 });
      expect((await db.prepare(`SELECT id, attempts, history, note FROM "${table}"`).all()).results).toEqual([{ id: 'kept', attempts: 3, history: null, note: null }]);
    } finally {
      takeBack();
    }
  });
});
