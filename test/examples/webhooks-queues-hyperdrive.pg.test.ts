import { afterAll, beforeAll, expect, test } from 'vitest';
import { callbackKeyString, signCallback } from '../../src/index.js';
import { d1DeadLettersTableSql } from '../../src/queues/cloudflare-queues/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { ledgerDatabase, startPgWorker } from '../helpers/hyperdrive.js';
import type { LedgerDatabase, PgWorker } from '../helpers/hyperdrive.js';
import { deferred, deliver, serveFetch } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { until } from '../helpers/deferred.js';
import { PROVIDER } from '../helpers/wire.js';
import { merchantIdOf } from '../../src/webhooks/key.js';

// examples/webhooks/cloudflare-queues-hyperdrive.ts in workerd (miniflare) with nodejs_compat, a
// local Queue with its dead-letter queue, D1 for the dead letters and miniflare's Hyperdrive
// binding to the test PostgreSQL, the recipe file bundled as the Worker's main module as wrangler
// does (`pg` bundled), reached over real HTTP. A message is retried once (after the adapter's 5 s),
// then kept in D1. The test watches the database, the order service's calls and what workerd prints.
let worker: PgWorker;
let database: LedgerDatabase;
let server: Served;
const seconds = Math.floor(Date.now() / 1000);

// The test's server: the order service the example tells of each deposit.
const orderKeys = new Map<string, (string | null)[]>();
const orderAnswers = new Map<string, (call: number) => Promise<number>>();

beforeAll(async () => {
  server = await serveFetch(async (request) => {
    const { tracking_code: code } = (await request.json()) as { tracking_code: string };
    const keys = [...(orderKeys.get(code) ?? []), request.headers.get('idempotency-key')];
    orderKeys.set(code, keys);
    return new Response(null, { status: (await orderAnswers.get(code)?.(keys.length)) ?? 200 });
  });
  database = await ledgerDatabase('payorch_queues_hyperdrive');
  worker = await startPgWorker('examples/webhooks/cloudflare-queues-hyperdrive.ts', database, {
    bindings: { ORDERS_URL: server.url },
    queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } },
    queueConsumers: { 'payorch-callbacks': { maxBatchTimeout: 0, maxRetries: 1, deadLetterQueue: 'payorch-callbacks-dead' }, 'payorch-callbacks-dead': { maxBatchTimeout: 0 } },
    d1: true,
  });
  await (await worker.db()).prepare(d1DeadLettersTableSql()).run();
}, 60_000);
afterAll(async () => {
  await worker.dispose();
  await database.drop();
  await server.close();
});

const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const idempotencyKeyOf = (code: string): string => callbackKeyString({ merchantId: merchantIdOf(PROVIDER.apiKey, undefined), trackingCode: code, status: 'completed' });
const QUEUED = { status: 200, body: { success: true } };

const ledgerHas = (code: string) => (ledger: unknown[]) => ledger.some((row) => (row as { tracking_code: string }).tracking_code === code);
// A queue delivers in order, one batch at a time: once a later deposit is credited, what was
// queued before it has been worked.
async function drained(user: string, tag: string): Promise<void> {
  const code = `MAN-qhdmark${tag}-${seconds - 60}`;
  await database.order(code, user, 1);
  expect(await deliver(worker.url, deposit(code, user, 1))).toEqual(QUEUED);
  expect(await until(() => database.ledgerOf(user), ledgerHas(code))).toContainEqual(expect.objectContaining({ tracking_code: code }));
}

