import { Miniflare } from '../helpers/miniflare.js';
import type { Request as WorkerRequest } from '../helpers/miniflare.js';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { CallbackRetentionError, InboxError, signCallback } from '../../src/index.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome } from '../../src/index.js';
import { d1InboxTableSql } from '../../src/inboxes/d1/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { inboxContract } from '../../src/testing/index.js';
import type { InboxContractStore, InboxContractVersions } from '../../src/testing/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { bundleWorker } from '../helpers/worker-bundle.js';
import { RUN_D1, d1At } from '../helpers/d1-over-http.js';
import { PROVIDER } from '../helpers/wire.js';

// The inbox contract against the D1 and Durable Object inboxes as they run: in workerd
// (miniflare), bundled from dist/ as wrangler would. Each `process` is its own request to
// workerd, so the cases' races are requests racing on one database or one object, as two
// Workers' would. The handlers stay in the test: the inbox's `apply` calls back over HTTP
// (miniflare's outboundService), so what they see is what the inbox handed them in workerd. A
// handler of the test that asks to spoil the commit has the Worker make a write of its backend
// that cannot commit, and swallow nothing: the D1 batch or the object's transaction then fails.
const worker = `
import { createCallbackReceiver } from 'payorch';
import { createD1Inbox, createD1InboxTable, pruneD1Inbox } from 'payorch/d1';
import { createDurableObjectInbox, pruneDurableObjectInbox } from 'payorch/durable-object';

async function applyInTest(applyUrl, context, spoil) {
  const { key, appliedStatuses } = context;
  const response = await fetch(applyUrl, { method: 'POST', body: JSON.stringify({ key, appliedStatuses }) });
  const text = await response.text();
  if (!response.ok) throw new Error(text);
  if (text === 'spoil') spoil(context);
}
async function run(inbox, { key, applyUrl }, spoil) {
  try {
    return Response.json({ outcome: await inbox.process(key, (context) => applyInTest(applyUrl, context, spoil)) });
  } catch (error) {
    return Response.json({ name: error.name, message: error.message, recordTime: error.recordTime, horizon: error.horizon }, { status: 500 });
  }
}

export class Account {
  constructor(state) {
    this.state = state;
  }
  async fetch(request) {
    const body = await request.json();
    if (body.op === 'later-version') return Response.json(globalThis.payorchLaterVersion[body.action]() ?? {});
    if (body.op === 'prune') return Response.json({ deleted: await pruneDurableObjectInbox({ storage: this.state.storage, table: body.table, olderThanSeconds: body.olderThanSeconds }) });
    if (body.op === 'exec') return Response.json({ results: body.statements.map(([query, ...bindings]) => this.state.storage.sql.exec(query, ...bindings).toArray()) });
    // A row whose parent is missing, under a deferred foreign key: the transaction cannot commit.
    return run(createDurableObjectInbox({ storage: this.state.storage, table: body.table }), body, ({ storage }) => {
      storage.sql.exec('CREATE TABLE IF NOT EXISTS spoil_parent (id INTEGER PRIMARY KEY)');
      storage.sql.exec('CREATE TABLE IF NOT EXISTS spoil_child (parent INTEGER REFERENCES spoil_parent (id) DEFERRABLE INITIALLY DEFERRED)');
      storage.sql.exec('INSERT INTO spoil_child (parent) VALUES (1)');
    });
  }
}

// A receiver on D1 with the guide's refund-once handler; the refund is a statement of the batch.
// A deposit is credited into a table the test creates late, as a migration not yet run. What
// onError hears goes to the test.
const unpaid = (status) => status === 'rejected' || status === 'failed' || status === 'canceled';
function receiverOf(env, ctx) {
  const onError = (error, { phase }) => ctx.waitUntil(fetch('http://handlers.test/errors', { method: 'POST', body: JSON.stringify({ name: error.name, phase }) }));
  const receiver = createCallbackReceiver({ apiKey: env.API_KEY, secretKey: env.SECRET_KEY, inbox: createD1Inbox({ db: env.DB }), onError });
  receiver.on('deposit.completed', (callback, { db, statements }) => {
    statements.push(db.prepare('INSERT INTO credits (tracking_code, amount) VALUES (?, ?)').bind(callback.payload.tracking_code, callback.payload.amount));
  });
  receiver.on('withdrawal', async (callback, { appliedStatuses, db, statements }) => {
    if (!unpaid(callback.payload.status) || appliedStatuses.some(unpaid)) return;
    // An outside call: the other status arrives meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    statements.push(db.prepare('INSERT INTO refunds (tracking_code, status) VALUES (?, ?)').bind(callback.payload.tracking_code, callback.payload.status));
  });
  return receiver;
}
${RUN_D1}
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/webhooks') return receiverOf(env, ctx).handle(request);
    // D1 for the test to read and write (test/helpers/d1-over-http.ts).
    if (new URL(request.url).pathname === '/d1') return runD1(env.DB, request);
    const body = await request.clone().json();
    // The test-only later version of the inbox table, given or taken back here and in the object.
    if (body.op === 'later-version') globalThis.payorchLaterVersion[body.action]();
    if (body.backend === 'durable-object') return env.ACCOUNTS.get(env.ACCOUNTS.idFromName(body.table)).fetch(request);
    if (body.op === 'later-version') return Response.json({});
    if (body.op === 'create') return Response.json(await createD1InboxTable({ db: env.DB, table: body.table }));
    if (body.op === 'exec') return Response.json({ results: (await env.DB.batch(body.statements.map(([query, ...bindings]) => env.DB.prepare(query).bind(...bindings)))).map((result) => result.results) });
    if (body.op === 'prune') return Response.json({ deleted: await pruneD1Inbox({ db: env.DB, table: body.table, olderThanSeconds: body.olderThanSeconds }) });
    // A statement of the batch that breaks a NOT NULL column.
    return run(createD1Inbox({ db: env.DB, table: body.table }), body, ({ db, statements }) => {
      statements.push(db.prepare('INSERT INTO refunds (tracking_code, status) VALUES (?, NULL)').bind(body.key.trackingCode));
    });
  },
};
`;

