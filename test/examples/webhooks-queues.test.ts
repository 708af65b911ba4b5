import { Miniflare } from 'miniflare';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { callbackKeyString, signCallback } from '../../src/index.js';
import { d1InboxTableSql } from '../../src/d1/index.js';
import type { D1DatabaseLike } from '../../src/d1/index.js';
import { DEAD_LETTERS_TABLE_SQL } from '../../examples/webhooks/cloudflare-queues.js';
import { unsigned } from '../helpers/callbacks.js';
import { deferred, deliver, serveFetch } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { bundleWorker } from '../helpers/worker-bundle.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/cloudflare-queues.ts in workerd (miniflare) with local Cloudflare Queues and
// D1, bundled from dist/ as wrangler would, without nodejs_compat, reached over real HTTP. The
// bundle wraps the example's queue handler only to write down each message's ack or retry in D1,
// which the test polls: a queue delivers in about 0.1 s, and when is not ours to say.
const WORKER = `
import worker from '../examples/webhooks/cloudflare-queues.ts';
import type { Env } from '../examples/webhooks/cloudflare-queues.ts';

type Batch = Parameters<typeof worker.queue>[0];

export default {
  fetch: worker.fetch,
  async queue(batch: Batch, env: Env): Promise<void> {
    const outcomes: [string, string, string, number, number][] = [];
    const seen = (message: Batch['messages'][number], outcome: string) => outcomes.push([batch.queue, String(message.body.payload['tracking_code']), outcome, message.attempts, batch.messages.length]);
    const messages = batch.messages.map((message) => ({
      id: message.id,
      body: message.body,
      attempts: message.attempts,
      ack: () => { seen(message, 'ack'); message.ack(); },
      retry: () => { seen(message, 'retry'); message.retry(); },
    }));
    try {
      await worker.queue({ queue: batch.queue, messages }, env);
    } finally {
      if (outcomes.length > 0) await env.DB.batch(outcomes.map((row) => env.DB.prepare('INSERT INTO outcomes VALUES (?, ?, ?, ?, ?)').bind(...row)));
    }
  },
};
`;

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
  const script = await bundleWorker(WORKER);
  miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'payments' },
    queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } },
    queueConsumers: {
      'payorch-callbacks': { maxBatchTimeout: 0, maxRetries: 2, deadLetterQueue: 'payorch-callbacks-dead', retryDelay: 0 },
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
    db.prepare(DEAD_LETTERS_TABLE_SQL),
    db.prepare('CREATE TABLE balances (user_id TEXT PRIMARY KEY, amount REAL NOT NULL DEFAULT 0)'),
    db.prepare('CREATE TABLE ledger (tracking_code TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount REAL NOT NULL)'),
    db.prepare('CREATE TABLE outcomes (queue TEXT NOT NULL, tracking_code TEXT NOT NULL, outcome TEXT NOT NULL, attempts INTEGER NOT NULL, batch_size INTEGER NOT NULL)'),
  ]);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
  await orders.close();
});

async function rows(sql: string, ...values: unknown[]): Promise<unknown[]> {
  return [...((await db.prepare(sql).bind(...values).all()).results ?? [])];
}
const openBalance = (user: string): Promise<unknown> => db.prepare('INSERT INTO balances (user_id) VALUES (?)').bind(user).run();
const keysOf = (code: string): Promise<unknown[]> => rows('SELECT status FROM payorch_callback_inbox WHERE tracking_code = ?', code);
const ledgerOf = (user: string): Promise<unknown[]> => rows('SELECT l.tracking_code, l.amount, b.amount AS balance FROM ledger l JOIN balances b USING (user_id) WHERE user_id = ? ORDER BY l.rowid', user);
const outcomesOf = (code: string): Promise<unknown[]> => rows('SELECT queue, outcome, attempts FROM outcomes WHERE tracking_code = ? ORDER BY rowid', code);
const deadLettersOf = (code: string): Promise<unknown[]> => rows("SELECT message_id FROM payorch_dead_letters WHERE json_extract(job, '$.payload.tracking_code') = ?", code);
const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const idempotencyKeyOf = (code: string): string => callbackKeyString({ account: PROVIDER.apiKey, trackingCode: code, status: 'completed' });
const QUEUED = { status: 200, body: { success: true } };
const MAIN = 'payorch-callbacks';
const DEAD = 'payorch-callbacks-dead';

