import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CallbackRetentionError, isPayorchError, signCallback } from '../../src/index.js';
import { createD1Inbox, d1InboxTableSql } from '../../src/inboxes/d1/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { SQLITE_TABLES_SQL } from '../../examples/webhooks/order-tables.js';
import { bundleWorkerFile } from '../helpers/worker-bundle.js';
import { d1Beside, d1Of } from '../helpers/d1-over-http.js';
import { PROVIDER } from '../helpers/wire.js';
import { merchantIdOf } from '../../src/webhooks/key.js';

// examples/webhooks/cloudflare-d1.ts in workerd (miniflare) with a local D1, bundled from dist/ as
// wrangler bundles it (the recipe file is the main module), without nodejs_compat, reached over real HTTP. The test reads and seeds the
// same database through a Worker beside it (test/helpers/d1-over-http.ts).
let miniflare: Miniflare;
let url: string;
let db: D1DatabaseLike;
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  const script = await bundleWorkerFile('examples/webhooks/cloudflare-d1.ts');
  miniflare = new Miniflare({
    workers: [
      {
        modules: true,
        script,
        compatibilityDate: '2025-09-01',
        d1Databases: { DB: 'payments' },
        bindings: { PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey, PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey },
      },
      d1Beside('payments'),
    ],
  });
  url = new URL('/webhooks/payorch', await miniflare.ready).href;
  db = d1Of(miniflare);
  await db.batch([
    db.prepare(d1InboxTableSql()),
    ...SQLITE_TABLES_SQL.map((sql) => db.prepare(sql)),
  ]);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

async function rows(sql: string, ...values: unknown[]): Promise<unknown[]> {
  return [...((await db.prepare(sql).bind(...values).all()).results ?? [])];
}
const openBalance = (user: string): Promise<unknown> => db.prepare('INSERT OR IGNORE INTO balances (user_id) VALUES (?)').bind(user).run();
const keysOf = (code: string): Promise<unknown[]> => rows('SELECT status FROM payorch_callback_inbox WHERE tracking_code = ?', code);
const ledgerOf = (user: string): Promise<unknown[]> => rows('SELECT l.tracking_code, l.amount_kurus, b.amount_kurus AS balance FROM ledger l JOIN balances b USING (user_id) WHERE user_id = ?', user);
const balanceOf = (user: string): Promise<unknown[]> => rows('SELECT amount_kurus FROM balances WHERE user_id = ?', user);
// The order row the merchant saved when it started the deposit (kuruş): what `confirm` reads.
const order = (code: string, user: string, amount: number, maxAmount = amount * 2): Promise<unknown> =>
  db.prepare("INSERT INTO orders (tracking_code, kind, user_id, amount_kurus, max_amount_kurus) VALUES (?, 'deposit', ?, ?, ?)").bind(code, user, amount * 100, maxAmount * 100).run();
const deposit = (code: string, user: string, amount = 250) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const OK = { status: 200, body: { success: true } };
const NOT_CONFIRMED = { status: 409, body: { success: false, error: 'not_confirmed' } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
const TOO_OLD = { status: 422, body: { success: false, error: 'record_too_old' } };

test('three copies at the same time, then a redelivery: the ledger moves once, one key is kept', async () => {
  const code = `MAN-d1conc01-${seconds - 60}`;
  await openBalance('u-d1a');
  await order(code, 'u-d1a', 250);
  const delivery = deposit(code, 'u-d1a');
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK, OK]);
  expect(await deliver(url, delivery)).toEqual(OK);
  expect(await ledgerOf('u-d1a')).toEqual([{ tracking_code: code, amount_kurus: 25_000, balance: 25_000 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
});

test('a handler that throws records no key; the redelivery after it applies the deposit once', async () => {
  const code = `MAN-d1fail01-${seconds - 60}`;
  await order(code, 'u-d1b', 40);
  const delivery = deposit(code, 'u-d1b', 40);
  expect(await deliver(url, delivery)).toEqual(NOT_APPLIED);
  expect(await keysOf(code)).toEqual([]);
  await openBalance('u-d1b');
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK]);
  expect(await ledgerOf('u-d1b')).toEqual([{ tracking_code: code, amount_kurus: 4000, balance: 4000 }]);
});