type Backend = 'd1' | 'durable-object';
let miniflare: Miniflare;
let origin: string;
// The Worker's D1, over HTTP.
let db: D1DatabaseLike;
// The handlers of the requests under way, by the id in their apply URL.
const handlers = new Map<string, (context: CallbackInboxContext) => Promise<void>>();
// The contexts whose commit a handler asked to spoil (the contract's failCommit).
const spoiled = new WeakSet<CallbackInboxContext>();
let serial = 0;

beforeAll(async () => {
  miniflare = new Miniflare({
    modules: true,
    // Its inboxes can be given a later version of their table, these tests' own, to migrate to.
    script: await bundleWorker(worker, { laterInboxVersion: true }),
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'contract' },
    durableObjects: { ACCOUNTS: { className: 'Account', useSQLite: true } },
    bindings: { API_KEY: PROVIDER.apiKey, SECRET_KEY: PROVIDER.secretKey },
    async outboundService(request: WorkerRequest) {
      const handler = handlers.get(new URL(request.url).pathname.slice(1));
      if (handler === undefined) return new Response('no handler', { status: 404 });
      try {
        const context = (await request.json()) as CallbackInboxContext;
        await handler(context);
        return new Response(spoiled.has(context) ? 'spoil' : 'applied');
      } catch (error) {
        return new Response(String(error), { status: 500 });
      }
    },
  });
  origin = (await miniflare.ready).origin;
  db = d1At(`${origin}/d1`);
  await db.prepare('CREATE TABLE refunds (tracking_code TEXT NOT NULL, status TEXT NOT NULL)').run();
  await db.prepare(d1InboxTableSql()).run();
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

async function call(body: Record<string, unknown>): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const response = await fetch(origin, { method: 'POST', body: JSON.stringify(body) });
  const text = await response.text();
  try {
    return { ok: response.ok, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    // Not the Worker's answer: the runtime's own, for a request it failed (an object reset).
    return { ok: false, body: { name: 'RuntimeError', message: `${response.status} ${text.slice(0, 200)}` } };
  }
}

/** Gives the Worker's inboxes (and the object's) the test-only later version (3), or takes it back. */
async function upgrade(backend: Backend, action: 'add' | 'takeBack'): Promise<void> {
  const { ok, body } = await call({ backend, op: 'later-version', action, table: 'versions' });
  if (!ok) throw new Error(`later-version: ${JSON.stringify(body)}`);
}

/** The inbox in workerd, seen from here: each call one request, its handler run here. */
function inboxIn(backend: Backend, table: string): CallbackInbox {
  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      serial += 1;
      const id = String(serial);
      handlers.set(id, apply);
      try {
        const { ok, body } = await call({ backend, op: 'process', table, key, applyUrl: `http://handlers.test/${id}` });
        if (ok) return body['outcome'] as CallbackInboxOutcome;
        // The refusal crossed HTTP as JSON: rebuilt from its fields, as the receiver would answer it.
        if (body['name'] === 'CallbackRetentionError') throw new CallbackRetentionError(key, Number(body['recordTime']), Number(body['horizon']));
        if (body['name'] === 'InboxError') throw new InboxError(String(body['message']));
        throw new Error(`${String(body['name'])}: ${String(body['message'])}`);
      } finally {
        handlers.delete(id);
      }
    },
  };
}

