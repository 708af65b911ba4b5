// The versions of the D1 tables (docs/inboxes.md, "Upgrading"; docs/deferred.md): created and
// recorded, migrated in place by createD1InboxTable keeping every key (once, when two run at
// once), refused when later or changed by hand, on a real D1 (in workerd, its statements sent over HTTP).
// The cases every inbox meets, D1's and the Durable Object's in workerd: inbox-contract.test.ts.
import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InboxError, QueueError } from '../../src/index.js';
import { createD1Inbox, createD1InboxTable } from '../../src/inboxes/d1/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { createCloudflareQueue, createD1DeadLettersTable } from '../../src/queues/cloudflare-queues/index.js';
import { D1_WORKER, d1At } from '../helpers/d1-over-http.js';

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
  test('of version 1 (no history) is migrated in place, keeping its dead letters', async () => {
    const table = fresh('dead');
    await createD1DeadLettersTable({ db, table });
    await db.prepare(`ALTER TABLE "${table}" DROP COLUMN history`).run();
    await db.prepare('UPDATE payorch_schema SET version = 1 WHERE table_name = ?').bind(table).run();
    await db.prepare(`INSERT INTO "${table}" (id, job, attempts, last_error, failed_at, dead_at) VALUES ('kept', '{}', 3, 'Error: down', 1, 1)`).run();
    expect(await createD1DeadLettersTable({ db, table })).toMatchObject({ from: 1, to: 2 });
    expect((await db.prepare(`SELECT id, attempts, history FROM "${table}"`).all()).results).toEqual([{ id: 'kept', attempts: 3, history: null }]);
  });

  test('created, it records version 2; created again, nothing changes', async () => {
    const table = fresh('inbox');
    expect(await createD1InboxTable({ db, table })).toEqual({ table: `"${table}"`, from: undefined, to: 2 });
    expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 2 }]);
    expect(await createD1InboxTable({ db, table })).toEqual({ table: `"${table}"`, from: 2, to: 2 });
  });

  test('of version 1 is refused by the inbox until migrated, then migrated once by two calls at once, keeping its keys', async () => {
    const table = fresh('inbox');
    await db.batch([
      db.prepare(`CREATE TABLE "${table}" (account TEXT NOT NULL, tracking_code TEXT NOT NULL, status TEXT NOT NULL, record_time INTEGER NOT NULL, applied_at INTEGER NOT NULL, PRIMARY KEY (account, tracking_code, status))`),
      db.prepare(`INSERT INTO "${table}" VALUES ('shop', 'MAN-d1v00001-1763812000', 'completed', 1763812000, 1)`),
    ]);
    const key = { merchantId: 'shop', trackingCode: 'MAN-d1v00001-1763812000', status: 'completed' };
    const refused = await createD1Inbox({ db, table }).process(key, () => Promise.resolve()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InboxError);
    expect((refused as Error).message).toBe(
      `payorch/d1: "${table}" (the inbox table of payorch/d1) is at version 1, and this payorch uses version 2: migrate it in place, keeping its rows, with createD1InboxTable({ db }), or the SQL \`payorch migrate d1-inbox --from <its version>\` prints, as a wrangler migration (docs/inboxes.md, "Upgrading")`,
    );
    const results = await Promise.all([createD1InboxTable({ db, table }), createD1InboxTable({ db, table })]);
    expect(results.map((result) => result.from).sort()).toEqual([1, 2]);
    expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 2 }]);
    expect(await createD1Inbox({ db, table }).process(key, () => Promise.reject(new Error('applied twice')))).toBe('duplicate');
  });

  test('of a later version, or changed by hand, is refused by the inbox and by createD1InboxTable with an InboxError naming the versions', async () => {
    const [later, altered] = [fresh('inbox'), fresh('inbox')];
    await createD1InboxTable({ db, table: later });
    await db.prepare('UPDATE payorch_schema SET version = 3 WHERE table_name = ?').bind(later).run();
    await db.prepare(`CREATE TABLE "${altered}" (merchant_id TEXT NOT NULL, tracking_code TEXT NOT NULL, status TEXT NOT NULL, record_time INTEGER NOT NULL, applied_at INTEGER NOT NULL, note TEXT NOT NULL, PRIMARY KEY (merchant_id, tracking_code, status))`).run();
    for (const [table, message] of [
      [later, 'is at version 3, which a later payorch migrated it to; this payorch knows versions 1 to 2.'],
      [altered, 'matches no version payorch made (versions 1 to 2; beside version 2, it has "note TEXT NOT NULL")'],
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

describe('the dead letters\' D1 table of payorch/cloudflare-queues', () => {
  const queue = { send: () => Promise.reject(new Error('sent')), sendBatch: () => Promise.reject(new Error('sent')) };

  test('created, it records version 2; of a later version or changed by hand, it is refused with a QueueError naming the versions', async () => {
    const [table, later, altered] = [fresh('dead'), fresh('dead'), fresh('dead')];
    expect(await createD1DeadLettersTable({ db, table })).toEqual({ table: `"${table}"`, from: undefined, to: 2 });
    expect(await createCloudflareQueue({ db, queue, table }).deadLetters.list()).toEqual({ deadLetters: [] });
    await createD1DeadLettersTable({ db, table: later });
    await db.prepare('UPDATE payorch_schema SET version = 3 WHERE table_name = ?').bind(later).run();
    await createD1DeadLettersTable({ db, table: altered });
    await db.prepare(`ALTER TABLE "${altered}" ADD COLUMN note TEXT NOT NULL DEFAULT ''`).run();
    for (const [name, message] of [
      [later, 'is at version 3, which a later payorch migrated it to; this payorch knows versions 1 to 2.'],
      [altered, 'is recorded at version 2, but its columns are not that version\'s (it has "note TEXT NOT NULL")'],
    ] as const) {
      for (const refused of [() => createD1DeadLettersTable({ db, table: name }), () => createCloudflareQueue({ db, queue, table: name }).deadLetters.list()]) {
        const error = await refused().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(QueueError);
        expect((error as Error).message).toContain(message);
        expect((error as Error).message).toContain('(docs/deferred.md, "Upgrading the dead letters\' table")');
      }
    }
  });
});
