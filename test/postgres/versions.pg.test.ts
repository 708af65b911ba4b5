// The versions of payorch's PostgreSQL tables (docs/inboxes.md, "Upgrading"; docs/deferred.md):
// version 1 recorded in payorch_schema when created, checked on first use; a later version, a shape
// of no version (one from before the first release included), or a table changed by hand, refused.
// Migration, in place keeping every key and dead letter, once however many instances start at once,
// directly and behind PgBouncer in transaction pooling, is proved with a later version that exists only
// in these tests (test/helpers/later-version.ts). Against a real server.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createCallbackReceiver, signCallback } from '../../src/index.js';
import type { CallbackErrorDetails } from '../../src/index.js';
import { InboxError, createPostgresInbox, createPostgresInboxTable, postgresInboxTableSql, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { QueueError, createPgBossDeadLetterTable, createPgBossQueue, pgBossDeadLetterTableSql } from '../../src/queues/pg-boss/index.js';
import { PGBOSS_DEAD_LETTER_TABLE } from '../../src/queues/pg-boss/dead-letter-table.js';
import type { PgBossLike } from '../../src/queues/pg-boss/index.js';
import { createDeadLetterTable, deadLetterTable } from '../../src/postgres/dead-letter-table.js';
import { POSTGRES_INBOX_TABLE } from '../../src/inboxes/postgres/table.js';
import { addLaterVersion } from '../helpers/later-version.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver, serveNode } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';
import { startBouncer } from './bouncer.js';
import type { Bouncer } from './bouncer.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const schema = `versions_${process.pid}`;
// Named, so that the keys seeded before an upgrade are the receiver's own.
const MERCHANT = 'versions-merchant';
const pools: pg.Pool[] = [];
const served: Served[] = [];
let bouncer: Bouncer | undefined;
let admin: pg.Pool;
let made = 0;

function pool(url = inject('postgresUrl'), max = 4): pg.Pool {
  const created = new pg.Pool({ connectionString: url, max, options: `-c search_path=${schema}` });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

const fresh = (what: string): string => `${what}_${(made += 1)}`;

// The inbox at version 1, made by this payorch, holding `keys` applied keys of MERCHANT.
async function inboxOfVersion1(table: string, keys: number): Promise<void> {
  await createPostgresInboxTable({ pool: pool(), table });
  await admin.query(`INSERT INTO ${table} (merchant_id, tracking_code, statuses, record_time) SELECT $1, 'MAN-old' || lpad(n::text, 4, '0') || '-1763812000', ARRAY['completed'], 1763812000 FROM generate_series(1, $2) AS n`, [MERCHANT, keys]);
}

// Runs `test` after an upgrade to a payorch whose inbox table has a version 3 (this file's only; 2 is retired).
async function upgraded(test: () => Promise<void>): Promise<void> {
  const takeBack = addLaterVersion(POSTGRES_INBOX_TABLE, 'text');
  try {
    await test();
  } finally {
    takeBack();
  }
}

const recordOf = async (table: string) => (await admin.query<{ component: string; version: number }>('SELECT component, version FROM payorch_schema WHERE table_name = $1', [table])).rows;

async function receiverOn(table: string, merchant: { readonly merchantId?: string } = { merchantId: MERCHANT }) {
  const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
  const handler = vi.fn();
  const receiver = createCallbackReceiver<Context>({ ...PROVIDER, ...merchant, inbox: createPostgresInbox({ pool: pool(), table }), onError: (error, details) => void errors.push({ error, details }) });
  receiver.on('*', handler);
  const instance = await serveNode(receiver.nodeHandler);
  served.push(instance);
  return { url: instance.url, errors, handler };
}

const deposit = (trackingCode: string) => signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);

beforeAll(async () => {
  admin = pool(inject('postgresUrl'), 1);
  await admin.query(`CREATE SCHEMA ${schema}`);
});
afterAll(async () => {
  await Promise.all(served.map((each) => each.close()));
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await Promise.all(pools.map((each) => each.end()));
  await bouncer?.stop();
});

describe('the PostgreSQL inbox table', () => {
  test('created, it records version 1 in payorch_schema; created again, nothing changes', async () => {
    const table = fresh('inbox');
    expect(await createPostgresInboxTable({ pool: pool(), table })).toEqual({ table: `"${schema}"."${table}"`, from: undefined, to: 1 });
    const [first] = (await admin.query<{ component: string; version: number; migrated_at: Date }>('SELECT component, version, migrated_at FROM payorch_schema WHERE table_name = $1', [table])).rows;
    expect(first).toMatchObject({ component: 'callback-inbox', version: 1 });
    expect(await createPostgresInboxTable({ pool: pool(), table })).toEqual({ table: `"${schema}"."${table}"`, from: 1, to: 1 });
    expect((await admin.query('SELECT migrated_at FROM payorch_schema WHERE table_name = $1', [table])).rows).toEqual([{ migrated_at: first?.migrated_at }]);
  });

  test('made by its SQL in a migration tool, it is recorded the same way', async () => {
    const table = fresh('inbox');
    await admin.query(postgresInboxTableSql(table));
    expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 1 }]);
    expect(await createPostgresInboxTable({ pool: pool(), table })).toMatchObject({ from: 1, to: 1 });
  });

  test('of a later version is refused by the inbox and by createPostgresInboxTable with an InboxError naming the versions, and left as it is', async () => {
    const table = fresh('inbox');
    await createPostgresInboxTable({ pool: pool(), table });
    await admin.query('UPDATE payorch_schema SET version = 5 WHERE table_name = $1', [table]);
    await admin.query(`ALTER TABLE ${table} ADD COLUMN reason text NOT NULL DEFAULT ''`);
    const message = `payorch/postgres: "${schema}"."${table}" (the inbox table of payorch/postgres) is at version 5, which a later payorch migrated it to; this payorch knows version 1. Run a payorch that knows version 5 or later: no payorch migrates a table back (docs/inboxes.md, "Upgrading")`;
    const error = await createPostgresInboxTable({ pool: pool(), table }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InboxError);
    expect((error as Error).message).toBe(message);
    const { url, handler, errors } = await receiverOn(table);
    expect(await deliver(url, deposit('MAN-later001-1763812000'))).toMatchObject({ status: 500 });
    expect((errors[0]?.error as Error).message).toBe(message);
    expect(handler).not.toHaveBeenCalled();
    expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 5 }]);
  });

  test('recorded at 2, a number only a build before the first release recorded (its keys the raw API key), is refused by the inbox and by createPostgresInboxTable, left as it is', async () => {
    const table = fresh('inbox');
    await createPostgresInboxTable({ pool: pool(), table });
    await admin.query('UPDATE payorch_schema SET version = 2 WHERE table_name = $1', [table]);
    const message = `payorch/postgres: "${schema}"."${table}" (the inbox table of payorch/postgres) is recorded at version 2, a number only builds before the first release recorded. Made by a build before the first release? Its keys are under the raw API key: run the guide's statements, since its columns renamed alone would apply its payments again (docs/inboxes.md, "Upgrading")`;
    await expect(createPostgresInboxTable({ pool: pool(), table })).rejects.toThrow(message);
    const { url, handler, errors } = await receiverOn(table);
    expect(await deliver(url, deposit('MAN-retired1-1763812000'))).toMatchObject({ status: 500 });
    expect((errors[0]?.error as Error).message).toBe(message);
    expect(handler).not.toHaveBeenCalled();
    expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 2 }]);
  });

  test('with one more NOT NULL column and no record is refused with an InboxError, not the driver\'s error, naming the column', async () => {
    const table = fresh('inbox');
    await admin.query(`CREATE TABLE ${table} (merchant_id text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), reason text NOT NULL, PRIMARY KEY (merchant_id, tracking_code))`);
    const { url, handler, errors } = await receiverOn(table);
    expect(await deliver(url, deposit('MAN-hand0001-1763812000'))).toMatchObject({ status: 500 });
    expect(errors[0]?.error).toBeInstanceOf(InboxError);
    expect((errors[0]?.error as Error).message).toContain('matches no version payorch made (version 1; beside version 1, it has "reason text NOT NULL"): changed by hand');
    expect(handler).not.toHaveBeenCalled();
    await expect(createPostgresInboxTable({ pool: pool(), table })).rejects.toThrow(InboxError);
    expect(await recordOf(table)).toEqual([]);
  });

  test('of a shape no release made (a build before the first kept the merchant in account) is refused by the inbox and by createPostgresInboxTable, never answered 200', async () => {
    const table = fresh('inbox');
    await admin.query(`CREATE TABLE ${table} (account text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code))`);
    await admin.query(`INSERT INTO ${table} (account, tracking_code, statuses, record_time) VALUES ($1, 'MAN-acct0001-1763812000', ARRAY['completed'], 1763812000)`, [MERCHANT]);
    const { url, handler, errors } = await receiverOn(table);
    expect(await deliver(url, deposit('MAN-acct0001-1763812000'))).toMatchObject({ status: 500 });
    expect(errors[0]?.error).toBeInstanceOf(InboxError);
    expect((errors[0]?.error as Error).message).toContain('matches no version payorch made (version 1; beside version 1, it has "account text NOT NULL", "PRIMARY KEY (account, tracking_code)" and lacks "merchant_id text NOT NULL", "PRIMARY KEY (merchant_id, tracking_code)"): changed by hand, or made by a build before the first release');
    expect(handler).not.toHaveBeenCalled();
    await expect(createPostgresInboxTable({ pool: pool(), table })).rejects.toThrow(InboxError);
    expect(await recordOf(table)).toEqual([]);
  });

  test('of a pre-release build, its keys under the raw API key, keeps them through the guide\'s statements: a redelivery is a duplicate', async () => {
    const [renamed, recorded] = [fresh('inbox'), fresh('inbox')];
    // The merchant in `account`, unrecorded; and the merchant_id shape recorded at 2.
    await admin.query(`CREATE TABLE ${renamed} (account text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code))`);
    await admin.query(`INSERT INTO ${renamed} VALUES ($1, 'MAN-pre00001-1763812000', ARRAY['completed'], 1763812000, now())`, [PROVIDER.apiKey]);
    await createPostgresInboxTable({ pool: pool(), table: recorded });
    await admin.query('UPDATE payorch_schema SET version = 2 WHERE table_name = $1', [recorded]);
    await admin.query(`INSERT INTO ${recorded} VALUES ($1, 'MAN-pre00002-1763812000', ARRAY['completed'], 1763812000, now())`, [PROVIDER.apiKey]);
    // The guide's own statements and digest line, as a reader runs them: each `-- if …` statement
    // where it applies, the names replaced by this table's and this key's.
    const guide = readFileSync(new URL('../../docs/inboxes.md', import.meta.url), 'utf8');
    const block = /A pre-release build's table[\s\S]*?```sql\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    const line = /node -p "(.+)" "\$API_KEY"/.exec(block)?.[1];
    expect(line).toBeDefined();
    const digest = execFileSync(process.execPath, ['-p', line ?? '', PROVIDER.apiKey], { encoding: 'utf8' }).trim();
    expect(digest).toMatch(/^payorch-ak1-[0-9a-f]{32}$/);
    const statements = block.split('\n').filter((each) => each.trim() !== '' && !each.startsWith('--'));
    expect(statements).toHaveLength(3);
    for (const table of [renamed, recorded]) {
      for (const statement of statements) {
        if (statement.includes('-- if it has `account`') && table !== renamed) continue;
        if (statement.includes('-- if recorded at 2') && table !== recorded) continue;
        await admin.query(statement.replaceAll('payorch_callback_inbox', table).replace('<the digest>', digest).replace('<the API key>', PROVIDER.apiKey));
      }
      expect(await createPostgresInboxTable({ pool: pool(), table })).toMatchObject({ from: 1, to: 1 });
    }
    // A receiver that names no merchant, and one that names its API key, look keys up alike.
    for (const [table, code, merchant] of [[renamed, 'MAN-pre00001-1763812000', {}], [recorded, 'MAN-pre00002-1763812000', { merchantId: PROVIDER.apiKey }]] as const) {
      const { url, handler, errors } = await receiverOn(table, merchant);
      expect(await deliver(url, deposit(code))).toEqual({ status: 200, body: { success: true } });
      expect(handler).not.toHaveBeenCalled();
      expect(errors).toEqual([]);
    }
  });

  test('beside a payorch_schema of the user\'s own, of other columns, is refused by the inbox, by createPostgresInboxTable and by the dead letters\' table with an InboxError or QueueError naming it, never the driver\'s error nor a 200', async () => {
    const own = `${schema}_own`;
    await admin.query(`CREATE SCHEMA ${own}`);
    try {
      const inSchema = (options: { readonly table: string }) => ({ pool: pool(), schema: own, ...options });
      await admin.query(`CREATE TABLE ${own}.payorch_schema (table_name text PRIMARY KEY, version integer)`);
      await admin.query(`INSERT INTO ${own}.payorch_schema VALUES ('payorch_callback_inbox', 1)`);
      const lacks = `the payorch_schema beside it is not payorch's (it lacks "component text"), and payorch records its tables' versions there. Rename that table, or give payorch's tables a schema (or database) of their own`;
      const created = await createPostgresInboxTable(inSchema({ table: 'payorch_callback_inbox' })).catch((error: unknown) => error);
      expect(created).toBeInstanceOf(InboxError);
      expect((created as Error).message).toBe(`payorch/postgres: "${own}"."payorch_callback_inbox" (the inbox table of payorch/postgres) cannot be checked or created: ${lacks} (docs/inboxes.md, "Upgrading")`);
      const deadLetters = await createPgBossDeadLetterTable(inSchema({ table: 'payorch_dead_letters' })).catch((error: unknown) => error);
      expect(deadLetters).toBeInstanceOf(QueueError);
      expect((deadLetters as Error).message).toContain(lacks);
      // The inbox's own table made by its SQL, beside it.
      await admin.query(`CREATE TABLE ${own}.payorch_callback_inbox (merchant_id text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (merchant_id, tracking_code))`);
      const errors: unknown[] = [];
      const handler = vi.fn();
      const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox(inSchema({ table: 'payorch_callback_inbox' })), onError: (error) => void errors.push(error) });
      receiver.on('*', handler);
      const instance = await serveNode(receiver.nodeHandler);
      served.push(instance);
      expect(await deliver(instance.url, deposit('MAN-ownrec01-1763812000'))).toMatchObject({ status: 500 });
      expect(errors).toEqual([expect.any(InboxError)]);
      expect((errors[0] as Error).message).toContain(lacks);
      expect(handler).not.toHaveBeenCalled();
      // A version of another type is not payorch's either.
      await admin.query(`DROP TABLE ${own}.payorch_schema`);
      await admin.query(`CREATE TABLE ${own}.payorch_schema (table_name text PRIMARY KEY, component text, version text)`);
      await admin.query(`INSERT INTO ${own}.payorch_schema VALUES ('payorch_callback_inbox', 'callback-inbox', '1.0')`);
      await expect(createPostgresInboxTable(inSchema({ table: 'payorch_callback_inbox' }))).rejects.toThrow('(it lacks "version integer" or "version bigint" or "version smallint")');
      // Nor one without the key payorch records by (INSERT … ON CONFLICT (table_name)).
      await admin.query(`DROP TABLE ${own}.payorch_schema`);
      await admin.query(`CREATE TABLE ${own}.payorch_schema (table_name text NOT NULL, component text NOT NULL, version bigint NOT NULL)`);
      await expect(createPostgresInboxTable(inSchema({ table: 'payorch_callback_inbox' }))).rejects.toThrow('(it lacks "PRIMARY KEY (table_name)" or "UNIQUE (table_name)")');
    } finally {
      await admin.query(`DROP SCHEMA ${own} CASCADE`);
    }
  });

  test('recorded at its version but changed by hand since is refused, saying which columns differ', async () => {
    const table = fresh('inbox');
    await createPostgresInboxTable({ pool: pool(), table });
    await admin.query(`ALTER TABLE ${table} ALTER COLUMN record_time DROP NOT NULL`);
    await expect(createPostgresInboxTable({ pool: pool(), table })).rejects.toThrow('is recorded at version 1, but its columns are not that version\'s (it has "record_time bigint" and lacks "record_time bigint NOT NULL"): changed by hand?');
  });

  test('changed by hand after the inbox checked it is refused with an InboxError, and the next callback has it checked again', async () => {
    const table = fresh('inbox');
    await createPostgresInboxTable({ pool: pool(), table });
    const { url, handler, errors } = await receiverOn(table);
    expect(await deliver(url, deposit('MAN-late0001-1763812000'))).toEqual({ status: 200, body: { success: true } });
    await admin.query(`ALTER TABLE ${table} RENAME COLUMN statuses TO applied_statuses`);
    for (const code of ['MAN-late0002-1763812000', 'MAN-late0003-1763812000']) expect(await deliver(url, deposit(code))).toMatchObject({ status: 500 });
    expect(errors.map(({ error }) => error)).toEqual([expect.any(InboxError), expect.any(InboxError)]);
    expect((errors[0]?.error as Error).message).toContain('changed since this inbox checked it (by hand?), and nothing was applied; the next callback checks it again');
    expect((errors[1]?.error as Error).message).toContain('is recorded at version 1, but its columns are not that version\'s (it has "applied_statuses text[] NOT NULL" and lacks "statuses text[] NOT NULL")');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  test('changed by hand where its columns do not show it: without applied_at\'s default it still applies; a constraint that refuses the claim is an InboxError, never the driver\'s error nor a 200', async () => {
    const table = fresh('inbox');
    await createPostgresInboxTable({ pool: pool(), table });
    await admin.query(`ALTER TABLE ${table} ALTER COLUMN applied_at DROP DEFAULT`);
    const { url, handler, errors } = await receiverOn(table);
    expect(await deliver(url, deposit('MAN-dflt0001-1763812000'))).toEqual({ status: 200, body: { success: true } });
    expect(handler).toHaveBeenCalledTimes(1);
    await admin.query(`ALTER TABLE ${table} ADD CONSTRAINT by_hand CHECK (tracking_code NOT LIKE 'MAN-chk%')`);
    expect(await deliver(url, deposit('MAN-chk00001-1763812000'))).toMatchObject({ status: 500 });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(errors.map(({ error }) => error)).toEqual([expect.any(InboxError)]);
    expect((errors[0]?.error as Error).message).toBe(
      `payorch/postgres: "${schema}"."${table}" refused the claim of MAN-chk00001-1763812000 (completed) (new row for relation "${table}" violates check constraint "by_hand"): a constraint or trigger added by hand? Nothing was applied, so that it is delivered again`,
    );
    expect((errors[0]?.error as Error).cause).toBeInstanceOf(pg.DatabaseError);
  });

  test('missing, is refused with an InboxError naming the call that creates it', async () => {
    const { url, errors } = await receiverOn(fresh('inbox'));
    expect(await deliver(url, deposit('MAN-none0001-1763812000'))).toMatchObject({ status: 500 });
    expect(errors[0]?.error).toBeInstanceOf(InboxError);
    expect((errors[0]?.error as Error).message).toContain('does not exist: create it with createPostgresInboxTable({ pool }), or postgresInboxTableSql() in your migrations');
  });
});