test('three copies applied side by side, then a redelivery: the handler runs once, the ledger moves once, one key is kept', async () => {
  const code = `MAN-qhdconc01-${seconds - 60}`;
  const blocker = `MAN-qhdhold01-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-qha']);
  await database.order(code, 'u-qha', 250);
  await database.order(blocker, 'u-qha', 1);
  // A queue runs one batch at a time: while another callback's apply is held, the three copies
  // wait together, and then run in one batch, side by side.
  const held = deferred();
  orderAnswers.set(blocker, async () => (await held.promise, 200));
  expect(await deliver(worker.url, deposit(blocker, 'u-qha', 1))).toEqual(QUEUED);
  expect(await until(() => orderKeys.get(blocker)?.length ?? 0, (count) => count === 1)).toBe(1);
  const delivery = deposit(code, 'u-qha', 250);
  expect(await Promise.all([deliver(worker.url, delivery), deliver(worker.url, delivery), deliver(worker.url, delivery)])).toEqual([QUEUED, QUEUED, QUEUED]);
  held.resolve();
  expect(await until(() => database.ledgerOf('u-qha'), ledgerHas(code))).toHaveLength(2);

  expect(await deliver(worker.url, delivery)).toEqual(QUEUED);
  await drained('u-qha', '01');
  // The copies waited on the key's row lock: the handler, order call included, ran once.
  expect(orderKeys.get(code)).toEqual([idempotencyKeyOf(code)]);
  expect(await database.ledgerOf('u-qha')).toEqual([
    { tracking_code: code, amount: 250, balance: 252 },
    { tracking_code: blocker, amount: 1, balance: 252 },
    expect.objectContaining({ amount: 1, balance: 252 }),
  ]);
  expect(await database.keysOf(code)).toEqual([{ status: 'completed' }]);
});

test('a handler that throws rolls its key back; the queue’s retry of the message, 5 s later, applies it once, and ending the pools reports nothing', async () => {
  const code = `MAN-qhdfail01-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-qhb']);
  await database.order(code, 'u-qhb', 40);
  // The order service fails the first call, and holds the second until the test has looked.
  const looked = deferred();
  orderAnswers.set(code, async (call) => (call === 1 ? 503 : (await looked.promise, 200)));
  expect(await deliver(worker.url, deposit(code, 'u-qhb', 40))).toEqual(QUEUED);
  expect(await until(() => orderKeys.get(code)?.length ?? 0, (count) => count === 2)).toBe(2);
  // The retry's transaction is open, its key not committed; the failed one rolled its credit back.
  expect(await database.keysOf(code)).toEqual([]);
  expect(await database.ledgerOf('u-qhb')).toEqual([]);
  expect((await database.pool.query('SELECT amount::float AS amount FROM balances WHERE user_id = $1', ['u-qhb'])).rows).toEqual([{ amount: 0 }]);
  looked.resolve();
  expect(await until(() => database.ledgerOf('u-qhb'), ledgerHas(code))).toEqual([{ tracking_code: code, amount: 40, balance: 40 }]);
  expect(await database.keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(orderKeys.get(code)).toEqual([idempotencyKeyOf(code), idempotencyKeyOf(code)]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(worker.printed()).toContain('(attempt 1) not applied: Error: the order service answered 503; retried in 5 s');
  expect(worker.printed()).not.toMatch(/idle pooled connection failed|Stream was cancelled/);
}, 30_000);

// Side by side, each waiting out the adapter's 5 s retry: neither moves money, so the money rows
// each compares stay those it read first.
test.concurrent.each([
  ['user_id', 'us', { user_id: 'u-qhthief' }],
  ['amount, above the order’s ceiling', 'am', { amount: 500.01 }],
])('a genuine signature over a changed %s is queued, refused by confirm on every attempt and kept as a dead letter in D1: the ledger does not move, the order service is not told', async (_field, tag, change) => {
  const code = `MAN-qhdalt${tag}-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1), ($2) ON CONFLICT DO NOTHING', ['u-qhe', 'u-qhthief']);
  await database.order(code, 'u-qhe', 250, 500);
  const genuine = deposit(code, 'u-qhe', 250);
  const before = await database.moneyRows();
  const changed = withUnsigned(genuine, change);
  expect(await deliver(worker.url, changed)).toEqual(QUEUED);
  // maxRetries 1: two attempts, each refused, then the dead-letter queue, whose consumer keeps it in D1.
  const db = await worker.db();
  const deadLetter = async () => (await db.prepare("SELECT attempts, last_error FROM payorch_dead_letters WHERE dead_at IS NOT NULL AND json_extract(job, '$.payload.tracking_code') = ?").bind(code).all()).results;
  expect(await until(deadLetter, (rows) => rows?.length === 1)).toEqual([{ attempts: 2, last_error: `NotConfirmedError: confirm refused deposit.completed ${code}; nothing was applied` }]);
  expect(await database.moneyRows()).toEqual(before);
  expect(orderKeys.get(code)).toBeUndefined();
  expect(await database.keysOf(code)).toEqual([]);
}, 30_000);