test('a returned statement that fails fails the batch: no key, no credit, and the redelivery applies it once', async () => {
  const code = `MAN-d1stmt01-${seconds - 60}`;
  await openBalance('u-d1c');
  await order(code, 'u-d1c', 75);
  // A ledger row for the code already (the ledger's primary key refuses a second): the batch fails.
  await db.prepare('INSERT INTO ledger VALUES (?, ?, ?)').bind(code, 'u-other', 1).run();
  const delivery = deposit(code, 'u-d1c', 75);
  expect(await deliver(url, delivery)).toEqual(NOT_APPLIED);
  expect(await keysOf(code)).toEqual([]);
  expect(await balanceOf('u-d1c')).toEqual([{ amount_kurus: 0 }]);
  await db.prepare('DELETE FROM ledger WHERE tracking_code = ?').bind(code).run();
  expect(await deliver(url, delivery)).toEqual(OK);
  expect(await deliver(url, delivery)).toEqual(OK);
  expect(await ledgerOf('u-d1c')).toEqual([{ tracking_code: code, amount_kurus: 7500, balance: 7500 }]);
});

test.each([
  ['user_id', { user_id: 'u-d1thief' }],
  ['amount, above the order’s ceiling', { amount: 500.01 }],
])('a genuine signature over a changed %s is refused with 409: no ledger row, no balance moves, no key; the genuine delivery then applies', async (_field, change) => {
  const code = `MAN-d1alt${String(Object.keys(change)[0]).slice(0, 2)}-${seconds - 60}`;
  await openBalance('u-d1e');
  await openBalance('u-d1thief');
  await order(code, 'u-d1e', 250, 500);
  const genuine = deposit(code, 'u-d1e', 250);
  const changed = withUnsigned(genuine, change);
  const before = await rows('SELECT * FROM balances ORDER BY user_id');
  expect(await deliver(url, changed)).toEqual(NOT_CONFIRMED);
  expect(await rows('SELECT * FROM ledger WHERE tracking_code = ?', code)).toEqual([]);
  expect(await rows('SELECT * FROM balances ORDER BY user_id')).toEqual(before);
  expect(await keysOf(code)).toEqual([]);
  expect(await deliver(url, genuine)).toEqual(OK);
  expect(await rows('SELECT user_id, amount_kurus FROM ledger WHERE tracking_code = ?', code)).toEqual([{ user_id: 'u-d1e', amount_kurus: 25_000 }]);
});

// The inbox's own behaviours (copies racing, statuses in order) are the inbox contract's:
// test/cloudflare/inbox-contract.test.ts.

// Runs last: the prune raises the horizon for the whole database.
test('after the example’s daily prune, a callback of a record older than 90 days is refused and not recorded; a kept key is still a duplicate', async () => {
  const old = `MAN-d1old01-${seconds - 100 * 86_400}`;
  const kept = `MAN-d1kept01-${seconds - 10 * 86_400}`;
  await openBalance('u-d1old');
  await order(old, 'u-d1old', 5);
  await order(kept, 'u-d1old', 7);
  await order(`MAN-d1old02-${seconds - 95 * 86_400}`, 'u-d1old', 11);
  // Before any prune there is no horizon: a record of any age is applied.
  expect(await deliver(url, deposit(old, 'u-d1old', 5))).toEqual(OK);
  expect(await deliver(url, deposit(kept, 'u-d1old', 7))).toEqual(OK);

  // miniflare's Fetcher runs scheduled(); its types (no @cloudflare/workers-types here) do not say so.
  const worker = (await miniflare.getWorker()) as unknown as { scheduled(options: { cron: string }): Promise<unknown> };
  await worker.scheduled({ cron: '17 3 * * *' });
  const [horizon] = (await rows("SELECT record_time FROM payorch_callback_inbox WHERE merchant_id = ''")) as [{ record_time: number }];
  expect(horizon.record_time).toBeGreaterThanOrEqual(seconds - 90 * 86_400);
  expect(horizon.record_time).toBeLessThan(seconds - 90 * 86_400 + 60);
  expect(await keysOf(old)).toEqual([]);

  // The re-signed redelivery of the pruned key verifies, and is not applied a second time.
  expect(await deliver(url, deposit(old, 'u-d1old', 5))).toEqual(TOO_OLD);
  expect(await deliver(url, deposit(`MAN-d1old02-${seconds - 95 * 86_400}`, 'u-d1old', 11))).toEqual(TOO_OLD);
  expect(await deliver(url, deposit(kept, 'u-d1old', 7))).toEqual(OK);
  expect(await balanceOf('u-d1old')).toEqual([{ amount_kurus: 1200 }]);
  expect(await keysOf(old)).toEqual([]);

  const refused = await createD1Inbox({ db })
    .process({ merchantId: merchantIdOf(PROVIDER.apiKey, undefined), trackingCode: old, status: 'completed' }, () => Promise.reject(new Error('must not run')))
    .then(() => undefined, (error: unknown) => error);
  expect(isPayorchError(refused, CallbackRetentionError)).toBe(true);
  expect(refused).toMatchObject({ trackingCode: old, status: 'completed', recordTime: seconds - 100 * 86_400, horizon: horizon.record_time });
});
