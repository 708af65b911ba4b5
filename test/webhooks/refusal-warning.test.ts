import { afterEach, describe, expect, test, vi } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import type { Logger } from '../../src/index.js';
import { NOW_SECONDS, sign, unsigned } from '../helpers/callbacks.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * A receiver given the wrong secret key (a rotation, a typo in an environment variable) refuses
 * every genuine callback: it says so on the console with no logger given, at most once a minute
 * with a count, naming the likely cause and never a key. Junk is logged at debug only.
 */

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const RIGHT = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
const WRONG_SECRET = 'prov_secret_rotated_Q7w';

/** A receiver with the wrong secret, on a clock the test moves. */
function misconfigured(options: { logger?: Logger; logLevel?: 'off' | 'error' | 'warn' | 'debug' } = {}) {
  let nowMs = NOW_SECONDS * 1000;
  const receiver = createCallbackReceiver({ apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET, now: () => nowMs, ...options });
  receiver.on('deposit.completed', () => undefined);
  const deliver = async () => {
    const { headers, body } = sign(unsigned.deposit, RIGHT);
    return receiver.receive({ headers, body: JSON.stringify(body) });
  };
  return { receiver, deliver, advance: (ms: number) => { nowMs += ms; } };
}

function spyConsole() {
  const lines: { level: string; text: string }[] = [];
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => { lines.push({ level, text: args.map(String).join(' ') }); });
  }
  return lines;
}

describe('a receiver refusing well-formed callbacks for their hash', () => {
  test('warns on the console with no logger, at most once a minute, with a count, naming the cause and never a key', async () => {
    const lines = spyConsole();
    const { deliver, advance } = misconfigured();
    for (let index = 0; index < 5; index++) {
      expect((await deliver()).status).toBe(401);
      advance(10_000);
    }
    // 0 s: the first; 10 to 40 s: counted, not written.
    expect(lines.map(({ level }) => level)).toEqual(['warn']);
    expect(lines[0]?.text).toMatch(/refused 1 well-formed callback \(the hash does not match\): the receiver's keys are probably wrong or were rotated/);
    advance(20_000);
    await deliver();
    expect(lines).toHaveLength(2);
    expect(lines[1]?.text).toMatch(/refused 5 well-formed callbacks in the last minute \(the hash does not match\)/);
    const printed = lines.map(({ text }) => text).join('\n');
    for (const key of [PROVIDER.apiKey, PROVIDER.secretKey, WRONG_SECRET]) expect(printed).not.toContain(key);
  });

  test('names an API key that is not this receiver\'s', async () => {
    const lines = spyConsole();
    const receiver = createCallbackReceiver({ apiKey: 'prov_api_other_111', secretKey: PROVIDER.secretKey, now: () => NOW_SECONDS * 1000 });
    const { headers, body } = sign(unsigned.deposit, RIGHT);
    expect((await receiver.receive({ headers, body: JSON.stringify(body) })).status).toBe(401);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.text).toContain('X-Api-Key is not this receiver\'s API key');
    expect(lines[0]?.text).not.toContain('prov_api_other_111');
    expect(lines[0]?.text).not.toContain(PROVIDER.apiKey);
  });

  test.each([
    ['logLevel error', { logLevel: 'error' as const }, 1],
    ['logLevel off', { logLevel: 'off' as const }, 0],
  ])('%s: only off silences it', async (_name, options, count) => {
    const lines = spyConsole();
    await misconfigured(options).deliver();
    expect(lines.filter(({ level }) => level === 'warn')).toHaveLength(count);
  });

  test('goes to the logger when one is given', async () => {
    spyConsole();
    const warned: unknown[] = [];
    const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (fields) => warned.push(fields), error: () => undefined };
    await misconfigured({ logger }).deliver();
    expect(warned).toEqual([{ reason: 'invalid_signature', refused: 1 }]);
  });
});

describe('junk that is not a callback', () => {
  test.each([
    ['not JSON', { headers: {}, body: 'GET /wp-admin' }],
    ['no signature', { headers: {}, body: JSON.stringify(unsigned.deposit) }],
    ['an unknown tracking code', { headers: { 'X-Api-Key': PROVIDER.apiKey, 'X-Timestamp': '1', 'X-Hash': 'x' }, body: JSON.stringify({ tracking_code: 'ORDER-1', status: 'completed' }) }],
  ])('%s is logged at debug only', async (_name, input) => {
    const lines = spyConsole();
    const quiet = createCallbackReceiver({ ...RIGHT, now: () => NOW_SECONDS * 1000 });
    expect((await quiet.receive(input)).status).toBeGreaterThanOrEqual(400);
    expect(lines).toEqual([]);
    const loud = createCallbackReceiver({ ...RIGHT, now: () => NOW_SECONDS * 1000, logLevel: 'debug' });
    await loud.receive(input);
    expect(lines.map(({ level }) => level)).toEqual(['debug']);
  });
});
