import { afterAll, beforeAll, expect, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { ledgerDatabase, startPgWorker } from '../helpers/hyperdrive.js';
import type { LedgerDatabase, PgWorker } from '../helpers/hyperdrive.js';
import { deliver } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/cloudflare-hyperdrive.ts in workerd (miniflare) with nodejs_compat, `pg`
// bundled as wrangler does (Node's built-ins left to workerd), through miniflare's Hyperdrive binding to the test PostgreSQL, over
// real HTTP. What workerd prints is kept, to show that ending each request's pool is quiet.
let worker: PgWorker;
let database: LedgerDatabase;
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  database = await ledgerDatabase('payorch_hyperdrive');
  worker = await startPgWorker('examples/webhooks/cloudflare-hyperdrive.ts', database);
}, 60_000);
afterAll(async () => {
  await worker.dispose();
  await database.drop();
});

const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const OK = { status: 200, body: { success: true } };

test('three copies at the same time, then a redelivery: the ledger moves once, one key is kept, and ending the pools reports nothing', async () => {
  const code = `MAN-hdconc01-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-hda']);
  await database.order(code, 'u-hda', 250);
  const delivery = deposit(code, 'u-hda', 250);
  expect(await Promise.all([deliver(worker.url, delivery), deliver(worker.url, delivery), deliver(worker.url, delivery)])).toEqual([OK, OK, OK]);
  expect(await deliver(worker.url, delivery)).toEqual(OK);
  expect(await database.ledgerOf('u-hda')).toEqual([{ tracking_code: code, amount: 250, balance: 250 }]);
  expect(await database.keysOf(code)).toEqual([{ status: 'completed' }]);
  // Each request's pool.end() runs in waitUntil, after its answer: give the last one a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(worker.printed()).not.toMatch(/idle pooled connection failed|Stream was cancelled/);
});

test('a handler that throws rolls its key back; the redelivery after it applies the deposit once', async () => {
  const code = `MAN-hdfail01-${seconds - 60}`;
  await database.order(code, 'u-hdb', 40);
  const delivery = deposit(code, 'u-hdb', 40);
  expect(await deliver(worker.url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_applied' } });
  expect(await database.keysOf(code)).toEqual([]);
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-hdb']);
  expect(await Promise.all([deliver(worker.url, delivery), deliver(worker.url, delivery)])).toEqual([OK, OK]);
  expect(await database.ledgerOf('u-hdb')).toEqual([{ tracking_code: code, amount: 40, balance: 40 }]);
  // Only the handler's own failure was reported; no pool ended in this file reported one.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(worker.printed()).toContain('no balance for user u-hdb yet');
  expect(worker.printed()).not.toMatch(/idle pooled connection failed|Stream was cancelled/);
});

test.each([
  ['user_id', 'us', { user_id: 'u-hdthief' }],
  ['amount, above the order’s ceiling', 'am', { amount: 500.01 }],
])('a genuine signature over a changed %s is refused with 409: no ledger row changes, no balance moves', async (_field, tag, change) => {
  const code = `MAN-hdalt${tag}-${seconds - 60}`;
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1), ($2) ON CONFLICT DO NOTHING', ['u-hde', 'u-hdthief']);
  await database.order(code, 'u-hde', 250, 500);
  const genuine = deposit(code, 'u-hde', 250);
  const before = await database.moneyRows();
  const changed = withUnsigned(genuine, change);
  expect(await deliver(worker.url, changed)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect(await database.moneyRows()).toEqual(before);
  expect(await database.keysOf(code)).toEqual([]);
});
