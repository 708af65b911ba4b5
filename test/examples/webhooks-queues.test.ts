import { Miniflare } from 'miniflare';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { callbackKeyString, createCallbackReceiver, signCallback } from '../../src/index.js';
import type { CallbackJob } from '../../src/index.js';
import { d1InboxTableSql } from '../../src/d1/index.js';
import type { D1DatabaseLike } from '../../src/d1/index.js';
import { D1_DEAD_LETTERS_TABLE_SQL, SQLITE_TABLES_SQL } from '../../examples/webhooks/order-tables.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { deferred, deliver, serveFetch } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { bundleWorkerFile } from '../helpers/worker-bundle.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/cloudflare-queues.ts in workerd (miniflare) with local Cloudflare Queues and
// D1, bundled from dist/ as wrangler bundles it: the recipe file itself is the Worker's main
// module, so workerd sees its exports as they ship. Without nodejs_compat, reached over real HTTP.
// The test watches what the Worker leaves in D1 and what it prints: a queue delivers in about
// 0.1 s, and when is not ours to say.
let miniflare: Miniflare;
let base: URL;
let url: string;
let db: D1DatabaseLike;
let orders: Served;
// What workerd prints (the example's logs, onError's reports), kept out of the test output.
let printed = '';
const seconds = Math.floor(Date.now() / 1000);
const REPLAY_TOKEN = 'a-long-random-replay-token';

// The order service the example tells of each deposit, with an idempotency key.
interface OrderCall {
  readonly idempotencyKey: string | null;
  readonly body: unknown;
}
const orderCalls = new Map<string, OrderCall[]>();
const orderAnswers = new Map<string, (call: number) => Promise<number>>();

beforeAll(async () => {
  orders = await serveFetch(async (request) => {
    const body = (await request.json()) as { tracking_code: string };
    const calls = orderCalls.get(body.tracking_code) ?? [];
    calls.push({ idempotencyKey: request.headers.get('idempotency-key'), body });
    orderCalls.set(body.tracking_code, calls);
    const status = (await orderAnswers.get(body.tracking_code)?.(calls.length)) ?? 200;
    return new Response(null, { status });
  });
  const script = await bundleWorkerFile('examples/webhooks/cloudflare-queues.ts');
  miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'payments' },
    queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } },
    queueConsumers: {
      'payorch-callbacks': { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 2, deadLetterQueue: 'payorch-callbacks-dead', retryDelay: 0 },
      'payorch-callbacks-dead': { maxBatchTimeout: 0 },
    },
    bindings: {
      PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey,
      PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey,
      REPLAY_TOKEN,
      ORDERS_URL: orders.url,
    },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    },
  });
  base = await miniflare.ready;
  url = new URL('/webhooks/payorch', base).href;
  db = await miniflare.getD1Database('DB');
  await db.batch([
    db.prepare(d1InboxTableSql()),
    db.prepare(D1_DEAD_LETTERS_TABLE_SQL),
    ...SQLITE_TABLES_SQL.map((sql) => db.prepare(sql)),
  ]);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
  await orders.close();
});

async function rows(sql: string, ...values: unknown[]): Promise<unknown[]> {
  return [...((await db.prepare(sql).bind(...values).all()).results ?? [])];
}
const openBalance = (user: string): Promise<unknown> => db.prepare('INSERT OR IGNORE INTO balances (user_id) VALUES (?)').bind(user).run();
// The order row the merchant saved when it started the deposit: amounts in kuruş.
const order = (code: string, user: string, amount: number, maxAmount = amount * 2): Promise<unknown> =>
  db.prepare("INSERT INTO orders (tracking_code, kind, user_id, amount_kurus, max_amount_kurus) VALUES (?, 'deposit', ?, ?, ?)").bind(code, user, amount * 100, maxAmount * 100).run();
const keysOf = (code: string): Promise<unknown[]> => rows('SELECT status FROM payorch_callback_inbox WHERE tracking_code = ?', code);
const ledgerOf = (user: string): Promise<unknown[]> =>
  rows('SELECT l.tracking_code, l.amount_kurus, b.amount_kurus AS balance FROM ledger l JOIN balances b USING (user_id) WHERE user_id = ? ORDER BY l.rowid', user);
const deadLettersOf = (code: string): Promise<unknown[]> => rows("SELECT message_id FROM payorch_dead_letters WHERE json_extract(job, '$.payload.tracking_code') = ?", code);
const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const idempotencyKeyOf = (code: string): string => callbackKeyString({ account: PROVIDER.apiKey, trackingCode: code, status: 'completed' });
const QUEUED = { status: 200, body: { success: true } };

