import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test, vi } from 'vitest';
import { start } from '../../examples/webhooks/postgres.js';
import type { Receiver } from '../../examples/webhooks/receiver.js';
import { signCallback } from '../../src/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/postgres.ts over real HTTP, two instances on one real PostgreSQL database.
const pools: pg.Pool[] = [];
let receivers: Receiver[];

function pool(): pg.Pool {
  const created = new pg.Pool({ connectionString: inject('postgresUrl') });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

async function balanceOf(user: string): Promise<number | undefined> {
  const { rows } = await pools[0]!.query<{ amount: string }>('SELECT amount FROM balances WHERE user_id = $1', [user]);
  return rows[0] === undefined ? undefined : Number(rows[0].amount);
}

beforeAll(async () => {
  const first = await start({ ...PROVIDER, pool: pool() });
  receivers = [first, await start({ ...PROVIDER, pool: pool() })];
  // The order rows the callbacks below are for, as saved when each payment was started.
  const orders: [string, string, string, number, number | null][] = [
    ['MAN-pgex01-1763812000', 'deposit', 'u-pgex', 200, 500],
    ['MAN-pgex06-1763812000', 'deposit', 'u-pgsix', 100, 500],
    ['WIT-pgex02-1763812000', 'withdrawal', 'u-pgwd', 40, null],
    ['WIT-pgex03-1763812000', 'withdrawal', 'u-pgwd', 99, null],
    ['WIT-pgex05-1763812000', 'withdrawal', 'u-pgtwo', 70, null],
    ['WIT-pgex07-1763812000', 'withdrawal', 'u-pgcan', 30, null],
    ['WIT-pgex08-1763812000', 'withdrawal', 'u-pgalt', 30, null],
    ['MAN-pgex09-1763812000', 'deposit', 'u-pgalt', 100, 500],
  ];
  for (const row of orders) await pools[0]!.query('INSERT INTO orders (tracking_code, kind, user_id, amount, max_amount) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', row);
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await pools[0]!.query('DROP TABLE IF EXISTS balances, orders, ledger, payorch_callback_inbox');
  await Promise.all(pools.map((each) => each.end()));
});

test('credits a completed deposit once, though both instances get it, together and again later', async () => {
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-pgex01-1763812000', user_id: 'u-pgex', amount: 250 }, PROVIDER);
  const [first, second] = receivers.map((receiver) => receiver.url) as [string, string];
  const answers = await Promise.all([deliver(first, delivery), deliver(second, delivery), deliver(first, delivery)]);
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  expect(await deliver(second, delivery)).toEqual({ status: 200, body: { success: true } });
  // The order asked for 200; the customer paid 250 (spec 4.5): credited and recorded.
  expect(await balanceOf('u-pgex')).toBe(250);
  const { rows } = await pools[0]!.query<{ paid_amount: string }>('SELECT paid_amount FROM orders WHERE tracking_code = $1', ['MAN-pgex01-1763812000']);
  expect(rows.map((row) => Number(row.paid_amount))).toEqual([250]);
});

test('refuses with 409 a replayed deposit naming another user, then credits the genuine delivery to the order\'s user', async () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const genuine = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-pgex06-1763812000', user_id: 'u-pgsix', amount: 100 }, PROVIDER);
  const replay = { headers: genuine.headers, body: JSON.stringify({ ...(JSON.parse(genuine.body) as object), user_id: 'attacker', amount: 250_000 }) };
  expect(await deliver(receivers[0]!.url, replay)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect(await deliver(receivers[1]!.url, genuine)).toEqual({ status: 200, body: { success: true } });
  expect([await balanceOf('attacker'), await balanceOf('u-pgsix')]).toEqual([undefined, 100]);
});

test.each([
  ['a rejected withdrawal naming another user', signCallback({ ...unsigned.withdrawal, tracking_code: 'WIT-pgex08-1763812000', status: 'rejected', user_id: 'u-pgalt', amount: 30 }, PROVIDER), { user_id: 'u-pgthief' }],
  ['a rejected withdrawal of another amount', signCallback({ ...unsigned.withdrawal, tracking_code: 'WIT-pgex08-1763812000', status: 'rejected', user_id: 'u-pgalt', amount: 30 }, PROVIDER), { amount: 3000 }],
  ['a completed deposit above the order’s ceiling', signCallback({ ...unsigned.deposit, tracking_code: 'MAN-pgex09-1763812000', user_id: 'u-pgalt', amount: 100 }, PROVIDER), { amount: 500.01 }],
])('refuses with 409 %s, signed genuinely: no ledger row changes, no balance moves', async (_what, genuine, change) => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const ledger = async () => (await pools[0]!.query<Record<string, unknown>>('SELECT * FROM ledger ORDER BY tracking_code')).rows;
  const balances = async () => (await pools[0]!.query<Record<string, unknown>>('SELECT * FROM balances ORDER BY user_id')).rows;
  const before = [await ledger(), await balances()];
  const changed = withUnsigned(genuine, change);
  expect(await deliver(receivers[0]!.url, changed)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect([await ledger(), await balances()]).toEqual(before);
});

test('refunds a canceled withdrawal once, though a rejection follows', async () => {
  const code = 'WIT-pgex07-1763812000';
  for (const status of ['canceled', 'rejected', 'canceled']) {
    expect(await deliver(receivers[0]!.url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status, user_id: 'u-pgcan', amount: 30 }, PROVIDER))).toEqual({ status: 200, body: { success: true } });
  }
  expect(await balanceOf('u-pgcan')).toBe(30);
});

test('gives a rejected withdrawal back to the balance once, and leaves a completed one alone', async () => {
  const code = 'WIT-pgex02-1763812000';
  const rejected = signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'rejected', user_id: 'u-pgwd', amount: 40 }, PROVIDER);
  const [first, second] = receivers.map((receiver) => receiver.url) as [string, string];
  await deliver(first, signCallback({ ...unsigned.withdrawal, tracking_code: 'WIT-pgex03-1763812000', status: 'completed', user_id: 'u-pgwd', amount: 99 }, PROVIDER));
  await deliver(first, rejected);
  await deliver(second, rejected);
  expect(await balanceOf('u-pgwd')).toBe(40);
});

test('refunds a withdrawal once per tracking code when it is reported rejected, then failed', async () => {
  const code = 'WIT-pgex05-1763812000';
  const [first, second] = receivers.map((receiver) => receiver.url) as [string, string];
  for (const [url, status] of [[first, 'rejected'], [second, 'failed']] as const) {
    expect(await deliver(url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status, user_id: 'u-pgtwo', amount: 70 }, PROVIDER))).toEqual({ status: 200, body: { success: true } });
  }
  expect(await balanceOf('u-pgtwo')).toBe(70);
});

test('answers 409 and records nothing when the callback names no user, so that the genuine delivery still applies', async () => {
  const withoutUser: Record<string, unknown> = { ...unsigned.deposit, tracking_code: 'MAN-pgex04-1763812000' };
  delete withoutUser['user_id'];
  const delivery = signCallback({ ...withoutUser, tracking_code: 'MAN-pgex04-1763812000', status: 'completed' }, PROVIDER);
  const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  expect(await deliver(receivers[0]!.url, delivery)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect(consoleError).toHaveBeenCalledTimes(1);
  const { rows } = await pools[0]!.query('SELECT 1 FROM payorch_callback_inbox WHERE tracking_code = $1', ['MAN-pgex04-1763812000']);
  expect(rows).toEqual([]);
});
