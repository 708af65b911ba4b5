import { Miniflare } from '../helpers/miniflare.js';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ProviderClient, DealerClient, callbackKeyString, signCallback } from '../../src/index.js';
import { d1DeadLettersTableSql } from '../../src/queues/cloudflare-queues/index.js';
import { d1InboxTableSql } from '../../src/inboxes/d1/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../src/tools/sandbox/index.js';
import { SQLITE_TABLES_SQL } from '../../examples/webhooks/order-tables.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { IBAN } from '../helpers/sandbox.js';
import { deferred, deliver, serveFetch } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { until } from '../helpers/deferred.js';
import { bundleWorkerFile } from '../helpers/worker-bundle.js';
import { d1Beside, d1Of } from '../helpers/d1-over-http.js';
import { PROVIDER } from '../helpers/wire.js';
import { merchantIdOf } from '../../src/webhooks/key.js';

// examples/webhooks/cloudflare-queues.ts in workerd (miniflare) with local Cloudflare Queues and
// D1, bundled from dist/ as wrangler bundles it: the recipe file itself is the Worker's main
// module, so workerd sees its exports as they ship. Without nodejs_compat, reached over real HTTP;
// its Cron Trigger run by miniflare against the sandbox, listening here with the test's provider
// keys. A message is retried once (the adapter's first delay, 5 s), then a dead letter. The test
// watches what the Worker leaves in D1 (read through a Worker beside it, test/helpers/d1-over-http.ts)
// and what it prints: a queue delivers in about 0.1 s, and when is not ours to say.
let miniflare: Miniflare;
let base: URL;
let url: string;
let db: D1DatabaseLike;
let orders: Served;
let sandbox: Sandbox;
let running: RunningSandbox;
// What workerd prints (the example's logs, onError's reports), kept out of the test output.
let printed = '';
const seconds = Math.floor(Date.now() / 1000);
const REPLAY_TOKEN = 'a-long-random-replay-token-for-the-recipe';

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
  sandbox = createSandbox({ provider: { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey } });
  running = await sandbox.listen({ port: 0 });
  const script = await bundleWorkerFile('examples/webhooks/cloudflare-queues.ts');
  miniflare = new Miniflare({
    workers: [
      {
        modules: true,
        script,
        compatibilityDate: '2025-09-01',
        d1Databases: { DB: 'payments' },
        queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } },
        queueConsumers: {
          'payorch-callbacks': { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 1, deadLetterQueue: 'payorch-callbacks-dead' },
          'payorch-callbacks-dead': { maxBatchTimeout: 0 },
        },
        bindings: {
          PAYORCH_BASE_URL: running.url,
          PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey,
          PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey,
          PAYORCH_CREDENTIAL_KEY: sandbox.accounts.provider.sites[0].credentialKey,
          PAYORCH_DEALER_API_KEY: sandbox.accounts.dealer.apiKey,
          PAYORCH_DEALER_SECRET_KEY: sandbox.accounts.dealer.secretKey,
          REPLAY_TOKEN,
          ORDERS_URL: orders.url,
        },
      },
      d1Beside('payments'),
    ],
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    },
  });
  base = await miniflare.ready;
  url = new URL('/webhooks/payorch', base).href;
  db = d1Of(miniflare);
  await db.batch([db.prepare(d1InboxTableSql()), db.prepare(d1DeadLettersTableSql()), ...SQLITE_TABLES_SQL.map((sql) => db.prepare(sql))]);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
  await orders.close();
  await running.close();
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
const deadLettersOf = (code: string): Promise<unknown[]> => rows("SELECT attempts, last_error FROM payorch_dead_letters WHERE dead_at IS NOT NULL AND json_extract(job, '$.payload.tracking_code') = ?", code);
const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const idempotencyKeyOf = (code: string): string => callbackKeyString({ merchantId: merchantIdOf(PROVIDER.apiKey, undefined), trackingCode: code, status: 'completed' });
const QUEUED = { status: 200, body: { success: true } };

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

// The cases that wait out the adapter's 5 s retry delay run side by side, as a queue serves
// several callbacks at once: each has its own tracking code, user and order-service answers.
test.concurrent('a handler that throws records no key; the queue’s retry of the message, 5 s later, applies it once', async () => {
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
  expect(printed).toMatch(/job \w+ \(attempt 1\) not applied: Error: the order service answered 503; retried in 5 s/);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(orderCalls.get(code)?.map((call) => call.idempotencyKey)).toEqual([idempotencyKeyOf(code), idempotencyKeyOf(code)]);
}, 30_000);