describe('the PostgreSQL inbox table after an upgrade to a payorch with a version 3 (these tests\' own)', () => {
  test('of version 1, is migrated in place by two instances starting at once, once: every key stays a duplicate, and its tracking codes take new statuses', async () => {
    const table = fresh('inbox');
    await inboxOfVersion1(table, 500);
    await upgraded(async () => {
      const results = await Promise.all([createPostgresInboxTable({ pool: pool(), table }), createPostgresInboxTable({ pool: pool(), table })]);
      expect(results.map((result) => result.from).sort()).toEqual([1, 3]);
      expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 3 }]);
      expect((await admin.query(`SELECT count(*)::int AS n FROM ${table} WHERE merchant_id = $1 AND note IS NULL`, [MERCHANT])).rows).toEqual([{ n: 500 }]);
      const { url, handler, errors } = await receiverOn(table);
      for (const code of ['MAN-old0001-1763812000', 'MAN-old0500-1763812000']) expect(await deliver(url, deposit(code))).toEqual({ status: 200, body: { success: true } });
      expect(handler).not.toHaveBeenCalled();
      expect(await deliver(url, deposit('MAN-new0001-1763812000'))).toEqual({ status: 200, body: { success: true } });
      expect(handler).toHaveBeenCalledTimes(1);
      expect(errors).toEqual([]);
      // The prune works on the migrated table: these records are a year old.
      expect(await prunePostgresInbox({ pool: pool(), table })).toBe(501);
    });
  });

  test('of version 1, is refused by the inbox until migrated: answered 500, never 200, with an InboxError naming both versions and the way to migrate', async () => {
    const table = fresh('inbox');
    await inboxOfVersion1(table, 1);
    await upgraded(async () => {
      const { url, handler, errors } = await receiverOn(table);
      expect(await deliver(url, deposit('MAN-old0001-1763812000'))).toMatchObject({ status: 500 });
      expect(errors[0]?.error).toBeInstanceOf(InboxError);
      expect((errors[0]?.error as Error).message).toBe(
        `payorch/postgres: "${schema}"."${table}" (the inbox table of payorch/postgres) is at version 1, and this payorch uses version 3: migrate it in place, keeping its rows, with createPostgresInboxTable({ pool }) or \`payorch migrate postgres-inbox\` (docs/inboxes.md, "Upgrading")`,
      );
      await createPostgresInboxTable({ pool: pool(), table });
      expect(await deliver(url, deposit('MAN-old0001-1763812000'))).toEqual({ status: 200, body: { success: true } });
      expect(handler).not.toHaveBeenCalled();
    });
  });

  test('of version 1 behind PgBouncer in transaction pooling is migrated once by instances starting at once', async () => {
    const started = await startBouncer({ serverUrl: inject('postgresUrl'), poolMode: 'transaction', poolSize: 2 });
    bouncer = started;
    const table = fresh('inbox');
    await inboxOfVersion1(table, 3);
    await upgraded(async () => {
      // PgBouncer passes no search_path: the schema is named.
      const through = [pool(started.url), pool(started.url), pool(started.url)];
      const results = await Promise.all(through.map((each) => createPostgresInboxTable({ pool: each, table, schema })));
      expect(results.map((result) => result.from).sort()).toEqual([1, 3, 3]);
      expect(await recordOf(table)).toEqual([{ component: 'callback-inbox', version: 3 }]);
      expect((await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows).toEqual([{ n: 3 }]);
    });
  });
});

