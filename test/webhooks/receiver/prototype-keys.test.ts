import { afterEach, describe, expect, test } from 'vitest';
import { createCallbackReceiver, signCallback, verifyCallback } from '../../../src/index.js';
import type { CallbackReceiver, MemoryInboxContext } from '../../../src/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

/*
 * The hash does not cover a body's other fields: a replay of a genuine callback may add any. The
 * keys that set or stand for a prototype never reach a handler, so a handler that copies the
 * payload (`Object.assign`, a spread into a class, a merge) cannot take a prototype from them.
 */

const ATTACK = '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}},"prototype":{"isAdmin":true}}';
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

function attacked(trackingCode: string): { headers: Record<string, string>; body: string } {
  const extra = JSON.parse(ATTACK) as Record<string, unknown>;
  // A spread copies an own `__proto__` as a field: the signed body carries all three keys.
  const signed = signCallback({ ...unsigned.deposit, ...extra, tracking_code: trackingCode }, { ...PROVIDER, timestamp: Math.floor(Date.now() / 1000) });
  return { headers: { ...signed.headers }, body: signed.body };
}

interface Seen {
  readonly ownKeys: string[];
  readonly plain: boolean;
  readonly copyIsAdmin: unknown;
  readonly copyPlain: boolean;
}

function look(payload: object): Seen {
  const copy = Object.assign({}, payload) as Record<string, unknown>;
  return {
    ownKeys: Object.getOwnPropertyNames(payload).filter((key) => PROTOTYPE_KEYS.includes(key)),
    plain: Object.getPrototypeOf(payload) === Object.prototype,
    copyIsAdmin: copy['isAdmin'],
    copyPlain: Object.getPrototypeOf(copy) === Object.prototype,
  };
}

const SAFE: Seen = { ownKeys: [], plain: true, copyIsAdmin: undefined, copyPlain: true };

describe('a genuinely signed callback carrying __proto__, constructor and prototype', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  test('the signed body really carries the three keys', () => {
    expect(attacked('MAN-proto0-1763812000').body).toContain('"__proto__":{"isAdmin":true},"constructor":');
  });

  test('reaches a handler on node:http as a plain object without them, and Object.assign({}, payload) takes no prototype', async () => {
    const receiver: CallbackReceiver<MemoryInboxContext> = createCallbackReceiver({ ...PROVIDER });
    const seen: Seen[] = [];
    receiver.on('deposit.completed', (callback) => void seen.push(look(callback.payload)));
    served = await serveNode(receiver.nodeHandler);
    const response = await fetch(served.url, { method: 'POST', ...attacked('MAN-proto1-1763812000') });
    expect(response.status).toBe(200);
    expect(seen).toEqual([SAFE]);
  });

  test('reaches a handler of receive without them when the framework parsed the body (own __proto__ kept by JSON.parse)', async () => {
    const receiver = createCallbackReceiver({ ...PROVIDER });
    const seen: Seen[] = [];
    receiver.on('*', (callback) => void seen.push(look(callback.payload)));
    const { headers, body } = attacked('MAN-proto2-1763812000');
    const parsed = JSON.parse(body) as Record<string, unknown>;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(await receiver.receive({ headers, body: parsed })).toMatchObject({ status: 200 });
    expect(seen).toEqual([SAFE]);
  });

  test.each([
    ['a deposit', unsigned.deposit],
    ['a withdrawal', unsigned.withdrawal],
    ['a provider card payment', unsigned.creditCard],
    ['a callback of a kind the SDK does not know', { tracking_code: 'NEWPAY-x1-1763812000', status: 'done' }],
  ])('verifyCallback returns %s without them', (_name, fields) => {
    const extra = JSON.parse(ATTACK) as Record<string, unknown>;
    const signed = signCallback({ ...fields, ...extra }, { ...PROVIDER, timestamp: Math.floor(Date.now() / 1000) });
    expect(look(verifyCallback({ headers: signed.headers, body: signed.body }, PROVIDER).payload)).toEqual(SAFE);
  });
});
