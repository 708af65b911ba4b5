import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { start as startExpress } from '../../examples/webhooks/express.js';
import { start as startFastify } from '../../examples/webhooks/fastify.js';
import { start as startHono } from '../../examples/webhooks/hono.js';
import { start as startNodeHttp } from '../../examples/webhooks/node-http.js';
import type { Order } from '../../examples/webhooks/orders.js';
import type { Receiver, StartReceiver } from '../../examples/webhooks/receiver.js';
import { signCallback } from '../../src/index.js';
import type { AppliedCallback } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { PROVIDER } from '../helpers/wire.js';

// Each framework example, over real HTTP on loopback, applies a callback signed by signCallback
// once (a redelivery is acknowledged, not applied), and answers 401 to it with one byte changed.
// The Next.js, Worker and PostgreSQL examples have their own files beside this one.

/** Changes the character at `index` of `text` to another of the same class (digit, letter). */
function changeOne(text: string, index: number): string {
  const character = text.charAt(index);
  const replacement = /\d/.test(character) ? String((Number(character) + 1) % 10) : character === 'a' ? 'b' : 'a';
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`;
}

/** Changes one character inside the string or number value of `field` in the JSON text. */
function changeField(body: string, field: string): string {
  const match = new RegExp(`"${field}":"?([^",}]+)`).exec(body);
  if (match === null) throw new Error(`No ${field} in ${body}`);
  return changeOne(body, match.index + match[0].length - 2);
}

type Delivery = { headers: Record<string, string>; body: string };

const mutations: [string, (delivery: Delivery) => Delivery][] = [
  ['the status', ({ headers, body }) => ({ headers, body: changeField(body, 'status') })],
  ['the tracking code', ({ headers, body }) => ({ headers, body: changeField(body, 'tracking_code') })],
  ['both timestamps', ({ headers, body }) => ({ headers: { ...headers, 'X-Timestamp': changeOne(headers['X-Timestamp']!, 9) }, body: changeField(body, 'timestamp') })],
  ['X-Hash', ({ headers, body }) => ({ headers: { ...headers, 'X-Hash': changeOne(headers['X-Hash']!, 0) }, body })],
];

// Unsigned copies: the hash still verifies against the other timestamp, or against X-Hash.
const harmless: [string, (delivery: Delivery) => Delivery][] = [
  ['the body timestamp alone', ({ headers, body }) => ({ headers, body: changeField(body, 'timestamp') })],
  ['X-Timestamp alone', ({ headers, body }) => ({ headers: { ...headers, 'X-Timestamp': changeOne(headers['X-Timestamp']!, 9) }, body })],
  ['the body hash', ({ headers, body }) => ({ headers, body: changeField(body, 'hash') })],
];

const receivers: [string, StartReceiver][] = [
  ['node:http', startNodeHttp],
  ['Express', startExpress],
  ['Fastify', startFastify],
  ['Hono', startHono],
];

// The order rows the callbacks below are for: the fixtures' user and amounts.
const orderOf = (trackingCode: string): Order | undefined => {
  if (trackingCode.includes('stranger')) return undefined;
  return trackingCode.startsWith('WIT') ? { userId: 'u-1', kind: 'withdrawal', amount: unsigned.withdrawal.amount } : { userId: 'u-1', kind: 'deposit', amount: 100, maxAmount: 1000 };
};

describe.each(receivers)('the %s receiver', (_name, start) => {
  let receiver: Receiver;
  const processed: AppliedCallback[] = [];

  beforeAll(async () => {
    receiver = await start({ ...PROVIDER, port: 0, orderOf, onCallback: (callback) => void processed.push(callback) });
  });
  afterAll(async () => {
    await receiver.close();
  });
  beforeEach(() => {
    processed.length = 0;
  });

  const deliver = async ({ headers, body }: Delivery) => {
    const response = await fetch(receiver.url, { method: 'POST', headers, body });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const fresh = (code: string): Delivery => signCallback({ ...unsigned.deposit, tracking_code: code }, PROVIDER);

  test('answers 200 { success: true } to a signed callback and processes it once, even when it is delivered twice', async () => {
    const delivery = fresh('MAN-once01-1763812000');
    expect(await deliver(delivery)).toEqual({ status: 200, body: { success: true } });
    expect(await deliver(delivery)).toEqual({ status: 200, body: { success: true } });
    expect(processed.map((callback) => [callback.kind, callback.payload.tracking_code])).toEqual([['deposit', 'MAN-once01-1763812000']]);
  });

  test('processes the same tracking code again when its status changes', async () => {
    const code = 'WIT-twice02-1763812000';
    await deliver(signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'failed' }, PROVIDER));
    await deliver(signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'completed' }, PROVIDER));
    expect(processed.map((callback) => callback.payload.status)).toEqual(['failed', 'completed']);
  });

  test.each(mutations)('answers 401 to the callback with one byte changed in %s, and processes nothing', async (_field, mutate) => {
    const delivery = fresh('MAN-bad03-1763812000');
    const changed = mutate(delivery);
    expect(changed).not.toEqual(delivery);
    expect(await deliver(changed)).toEqual({ status: 401, body: { success: false, error: 'invalid_signature' } });
    expect(processed).toEqual([]);
  });

  test.each(harmless.map(([field, mutate], index) => [field, mutate, index] as const))('applies the callback once with one byte changed in %s, a copy the hash does not rest on', async (_field, mutate, index) => {
    const code = `MAN-copy0${index}-1763812000`;
    const changed = mutate(fresh(code));
    expect(await deliver(changed)).toEqual({ status: 200, body: { success: true } });
    expect(await deliver(changed)).toEqual({ status: 200, body: { success: true } });
    expect(processed.splice(0).map((callback) => callback.payload.tracking_code)).toEqual([code]);
  });

  test.each([
    ['application/x-www-form-urlencoded (PHP curl\'s default)', 'application/x-www-form-urlencoded', 'MAN-form01-1763812000'],
    ['text/plain', 'text/plain; charset=utf-8', 'MAN-text02-1763812000'],
  ] as const)('answers 200 to a signed callback whose JSON comes as %s, and applies it', async (_how, contentType, code) => {
    const { headers, body } = fresh(code);
    expect(await deliver({ headers: { ...headers, 'Content-Type': contentType }, body })).toEqual({ status: 200, body: { success: true } });
    expect(processed.map((callback) => [callback.kind, callback.payload.tracking_code, callback.payload.amount])).toEqual([['deposit', code, unsigned.deposit.amount]]);
  });

  test('refuses with 409 a replayed deposit naming another user and amount, then applies the genuine delivery', async () => {
    const genuine = fresh('MAN-replay05-1763812000');
    const replay = { headers: genuine.headers, body: JSON.stringify({ ...(JSON.parse(genuine.body) as object), user_id: 'attacker', amount: 250_000 }) };
    expect(await deliver(replay)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
    expect(await deliver(genuine)).toEqual({ status: 200, body: { success: true } });
    // The amount paid (250) is accepted although the order asked for 100: spec 4.5.
    expect(processed.map((callback) => [callback.payload.tracking_code, callback.payload.amount])).toEqual([['MAN-replay05-1763812000', 250]]);
  });

  // A genuine signature over a body whose unsigned fields were changed: nothing reaches onCallback.
  test.each([
    ['a deposit for another user', () => fresh('MAN-alter07-1763812000'), { user_id: 'attacker' }],
    ['a deposit above the order’s ceiling', () => fresh('MAN-alter08-1763812000'), { amount: 1000.01 }],
    ['a withdrawal for another user', () => signCallback({ ...unsigned.withdrawal, tracking_code: 'WIT-alter09-1763812000', status: 'rejected' }, PROVIDER), { user_id: 'attacker' }],
    ['a withdrawal of another amount', () => signCallback({ ...unsigned.withdrawal, tracking_code: 'WIT-alter10-1763812000', status: 'rejected' }, PROVIDER), { amount: unsigned.withdrawal.amount + 0.01 }],
  ] as const)('refuses with 409 %s, signed genuinely, and processes nothing', async (_what, genuine, change) => {
    const { headers, body } = genuine();
    expect(await deliver({ headers, body: JSON.stringify({ ...(JSON.parse(body) as object), ...change }) })).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
    expect(processed).toEqual([]);
  });

  test('refuses with 409 a genuine callback for a tracking code that is not one of your orders', async () => {
    expect(await deliver(fresh('MAN-stranger06-1763812000'))).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
    expect(processed).toEqual([]);
  });

  test('answers 401 to a deposit callback without the signature headers', async () => {
    const { body } = fresh('MAN-bare04-1763812000');
    expect(await deliver({ headers: { 'Content-Type': 'application/json' }, body })).toEqual({ status: 401, body: { success: false, error: 'missing_header' } });
  });

  test('answers 401 to a callback signed with another secret', async () => {
    const forged = signCallback({ ...unsigned.deposit }, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' });
    expect((await deliver(forged)).status).toBe(401);
    expect(processed).toEqual([]);
  });
});
