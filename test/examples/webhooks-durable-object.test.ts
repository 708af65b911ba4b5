import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { bundleWorker, bundleWorkerFile } from '../helpers/worker-bundle.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/cloudflare-durable-object.ts in workerd (miniflare) with a SQLite-backed
// Durable Object, bundled from dist/ as wrangler would, without nodejs_compat, over real HTTP.
// The object under test is the example's class with two routes for the test: run SQL in the
// object's database, and run its daily alarm.
const worker = `
import example, { PayorchAccount } from '../examples/webhooks/cloudflare-durable-object.ts';
export class TestAccount extends PayorchAccount {
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === '/test/sql') {
      const { sql, values } = await request.json();
      return Response.json(this.state.storage.sql.exec(sql, ...values).toArray());
    }
    if (pathname === '/test/alarm') {
      await this.alarm();
      return new Response(null, { status: 204 });
    }
    return super.fetch(request);
  }
}
export default {
  fetch(request, env) {
    if (new URL(request.url).pathname.startsWith('/test/')) return env.ACCOUNTS.get(env.ACCOUNTS.idFromName('provider')).fetch(request);
    return example.fetch(request, env);
  },
};
`;

let miniflare: Miniflare;
let origin: string;
let url: string;
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker(worker),
    compatibilityDate: '2025-09-01',
    durableObjects: { ACCOUNTS: { className: 'TestAccount', useSQLite: true } },
    bindings: { PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey, PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey },
  });
  origin = (await miniflare.ready).origin;
  url = `${origin}/webhooks/payorch`;
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

async function sql(query: string, ...values: unknown[]): Promise<unknown> {
  const response = await fetch(`${origin}/test/sql`, { method: 'POST', body: JSON.stringify({ sql: query, values }) });
  if (!response.ok) throw new Error(`${query}: ${response.status} ${await response.text()}`);
  return response.json();
}
const keysOf = (code: string): Promise<unknown> => sql('SELECT status FROM payorch_callback_inbox WHERE tracking_code = ?', code);
const balanceOf = (user: string): Promise<unknown> => sql('SELECT amount_kurus FROM balances WHERE user_id = ?', user);
// The order row the merchant saved in the object when it started the deposit (kuruş).
const order = (code: string, user: string, amount: number, maxAmount = amount * 2): Promise<unknown> =>
  sql("INSERT INTO orders (tracking_code, kind, user_id, amount_kurus, max_amount_kurus) VALUES (?, 'deposit', ?, ?, ?)", code, user, amount * 100, maxAmount * 100);
const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const OK = { status: 200, body: { success: true } };
const NOT_CONFIRMED = { status: 409, body: { success: false, error: 'not_confirmed' } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
const TOO_OLD = { status: 422, body: { success: false, error: 'record_too_old' } };

test('three copies at the same time, then a redelivery: the balance moves once, one key is kept', async () => {
  const code = `MAN-doconc01-${seconds - 60}`;
  await sql('INSERT INTO balances (user_id) VALUES (?)', 'u-doa');
  await order(code, 'u-doa', 250);
  const delivery = deposit(code, 'u-doa', 250);
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK, OK]);
  expect(await deliver(url, delivery)).toEqual(OK);
  expect(await balanceOf('u-doa')).toEqual([{ amount_kurus: 25_000 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
});

test('a handler that throws rolls its key back; the redelivery after it applies the deposit once', async () => {
  const code = `MAN-dofail01-${seconds - 60}`;
  await order(code, 'u-dob', 40);
  const delivery = deposit(code, 'u-dob', 40);
  expect(await deliver(url, delivery)).toEqual(NOT_APPLIED);
  expect(await keysOf(code)).toEqual([]);
  await sql('INSERT INTO balances (user_id) VALUES (?)', 'u-dob');
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK]);
  expect(await balanceOf('u-dob')).toEqual([{ amount_kurus: 4000 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
});

test.each([
  ['user_id', 'us', { user_id: 'u-dothief' }],
  ['amount, above the order’s ceiling', 'am', { amount: 500.01 }],
])('a genuine signature over a changed %s is refused with 409: no ledger row, no balance moves, no key', async (_field, tag, change) => {
  const code = `MAN-doalt${tag}-${seconds - 60}`;
  await sql('INSERT OR IGNORE INTO balances (user_id) VALUES (?), (?)', 'u-doe', 'u-dothief');
  await order(code, 'u-doe', 250, 500);
  const genuine = deposit(code, 'u-doe', 250);
  const before = await sql('SELECT * FROM balances ORDER BY user_id');
  expect(await deliver(url, withUnsigned(genuine, change))).toEqual(NOT_CONFIRMED);
  expect(await sql('SELECT * FROM ledger WHERE tracking_code = ?', code)).toEqual([]);
  expect(await sql('SELECT * FROM balances ORDER BY user_id')).toEqual(before);
  expect(await keysOf(code)).toEqual([]);
  expect(await deliver(url, genuine)).toEqual(OK);
  expect(await sql('SELECT user_id, amount_kurus FROM ledger WHERE tracking_code = ?', code)).toEqual([{ user_id: 'u-doe', amount_kurus: 25_000 }]);
});

test('the recipe file itself starts as the Worker’s main module, as wrangler bundles it, and refuses a callback of no order', async () => {
  const shipped = new Miniflare({
    modules: true,
    script: await bundleWorkerFile('examples/webhooks/cloudflare-durable-object.ts'),
    compatibilityDate: '2025-09-01',
    durableObjects: { ACCOUNTS: { className: 'PayorchAccount', useSQLite: true } },
    bindings: { PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey, PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey },
  });
  try {
    const shippedUrl = new URL('/webhooks/payorch', await shipped.ready).href;
    expect(await deliver(shippedUrl, deposit(`MAN-doship01-${seconds - 60}`, 'u-doship', 10))).toEqual(NOT_CONFIRMED);
  } finally {
    await shipped.dispose();
  }
}, 30_000);

test('after the object’s daily prune, a callback of a record older than 90 days is refused and not recorded; a kept key is still a duplicate', async () => {
  const old = `MAN-doold01-${seconds - 100 * 86_400}`;
  const kept = `MAN-dokept01-${seconds - 10 * 86_400}`;
  await sql('INSERT INTO balances (user_id) VALUES (?)', 'u-doold');
  await order(old, 'u-doold', 5);
  await order(kept, 'u-doold', 7);
  expect(await deliver(url, deposit(old, 'u-doold', 5))).toEqual(OK);
  expect(await deliver(url, deposit(kept, 'u-doold', 7))).toEqual(OK);
  expect((await fetch(`${origin}/test/alarm`)).status).toBe(204);
  expect(await keysOf(old)).toEqual([]);
  expect(await deliver(url, deposit(old, 'u-doold', 5))).toEqual(TOO_OLD);
  expect(await deliver(url, deposit(kept, 'u-doold', 7))).toEqual(OK);
  expect(await balanceOf('u-doold')).toEqual([{ amount_kurus: 1200 }]);
});