describe('the pg-boss dead letters\' table', () => {
  // The table is checked before pg-boss is touched: any call of this one fails the test.
  const untouched = (): never => {
    throw new Error('pg-boss was reached');
  };
  const boss: PgBossLike = { createQueue: untouched, updateQueue: untouched, getQueue: untouched, send: untouched, work: untouched, offWork: untouched };

  test('created, it records version 1; made by its SQL, the same', async () => {
    const [table, bySql] = [fresh('dead'), fresh('dead')];
    expect(await createPgBossDeadLetterTable({ pool: pool(), table })).toEqual({ table: `"${schema}"."${table}"`, from: undefined, to: 1 });
    await admin.query(pgBossDeadLetterTableSql(bySql));
    expect([...(await recordOf(table)), ...(await recordOf(bySql))]).toEqual([
      { component: 'dead-letters', version: 1 },
      { component: 'dead-letters', version: 1 },
    ]);
    expect(await createPgBossDeadLetterTable({ pool: pool(), table: bySql })).toMatchObject({ from: 1, to: 1 });
    expect(await createPgBossQueue({ boss, pool: pool(), table }).deadLetters.list()).toEqual({ deadLetters: [] });
  });

  test('of version 1, after an upgrade to a payorch with a version 4 (this test\'s own; 2 and 3 are retired), is refused by the queue until migrated, then migrated in place, its dead letters kept', async () => {
    const table = fresh('dead');
    await createPgBossDeadLetterTable({ pool: pool(), table });
    const job = { version: 2, merchantId: 'm', receivedAt: 1_763_812_000_000, kind: 'deposit', payload: { tracking_code: 'MAN-v1dead-1763812000', status: 'completed' } };
    await admin.query(`INSERT INTO ${table} (id, queue, job, attempts, last_error) VALUES ('dead-1', 'payorch-callbacks', $1, 3, 'Error: down')`, [JSON.stringify(job)]);
    const takeBack = addLaterVersion(PGBOSS_DEAD_LETTER_TABLE, 'text');
    try {
      const refused = await createPgBossQueue({ boss, pool: pool(), table }).deadLetters.list().catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(QueueError);
      expect((refused as Error).message).toContain('is at version 1, and this payorch uses version 4: migrate it in place, keeping its rows, with createPgBossDeadLetterTable({ pool }) or `payorch migrate pg-boss-dead-letters`');
      expect(await createPgBossDeadLetterTable({ pool: pool(), table })).toMatchObject({ from: 1, to: 4 });
      const kept = await admin.query<{ job: string; note: string | null }>(`SELECT job, note FROM ${table} WHERE id = 'dead-1'`);
      expect(kept.rows.map((row) => ({ job: JSON.parse(row.job) as unknown, note: row.note }))).toEqual([{ job, note: null }]);
    } finally {
      takeBack();
    }
  });

  test('of a later version, changed by hand, holding an inbox or another engine\'s dead letters is refused with a QueueError naming the versions, by the queue and by createPgBossDeadLetterTable', async () => {
    const [later, retired, altered, inbox, other] = [fresh('dead'), fresh('dead'), fresh('dead'), fresh('dead'), fresh('dead')];
    // Another PostgreSQL queue's: pg-boss must not list its dead letters, nor replay them into pg-boss.
    const otherEngine = deadLetterTable({ adapter: 'payorch/other', component: 'other-dead-letters', migrate: 'createOtherDeadLetterTable({ pool })', guide: 'docs/deferred.md' });
    expect(await createDeadLetterTable('createOtherDeadLetterTable', otherEngine, { pool: pool(), table: other })).toMatchObject({ from: undefined, to: 1 });
    await createPgBossDeadLetterTable({ pool: pool(), table: later });
    await admin.query('UPDATE payorch_schema SET version = 5 WHERE table_name = $1', [later]);
    await createPgBossDeadLetterTable({ pool: pool(), table: retired });
    await admin.query('UPDATE payorch_schema SET version = 3 WHERE table_name = $1', [retired]);
    await createPgBossDeadLetterTable({ pool: pool(), table: altered });
    await admin.query(`ALTER TABLE ${altered} ALTER COLUMN job TYPE jsonb USING job::jsonb`);
    await createPostgresInboxTable({ pool: pool(), table: inbox });
    for (const [table, message] of [
      [later, 'is at version 5, which a later payorch migrated it to; this payorch knows version 1.'],
      [retired, 'is recorded at version 3, a number only builds before the first release recorded. Made by a build before the first release? Its jobs are of another form: replay or purge them with that build'],
      [altered, 'is recorded at version 1, but its columns are not that version\'s (it has "job jsonb NOT NULL" and lacks "job text NOT NULL")'],
      [inbox, 'holds callback-inbox, as payorch_schema records, not dead-letters'],
      [other, 'holds other-dead-letters, as payorch_schema records, not dead-letters'],
    ] as const) {
      const queue = createPgBossQueue({ boss, pool: pool(), table });
      for (const refused of [() => createPgBossDeadLetterTable({ pool: pool(), table }), () => queue.deadLetters.list(), () => queue.work({ apply: () => Promise.resolve() })]) {
        const error = await refused().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(QueueError);
        expect((error as Error).message).toContain(message);
        expect((error as Error).message).toContain('(docs/deferred.md, "Upgrading the dead letters\' table")');
      }
    }
    // Its own engine's refusal names that engine's adapter, not pg-boss.
    const refused = await createDeadLetterTable('createOtherDeadLetterTable', otherEngine, { pool: pool(), table: inbox }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(QueueError);
    expect((refused as Error).message).toMatch(/^payorch\/other: .*holds callback-inbox, as payorch_schema records, not other-dead-letters/);
  });
});