function storeOf(backend: Backend, table: string): InboxContractStore {
  return {
    inbox: () => inboxIn(backend, table),
    prune: async (olderThanSeconds) => {
      const { ok, body } = await call({ backend, op: 'prune', table, olderThanSeconds });
      if (!ok) throw new Error(`prune: ${JSON.stringify(body)}`);
    },
  };
}

function storeIn(backend: Backend): () => Promise<InboxContractStore> {
  return async () => {
    serial += 1;
    const table = `contract_${serial}`;
    if (backend === 'd1') await call({ backend, op: 'create', table });
    return storeOf(backend, table);
  };
}

/** Runs statements in D1 (one batch) or in the object of `table`, each `[query, ...bindings]`. */
async function exec(backend: Backend, table: string, statements: readonly (readonly unknown[])[]): Promise<unknown> {
  const { ok, body } = await call({ backend, op: 'exec', table, statements });
  if (!ok) throw new Error(`exec: ${JSON.stringify(body)}`);
  return body['results'];
}

const SCHEMA_TABLE = 'CREATE TABLE IF NOT EXISTS payorch_schema (table_name TEXT PRIMARY KEY, component TEXT NOT NULL, version INTEGER NOT NULL, migrated_at INTEGER NOT NULL)';

/**
 * Tables of other versions. The earlier is version 1 as this payorch makes it, unrecorded (known by
 * its columns), which the Worker's inboxes then see as earlier: they are given a version 3, these
 * tests' own, taken back for the later and the altered tables, recorded at 3 and changed by hand.
 */
function versionsIn(backend: Backend): InboxContractVersions {
  const fresh = async (statements: (table: string) => readonly (readonly unknown[])[]): Promise<string> => {
    serial += 1;
    const table = `contract_${serial}`;
    await exec(backend, table, statements(table));
    return table;
  };
  return {
    async earlier(applied) {
      const table = await fresh((name) => [
        [d1InboxTableSql(name)],
        ...applied.map((key, index) => [`INSERT INTO "${name}" VALUES (?, ?, ?, ?, ?)`, key.merchantId, key.trackingCode, key.status, key.recordTime, Date.now() + index]),
      ]);
      await upgrade(backend, 'add');
      // D1 is migrated by a call (or wrangler); the object migrates itself on first use.
      const migrate = async (): Promise<void> => {
        if (backend === 'durable-object') return;
        const { ok, body } = await call({ backend, op: 'create', table });
        if (!ok) throw new Error(`create: ${JSON.stringify(body)}`);
      };
      return { ...storeOf(backend, table), migrate };
    },
    async later() {
      await upgrade(backend, 'takeBack');
      return storeOf(backend, await fresh((name) => [[d1InboxTableSql(name)], [SCHEMA_TABLE], ["INSERT INTO payorch_schema VALUES (?, 'callback-inbox', 3, 0)", name]]));
    },
    async altered() {
      await upgrade(backend, 'takeBack');
      return storeOf(backend, await fresh((name) => [[d1InboxTableSql(name)], [`ALTER TABLE "${name}" ADD COLUMN reason TEXT NOT NULL DEFAULT ''`]]));
    },
  };
}

describe.each(['d1', 'durable-object'] as const)('the inbox contract, on the %s inbox in workerd', (backend) => {
  for (const contractCase of inboxContract({
    store: storeIn(backend),
    versions: versionsIn(backend),
    failCommit: (context) => {
      spoiled.add(context);
      return Promise.resolve();
    },
  })) {
    test(contractCase.name, contractCase.run);
  }
});

test('a D1 receiver whose batch fails on a handler\'s statement answers 500 and tells onError, and the redelivery credits once', async () => {
  const heard: unknown[] = [];
  handlers.set('errors', (report) => {
    heard.push(report);
    return Promise.resolve();
  });
  const trackingCode = `MAN-d1batch01-${Math.floor(Date.now() / 1000) - 60}`;
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: trackingCode, amount: 250 }, PROVIDER);
  const url = `${origin}/webhooks`;
  try {
    // The credits table is not there yet: the batch of the key and the credit fails whole.
    expect(await deliver(url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_applied' } });
    await vi.waitFor(() => {
      expect(heard).toEqual([{ name: 'InboxCommitError', phase: 'inbox' }]);
    });
    await db.prepare('CREATE TABLE credits (tracking_code TEXT NOT NULL, amount REAL NOT NULL)').run();
    expect(await deliver(url, delivery)).toEqual({ status: 200, body: { success: true } });
    expect(await deliver(url, delivery)).toEqual({ status: 200, body: { success: true } });
    expect((await db.prepare('SELECT tracking_code, amount FROM credits').all()).results).toEqual([{ tracking_code: trackingCode, amount: 250 }]);
    expect(heard).toHaveLength(1);
  } finally {
    handlers.delete('errors');
  }
});

