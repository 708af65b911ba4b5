import { afterAll, beforeAll, expect, test } from 'vitest';
import { callbackKeyString, signCallback } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { ledgerDatabase, startPgWorker } from '../helpers/hyperdrive.js';
import type { LedgerDatabase, PgWorker } from '../helpers/hyperdrive.js';
import { deferred, deliver, serveFetch } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/cloudflare-queues-hyperdrive.ts in workerd (miniflare) with nodejs_compat, a
// local Queue and miniflare's Hyperdrive binding to the test PostgreSQL, `pg` bundled as wrangler
// does, reached over real HTTP. The bundle wraps the example's queue handler only to report each
// message's ack or retry to the test's server, which the test polls.
const WORKER = `
import worker from '../examples/webhooks/cloudflare-queues-hyperdrive.ts';
import type { Env } from '../examples/webhooks/cloudflare-queues-hyperdrive.ts';

type Queue = typeof worker.queue;

export default {
  fetch: worker.fetch,
  async queue(batch: Parameters<Queue>[0], env: Env & { OUTCOMES_URL: string }, context: Parameters<Queue>[2]): Promise<void> {
    const outcomes: { code: string; outcome: string; attempts: number; batchSize: number }[] = [];
    const messages = batch.messages.map((message) => {
      const seen = (outcome: string) => outcomes.push({ code: String(message.body.payload['tracking_code']), outcome, attempts: message.attempts, batchSize: batch.messages.length });
      return {
        id: message.id,
        body: message.body,
        attempts: message.attempts,
        ack: () => { seen('ack'); message.ack(); },
        retry: () => { seen('retry'); message.retry(); },
      };
    });
    try {
      await worker.queue({ queue: batch.queue, messages }, env, context);
    } finally {
      await fetch(env.OUTCOMES_URL, { method: 'POST', body: JSON.stringify(outcomes) });
    }
  },
};
`;

let worker: PgWorker;
let database: LedgerDatabase;
let server: Served;
const seconds = Math.floor(Date.now() / 1000);

// The test's server: the order service the example tells of each deposit, and the outcomes.
interface Outcome {
  readonly outcome: string;
  readonly attempts: number;
  readonly batchSize: number;
}
const outcomes = new Map<string, Outcome[]>();
const orderKeys = new Map<string, (string | null)[]>();
const orderAnswers = new Map<string, (call: number) => Promise<number>>();

beforeAll(async () => {
  server = await serveFetch(async (request) => {
    if (new URL(request.url).pathname === '/outcomes') {
      for (const { code, ...outcome } of (await request.json()) as (Outcome & { code: string })[]) outcomes.set(code, [...(outcomes.get(code) ?? []), outcome]);
      return new Response(null, { status: 204 });
    }
    const { tracking_code: code } = (await request.json()) as { tracking_code: string };
    const keys = [...(orderKeys.get(code) ?? []), request.headers.get('idempotency-key')];
    orderKeys.set(code, keys);
    return new Response(null, { status: (await orderAnswers.get(code)?.(keys.length)) ?? 200 });
  });
  database = await ledgerDatabase('payorch_queues_hyperdrive');
  worker = await startPgWorker(WORKER, database, { bindings: { ORDERS_URL: server.url, OUTCOMES_URL: new URL('/outcomes', server.url).href }, queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } }, queueConsumers: { 'payorch-callbacks': { maxBatchTimeout: 0, maxRetries: 3, retryDelay: 0 } } });
}, 60_000);
afterAll(async () => {
  await worker.dispose();
  await database.drop();
  await server.close();
});

const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const idempotencyKeyOf = (code: string): string => callbackKeyString({ account: PROVIDER.apiKey, trackingCode: code, status: 'completed' });
const QUEUED = { status: 200, body: { success: true } };

/** Polls `read` until `done` holds of its value, for at most 5 s; returns the last value. */
async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const acked = (count: number) => (list: readonly Outcome[]) => list.filter((entry) => entry.outcome === 'ack').length >= count;

test('three copies applied side by side in one batch, then a redelivery: the handler runs once, the ledger moves once, one key is kept', async () => {
  const code = `MAN-qhdconc01-${seconds - 60}`;
  const blocker = `MAN-qhdhold01-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-qha']);
  // A queue runs one batch at a time: while another callback's apply is held, the three copies
  // wait together, and then run in one batch, side by side.
  const held = deferred();
  orderAnswers.set(blocker, async () => (await held.promise, 200));
  expect(await deliver(worker.url, deposit(blocker, 'u-qha', 1))).toEqual(QUEUED);
  expect(await until(() => orderKeys.get(blocker)?.length ?? 0, (count) => count === 1)).toBe(1);
  const delivery = deposit(code, 'u-qha', 250);
  expect(await Promise.all([deliver(worker.url, delivery), deliver(worker.url, delivery), deliver(worker.url, delivery)])).toEqual([QUEUED, QUEUED, QUEUED]);
  held.resolve();
  expect(await until(() => outcomes.get(code) ?? [], acked(3))).toEqual([1, 2, 3].map(() => ({ outcome: 'ack', attempts: 1, batchSize: 3 })));
  // The copies waited on the key's row lock: the handler, order call included, ran once.
  expect(orderKeys.get(code)).toEqual([idempotencyKeyOf(code)]);

  expect(await deliver(worker.url, delivery)).toEqual(QUEUED);
  expect(await until(() => outcomes.get(code) ?? [], acked(4))).toHaveLength(4);
  expect(orderKeys.get(code)).toHaveLength(1);
  expect(await database.ledgerOf('u-qha')).toEqual([
    { tracking_code: code, amount: 250, balance: 251 },
    { tracking_code: blocker, amount: 1, balance: 251 },
  ]);
  expect(await database.keysOf(code)).toEqual([{ status: 'completed' }]);
});

test('a handler that throws rolls its key back; the queue’s retry of the message applies it once, and ending the pools reports nothing', async () => {
  const code = `MAN-qhdfail01-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-qhb']);
  // The order service fails the first call, and holds the second until the test has looked.
  const looked = deferred();
  orderAnswers.set(code, async (call) => (call === 1 ? 503 : (await looked.promise, 200)));
  expect(await deliver(worker.url, deposit(code, 'u-qhb', 40))).toEqual(QUEUED);
  expect(await until(() => outcomes.get(code) ?? [], (list) => list.length > 0)).toEqual([{ outcome: 'retry', attempts: 1, batchSize: 1 }]);
  expect(await until(() => orderKeys.get(code)?.length ?? 0, (count) => count === 2)).toBe(2);
  // The retry's transaction is open, its key not committed; the failed one rolled its credit back.
  expect(await database.keysOf(code)).toEqual([]);
  expect(await database.ledgerOf('u-qhb')).toEqual([]);
  expect((await database.pool.query('SELECT amount::float AS amount FROM balances WHERE user_id = $1', ['u-qhb'])).rows).toEqual([{ amount: 0 }]);
  looked.resolve();
  expect(await until(() => outcomes.get(code) ?? [], acked(1))).toEqual([
    { outcome: 'retry', attempts: 1, batchSize: 1 },
    { outcome: 'ack', attempts: 2, batchSize: 1 },
  ]);
  expect(await database.ledgerOf('u-qhb')).toEqual([{ tracking_code: code, amount: 40, balance: 40 }]);
  expect(await database.keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(orderKeys.get(code)).toEqual([idempotencyKeyOf(code), idempotencyKeyOf(code)]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(worker.printed()).toContain('(attempt 1) not applied: the order service answered 503');
  expect(worker.printed()).not.toMatch(/idle pooled connection failed|Stream was cancelled/);
});