test.concurrent('past max_retries the job is a dead letter, kept in D1; replayed with the token, beside the service’s own redelivery, it is applied once', async () => {
  const code = `MAN-qdead01-${seconds - 60}`;
  await order(code, 'u-qc', 75);
  // The order service is down for this deposit: both attempts fail (502, so that what the Worker
  // prints of them is not taken for the 503 of the case beside it).
  let down = true;
  orderAnswers.set(code, () => Promise.resolve(down ? 502 : 200));
  const delivery = deposit(code, 'u-qc', 75);
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  expect(await until(() => deadLettersOf(code), (dead) => dead.length === 1)).toEqual([{ attempts: 2, last_error: 'Error: the order service answered 502' }]);
  expect(await keysOf(code)).toEqual([]);
  expect(await ledgerOf('u-qc')).toEqual([]);
  expect(printed).toMatch(/job \w+ \(attempt 2\) not applied: Error: the order service answered 502/);
  expect(printed).toMatch(new RegExp(`the job [0-9a-f]{32} \\(deposit ${code} completed\\) is a dead letter after 2 attempt\\(s\\): Error: the order service answered 502`));

  // Without the token, or with another, the route is not there.
  expect((await replay()).status).toBe(404);
  expect((await replay(`Bearer ${REPLAY_TOKEN}x`)).status).toBe(404);
  expect(await deadLettersOf(code)).toHaveLength(1);

  down = false;
  const replayed = await replay(`Bearer ${REPLAY_TOKEN}`);
  expect(await replayed.json()).toEqual({ replayed: 1, remaining: 0 });
  expect(await deliver(url, delivery)).toEqual(QUEUED);
  await drained('u-qc');
  expect(await ledgerOf('u-qc')).toEqual([
    { tracking_code: code, amount_kurus: 7500, balance: 7600 },
    expect.objectContaining({ amount_kurus: 100 }),
  ]);
  // The replay and the redelivery may run at once: D1 holds no lock while a handler runs, so the
  // order service may be called more than once (at least once, as documented), under one
  // idempotency key; the credit above is applied once.
  expect(new Set(orderCalls.get(code)?.map((call) => call.idempotencyKey))).toEqual(new Set([idempotencyKeyOf(code)]));
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  expect(await deadLettersOf(code)).toEqual([]);
  expect(await (await replay(`Bearer ${REPLAY_TOKEN}`)).json()).toEqual({ replayed: 0, remaining: 0 });
}, 30_000);

test('the Cron Trigger marks an ended transfer and credits a card payment whose callback never came, each once, however often it runs', async () => {
  const provider = new ProviderClient({ baseUrl: running.url, ...PROVIDER, credentialKey: sandbox.accounts.provider.sites[0].credentialKey, maxRetries: 0 });
  const dealer = new DealerClient({ baseUrl: running.url, ...sandbox.accounts.dealer, maxRetries: 0 });
  const { data: card } = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-qcard', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
  await db.prepare("INSERT INTO orders (tracking_code, kind, user_id, amount_kurus) VALUES (?, 'creditCard', 'u-qcard', 15000)").bind(card.tracking_code).run();
  const { eibans } = await dealer.eibans.list();
  const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 30 });
  await db.prepare('INSERT INTO payouts (transfer_id) VALUES (?)').bind(transfer.transfer_id).run();
  // Both end at the service while the Worker hears nothing: every card callback delivery fails.
  await sandbox.settle(card.tracking_code, 'success', { failDeliveries: true });
  await sandbox.settle(transfer.transfer_id, 'completed');

  const worker = await miniflare.getWorker();
  const tick = async () => {
    expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok');
  };
  await tick();
  expect(await rows('SELECT status FROM payouts WHERE transfer_id = ?', transfer.transfer_id)).toEqual([{ status: 'completed' }]);
  // Reconcile queued the status read; the queue read it again and applied it.
  expect(await until(() => ledgerOf('u-qcard'), (ledger) => ledger.length > 0)).toEqual([{ tracking_code: card.tracking_code, amount_kurus: 15_000, balance: 15_000 }]);
  expect(await rows('SELECT status FROM orders WHERE tracking_code = ?', card.tracking_code)).toEqual([{ status: 'success' }]);
  expect(await keysOf(card.tracking_code)).toEqual([{ status: 'success' }]);

  // Later ticks find nothing pending, and change nothing.
  await tick();
  await tick();
  await drained('u-qcard');
  expect(await rows('SELECT status FROM payorch_callback_inbox WHERE tracking_code IN (?, ?) ORDER BY status', transfer.transfer_id, card.tracking_code)).toEqual([{ status: 'completed' }, { status: 'success' }]);
  expect(await ledgerOf('u-qcard')).toEqual([expect.objectContaining({ tracking_code: card.tracking_code }), expect.objectContaining({ amount_kurus: 100 })]);
}, 30_000);

// After the Cron Trigger's case, which runs alone: the dead letters these leave are not the replay's
// above, which takes every dead letter there is.
test.concurrent.each([
  ['user_id', { user_id: 'u-qthief' }],
  ['amount', { amount: 7_500.01 }],
])('a genuine signature over a changed %s is queued, refused by confirm on every attempt and kept as a dead letter; the ledger does not move', async (field, change) => {
  const code = `MAN-qalt${field === 'amount' ? 'am' : 'us'}01-${seconds - 60}`;
  await order(code, `u-qalt-${field}`, 75, 100);
  const genuine = deposit(code, `u-qalt-${field}`, 75);
  expect(await deliver(url, withUnsigned(genuine, change))).toEqual(QUEUED);
  expect(await until(() => deadLettersOf(code), (dead) => dead.length === 1)).toEqual([{ attempts: 2, last_error: `NotConfirmedError: confirm refused deposit.completed ${code}; nothing was applied` }]);
  expect(await keysOf(code)).toEqual([]);
  expect(orderCalls.get(code)).toBeUndefined();
  expect(await ledgerOf(`u-qalt-${field}`)).toEqual([]);
  expect(await ledgerOf('u-qthief')).toEqual([]);
  // The genuine delivery applies: the order's user, the amount paid.
  expect(await deliver(url, genuine)).toEqual(QUEUED);
  expect(await until(() => ledgerOf(`u-qalt-${field}`), (ledger) => ledger.length > 0)).toEqual([{ tracking_code: code, amount_kurus: 7500, balance: 7500 }]);
}, 30_000);