test('a D1 receiver given rejected and failed of one withdrawal at once refunds once: the loser answers 500, and its redelivery sees the other', async () => {
  const trackingCode = `WIT-d1ends01-${Math.floor(Date.now() / 1000) - 60}`;
  const end = (status: string) => signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status }, PROVIDER);
  const url = `${origin}/webhooks`;
  const answers = await Promise.all([deliver(url, end('rejected')), deliver(url, end('failed'))]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 500]);
  const [rejected] = answers;
  const lost = rejected.status === 500 ? 'rejected' : 'failed';
  expect(await deliver(url, end(lost))).toEqual({ status: 200, body: { success: true } });
  expect((await db.prepare('SELECT status FROM refunds WHERE tracking_code = ?').bind(trackingCode).all()).results).toEqual([{ status: lost === 'rejected' ? 'failed' : 'rejected' }]);
});

test('the Durable Object inbox whose claim a trigger added by hand refuses rejects with an InboxError: nothing applied, and no handler run', async () => {
  serial += 1;
  const table = `refusing_${serial}`;
  const applied = { merchantId: 'shop', trackingCode: `MAN-dook${serial}-${Math.floor(Date.now() / 1000) - 60}`, status: 'completed' };
  expect(await inboxIn('durable-object', table).process(applied, () => Promise.resolve())).toBe('applied');
  await exec('durable-object', table, [[`CREATE TRIGGER by_hand BEFORE INSERT ON "${table}" WHEN NEW.tracking_code LIKE 'MAN-dochk%' BEGIN SELECT RAISE(ABORT, 'refused by hand'); END`]]);
  const refused = { ...applied, trackingCode: `MAN-dochk${serial}-${Math.floor(Date.now() / 1000) - 60}` };
  const handler = vi.fn(() => Promise.resolve());
  const error = await inboxIn('durable-object', table).process(refused, handler).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InboxError);
  expect((error as Error).message).toMatch(new RegExp(`^payorch/durable-object: "${table}" refused the claim of ${refused.trackingCode} \\(completed\\) \\(.*refused by hand.*\\): a constraint or trigger added by hand\\? Nothing was applied, so that it is delivered again$`));
  expect(handler).not.toHaveBeenCalled();
  expect(await exec('durable-object', table, [[`SELECT count(*) AS keys FROM "${table}" WHERE tracking_code = ?`, refused.trackingCode]])).toEqual([[{ keys: 0 }]]);
});

test('the Durable Object inbox migrates a table of version 1 itself on first use, to a version 3 of the test\'s own (2 is retired), keeping its keys', async () => {
  serial += 1;
  const table = `upgraded_${serial}`;
  const key = { merchantId: 'shop', trackingCode: `MAN-doup${serial}-${Math.floor(Date.now() / 1000) - 60}`, status: 'completed' };
  expect(await inboxIn('durable-object', table).process(key, () => Promise.resolve())).toBe('applied');
  await upgrade('durable-object', 'add');
  try {
    expect(await inboxIn('durable-object', table).process(key, () => Promise.reject(new Error('applied twice')))).toBe('duplicate');
    expect(await exec('durable-object', table, [['SELECT component, version FROM payorch_schema WHERE table_name = ?', table], [`SELECT count(*) AS notes FROM pragma_table_info('${table}') WHERE name = 'note'`]])).toEqual([[{ component: 'callback-inbox', version: 3 }], [{ notes: 1 }]]);
  } finally {
    await upgrade('durable-object', 'takeBack');
  }
});

test('the Durable Object inbox creates its table on first use and records its version in payorch_schema', async () => {
  serial += 1;
  const table = `recorded_${serial}`;
  const key = { merchantId: 'shop', trackingCode: `MAN-dorec${serial}-${Math.floor(Date.now() / 1000) - 60}`, status: 'completed' };
  expect(await inboxIn('durable-object', table).process(key, () => Promise.resolve())).toBe('applied');
  expect(await exec('durable-object', table, [['SELECT component, version FROM payorch_schema WHERE table_name = ?', table]])).toEqual([[{ component: 'callback-inbox', version: 1 }]]);
});

test('the Durable Object inbox beside a payorch_schema of the user\'s own, of other columns, rejects with an InboxError naming it, never SQLite\'s error: nothing applied, and no handler run', async () => {
  serial += 1;
  const table = `own_schema_${serial}`;
  await exec('durable-object', table, [['CREATE TABLE payorch_schema (table_name TEXT PRIMARY KEY, version INTEGER)']]);
  const key = { merchantId: 'shop', trackingCode: `MAN-doown${serial}-${Math.floor(Date.now() / 1000) - 60}`, status: 'completed' };
  const handler = vi.fn(() => Promise.resolve());
  const error = await inboxIn('durable-object', table).process(key, handler).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InboxError);
  expect((error as Error).message).toContain('the payorch_schema beside it is not payorch\'s (it lacks "component TEXT")');
  expect(handler).not.toHaveBeenCalled();
});