/** Polls `read` until `done` holds of its value, for at most 5 s; returns the last value. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const acks = (count: number) => (outcomes: unknown[]) => outcomes.filter((row) => (row as { outcome: string }).outcome === 'ack').length >= count;

function replay(authorization?: string): Promise<Response> {
  return fetch(new URL('/dead-letters/replay', base), { method: 'POST', headers: authorization === undefined ? {} : { authorization } });
}

test('three copies applied side by side in one batch, then a redelivery: the ledger moves once, one key is kept, the order service gets one key', async () => {
  const code = `MAN-qconc01-${seconds - 60}`;
  const blocker = `MAN-qhold01-${seconds - 60}`;
  await openBalance('u-qa');
  // A queue runs one batch at a time: while another callback's apply is held, the three copies
  // wait together, and then run in one batch, side by side.
  const held = deferred();
  orderAnswers.set(blocker, async () => (await held.promise, 200));
  expect(await deliver(url, deposit(blocker, 'u-qa', 1))).toEqual(QUEUED);
  expect(await until(() => Promise.resolve(orderCalls.get(blocker)?.length ?? 0), (count) => count === 1)).toBe(1);
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
  expect(await until(() => outcomesOf(code), acks(3))).toEqual([1, 2, 3].map(() => ({ queue: MAIN, outcome: 'ack', attempts: 1 })));
  expect(await rows('SELECT batch_size FROM outcomes WHERE tracking_code = ?', code)).toEqual([1, 2, 3].map(() => ({ batch_size: 3 })));
  // At least once, and at the same time: three calls, one idempotency key.
  expect(orderCalls.get(code)?.map((call) => call.idempotencyKey)).toEqual([1, 2, 3].map(() => idempotencyKeyOf(code)));
  expect(await ledgerOf('u-qa')).toEqual([
    { tracking_code: blocker, amount: 1, balance: 251 },
    { tracking_code: code, amount: 250, balance: 251 },
  ]);

  // The redelivery, after the commit, is a duplicate: its handler does not run.
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  expect(await until(() => outcomesOf(code), acks(4))).toHaveLength(4);
  expect(orderCalls.get(code)).toHaveLength(3);
  expect(await rows('SELECT amount FROM balances WHERE user_id = ?', 'u-qa')).toEqual([{ amount: 251 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
});

test('a handler that throws records no key; the queue’s retry of the message applies it once', async () => {
  const code = `MAN-qfail01-${seconds - 60}`;
  await openBalance('u-qb');
  // The order service fails the first call, and holds the second until the test has looked.
  const looked = deferred();
  orderAnswers.set(code, async (call) => (call === 1 ? 503 : (await looked.promise, 200)));
  expect(await deliver(url, deposit(code, 'u-qb', 40))).toEqual(QUEUED);
  expect(await until(() => outcomesOf(code), (outcomes) => outcomes.length > 0)).toEqual([{ queue: MAIN, outcome: 'retry', attempts: 1 }]);
  expect(await until(() => Promise.resolve(orderCalls.get(code)?.length ?? 0), (count) => count === 2)).toBe(2);
  expect(await keysOf(code)).toEqual([]);
  expect(await ledgerOf('u-qb')).toEqual([]);
  looked.resolve();
  expect(await until(() => outcomesOf(code), acks(1))).toEqual([
    { queue: MAIN, outcome: 'retry', attempts: 1 },
    { queue: MAIN, outcome: 'ack', attempts: 2 },
  ]);
  expect(await ledgerOf('u-qb')).toEqual([{ tracking_code: code, amount: 40, balance: 40 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(orderCalls.get(code)?.map((call) => call.idempotencyKey)).toEqual([idempotencyKeyOf(code), idempotencyKeyOf(code)]);
});

test('past maxRetries the job is a dead letter, kept in D1; replayed with the token, beside the service’s own redelivery, it is applied once', async () => {
  const code = `MAN-qdead01-${seconds - 60}`;
  // No balance for the user: every attempt throws before the order service is called.
  const delivery = deposit(code, 'u-qc', 75);
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  expect(await until(() => deadLettersOf(code), (dead) => dead.length === 1)).toHaveLength(1);
  expect(await outcomesOf(code)).toEqual([
    { queue: MAIN, outcome: 'retry', attempts: 1 },
    { queue: MAIN, outcome: 'retry', attempts: 2 },
    { queue: MAIN, outcome: 'retry', attempts: 3 },
    { queue: DEAD, outcome: 'ack', attempts: 1 },
  ]);
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
  expect(await replayed.json()).toEqual({ replayed: 1 });
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  const outcomes = await until(() => outcomesOf(code), acks(3));
  expect(outcomes.slice(4)).toEqual([
    { queue: MAIN, outcome: 'ack', attempts: 1 },
    { queue: MAIN, outcome: 'ack', attempts: 1 },
  ]);
  expect(await ledgerOf('u-qc')).toEqual([{ tracking_code: code, amount: 75, balance: 75 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(await deadLettersOf(code)).toEqual([]);
  expect(await (await replay(`Bearer ${REPLAY_TOKEN}`)).json()).toEqual({ replayed: 0 });
});