/** Polls `read` until `done` holds of its value, for at most 10 s; returns the last value. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const callsOf = (code: string) => () => Promise.resolve(orderCalls.get(code)?.length ?? 0);
// A queue delivers in order, one batch at a time: once a later deposit is credited, what was
// queued before it has been worked.
async function drained(user: string): Promise<void> {
  const code = `MAN-qmark${String(Date.now()).slice(-6)}-${seconds - 60}`;
  await order(code, user, 1);
  expect(await deliver(url, deposit(code, user, 1))).toEqual(QUEUED);
  expect(await until(() => ledgerOf(user), (ledger) => ledger.some((row) => (row as { tracking_code: string }).tracking_code === code))).toContainEqual(expect.objectContaining({ tracking_code: code }));
}

function replay(authorization?: string): Promise<Response> {
  return fetch(new URL('/dead-letters/replay', base), { method: 'POST', headers: authorization === undefined ? {} : { authorization } });
}

test('three copies applied side by side, then a redelivery: the ledger moves once, one key is kept, the order service gets one key', async () => {
  const code = `MAN-qconc01-${seconds - 60}`;
  const blocker = `MAN-qhold01-${seconds - 60}`;
  await openBalance('u-qa');
  await order(code, 'u-qa', 250);
  await order(blocker, 'u-qa', 1);
  // A queue runs one batch at a time: while another callback's apply is held, the three copies
  // wait together, and then run in one batch, side by side.
  const held = deferred();
  orderAnswers.set(blocker, async () => (await held.promise, 200));
  expect(await deliver(url, deposit(blocker, 'u-qa', 1))).toEqual(QUEUED);
  expect(await until(callsOf(blocker), (count) => count === 1)).toBe(1);
  // Each copy's handler runs before any copy's batch commits: none is answered until all three called.
  const allCalled = deferred();
  orderAnswers.set(code, async (call) => {
    if (call === 3) allCalled.resolve();
    await Promise.race([allCalled.promise, new Promise((resolve) => setTimeout(resolve, 3000))]);
    return 200;
  });
  const delivery = deposit(code, 'u-qa', 250);
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery), deliver(url, delivery)])).toEqual([QUEUED, QUEUED, QUEUED]);
  held.resolve();
  expect(await until(callsOf(code), (count) => count === 3)).toBe(3);
  // At least once, and at the same time: three calls, one idempotency key.
  expect(orderCalls.get(code)?.map((call) => call.idempotencyKey)).toEqual([1, 2, 3].map(() => idempotencyKeyOf(code)));
  expect(await until(() => ledgerOf('u-qa'), (ledger) => ledger.length === 2)).toEqual([
    { tracking_code: blocker, amount_kurus: 100, balance: 25_100 },
    { tracking_code: code, amount_kurus: 25_000, balance: 25_100 },
  ]);

  // The redelivery, after the commit, is a duplicate: its handler does not run.
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  await drained('u-qa');
  expect(orderCalls.get(code)).toHaveLength(3);
  expect(await rows('SELECT amount_kurus FROM balances WHERE user_id = ?', 'u-qa')).toEqual([{ amount_kurus: 25_200 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
});

test('a handler that throws records no key; the queue’s retry of the message applies it once', async () => {
  const code = `MAN-qfail01-${seconds - 60}`;
  await openBalance('u-qb');
  await order(code, 'u-qb', 40);
  // The order service fails the first call, and holds the second until the test has looked.
  const looked = deferred();
  orderAnswers.set(code, async (call) => (call === 1 ? 503 : (await looked.promise, 200)));
  expect(await deliver(url, deposit(code, 'u-qb', 40))).toEqual(QUEUED);
  expect(await until(callsOf(code), (count) => count === 2)).toBe(2);
  expect(await keysOf(code)).toEqual([]);
  expect(await ledgerOf('u-qb')).toEqual([]);
  looked.resolve();
  expect(await until(() => ledgerOf('u-qb'), (ledger) => ledger.length > 0)).toEqual([{ tracking_code: code, amount_kurus: 4000, balance: 4000 }]);
  expect(printed).toMatch(/\(attempt 1\) not applied: the order service answered 503/);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(orderCalls.get(code)?.map((call) => call.idempotencyKey)).toEqual([idempotencyKeyOf(code), idempotencyKeyOf(code)]);
});

test('past maxRetries the job is a dead letter, kept in D1; replayed with the token, beside the service’s own redelivery, it is applied once', async () => {
  const code = `MAN-qdead01-${seconds - 60}`;
  await order(code, 'u-qc', 75);
  // No balance for the user: every attempt throws before the order service is called.
  const delivery = deposit(code, 'u-qc', 75);
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  expect(await until(() => deadLettersOf(code), (dead) => dead.length === 1)).toHaveLength(1);
  expect(await keysOf(code)).toEqual([]);
  expect(orderCalls.get(code)).toBeUndefined();
  expect(printed).toContain('(attempt 3) not applied: no balance for user u-qc yet');
  expect(printed).toMatch(/callback job \w+ is dead: kept in payorch_dead_letters/);

  // Without the token, or with another, the route is not there.
  expect((await replay()).status).toBe(404);
  expect((await replay(`Bearer ${REPLAY_TOKEN}x`)).status).toBe(404);
  expect(await deadLettersOf(code)).toHaveLength(1);

  await openBalance('u-qc');
  const replayed = await replay(`Bearer ${REPLAY_TOKEN}`);
  expect(await replayed.json()).toEqual({ replayed: 1, remaining: 0 });
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  await drained('u-qc');
  expect(await ledgerOf('u-qc')).toEqual([
    { tracking_code: code, amount_kurus: 7500, balance: 7600 },
    expect.objectContaining({ amount_kurus: 100 }),
  ]);
  // The replay and the redelivery may run at once: D1 holds no lock while a handler runs, so the
  // order service may be called twice (at least once, as documented), under one idempotency key;
  // the credit above is applied once.
  expect(new Set(orderCalls.get(code)?.map((call) => call.idempotencyKey))).toEqual(new Set([idempotencyKeyOf(code)]));
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(await deadLettersOf(code)).toEqual([]);
  expect(await (await replay(`Bearer ${REPLAY_TOKEN}`)).json()).toEqual({ replayed: 0, remaining: 0 });
});

test.each([
  ['user_id', { user_id: 'u-qthief' }],
  ['amount', { amount: 7_500.01 }],
])('a genuine signature over a changed %s is queued, refused by confirm on every attempt and kept as a dead letter; the ledger does not move', async (field, change) => {
  const code = `MAN-qalt${field === 'amount' ? 'am' : 'us'}01-${seconds - 60}`;
  await openBalance(`u-qalt-${field}`);
  await openBalance('u-qthief');
  await order(code, `u-qalt-${field}`, 75, 100);
  const genuine = deposit(code, `u-qalt-${field}`, 75);
  const changed = withUnsigned(genuine, change);
  expect(await deliver(url, changed)).toEqual(QUEUED);
  expect(await until(() => deadLettersOf(code), (dead) => dead.length === 1)).toHaveLength(1);
  expect(printed).toContain(`(attempt 3) not applied: confirm refused deposit.completed ${code}`);
  expect(await keysOf(code)).toEqual([]);
  expect(orderCalls.get(code)).toBeUndefined();
  expect(await ledgerOf(`u-qalt-${field}`)).toEqual([]);
  expect(await ledgerOf('u-qthief')).toEqual([]);
  // The genuine delivery applies: the order's user, the amount paid.
  expect(await deliver(url, genuine)).toEqual(QUEUED);
  expect(await until(() => ledgerOf(`u-qalt-${field}`), (ledger) => ledger.length > 0)).toEqual([{ tracking_code: code, amount_kurus: 7500, balance: 7500 }]);
  await db.prepare("DELETE FROM payorch_dead_letters WHERE json_extract(job, '$.payload.tracking_code') = ?").bind(code).run();
});

test('dead letters past one sendBatch (100 messages, 256 KB) are replayed over several calls, each within the limits, each deleted once sent', async () => {
  // Genuine jobs as the recipe's receiver makes them: 101 small ones, then 6 of about 60 KB (a
  // long unsigned field), kept in the order they died.
  const jobs: CallbackJob[] = [];
  const receiver = createCallbackReceiver({ ...PROVIDER, enqueue: (job) => Promise.resolve(void jobs.push(job)) });
  const codes = Array.from({ length: 107 }, (_, index) => `MAN-qbig${String(index).padStart(3, '0')}-${seconds - 60}`);
  await openBalance('u-qbig');
  await db.batch(codes.map((code) => db.prepare("INSERT INTO orders (tracking_code, kind, user_id, amount_kurus, max_amount_kurus) VALUES (?, 'deposit', 'u-qbig', 100, 100)").bind(code)));
  for (const [index, code] of codes.entries()) {
    const { headers, body } = deposit(code, 'u-qbig', 1);
    const padded = index < 101 ? body : JSON.stringify({ ...(JSON.parse(body) as object), note: 'x'.repeat(60_000) });
    expect((await receiver.handle(new Request('https://receiver.test/', { method: 'POST', headers, body: padded }))).status).toBe(200);
  }
  await db.batch(jobs.map((job, index) => db.prepare('INSERT INTO payorch_dead_letters (message_id, job, dead_at) VALUES (?, ?, ?)').bind(`big-${index}`, JSON.stringify(job), index)));

  const answers: unknown[] = [];
  for (let call = 0; call < 5; call += 1) {
    const answer = (await (await replay(`Bearer ${REPLAY_TOKEN}`)).json()) as { replayed: number; remaining: number };
    answers.push(answer);
    if (answer.remaining === 0) break;
  }
  // 100 by count; then the last small one and 4 large ones by size (5 × 60 KB is past 256 KB); then 2.
  expect(answers).toEqual([
    { replayed: 100, remaining: 7 },
    { replayed: 5, remaining: 2 },
    { replayed: 2, remaining: 0 },
  ]);
  expect(await until(() => ledgerOf('u-qbig'), (ledger) => ledger.length === 107)).toHaveLength(107);
  expect(await rows("SELECT count(*) AS n FROM payorch_dead_letters WHERE message_id LIKE 'big-%'")).toEqual([{ n: 0 }]);
  expect(await rows('SELECT amount_kurus FROM balances WHERE user_id = ?', 'u-qbig')).toEqual([{ amount_kurus: 10_700 }]);
}, 30_000);
