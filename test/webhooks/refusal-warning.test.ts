import { afterEach, describe, expect, test, vi } from 'vitest';
import { CallbackVerificationError, createCallbackReceiver } from '../../src/index.js';
import type { CallbackErrorDetails, CallbackReceiverOptions, Logger, MemoryInboxContext } from '../../src/index.js';
import { NOW_SECONDS, sign, unsigned } from '../helpers/callbacks.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * A receiver that refuses genuine callbacks (a wrong or rotated secret key, a clock that is off, a
 * URL given to another kind) loses them once the service stops retrying: every refusal of a
 * well-formed callback is heard. `onError` gets it (phase `verify`) at most once a minute per
 * reason with the count; the console says so with no logger given, in at most one line a minute
 * naming each cause with its count, and never a key. Junk is logged at debug only.
 */

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const RIGHT = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
const WRONG_SECRET = 'prov_secret_rotated_Q7w';
const FOREIGN = { apiKey: 'prov_api_scanner_000', secretKey: 'prov_secret_scanner_000' };
type Options = Omit<CallbackReceiverOptions<MemoryInboxContext>, 'apiKey' | 'secretKey' | 'now'>;

/** A receiver on a clock the test moves, with what its onError hears. */
function receiverWith(keys: { apiKey: string; secretKey: string }, options: Options = {}) {
  let nowMs = NOW_SECONDS * 1000;
  const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
  const receiver = createCallbackReceiver({ ...keys, now: () => nowMs, onError: (error, details) => heard.push({ error, details }), ...options });
  receiver.on('*', () => undefined);
  const send = async (delivery: { headers: Record<string, string>; body: unknown }) => receiver.receive({ headers: delivery.headers, body: JSON.stringify(delivery.body) });
  return { receiver, heard, send, advance: (ms: number) => { nowMs += ms; } };
}

/** A genuine deposit callback, signed with the account's keys. */
const genuine = () => sign(unsigned.deposit, RIGHT);
/** What a scanner posts: a well-formed callback under its own API key. */
const foreign = (index: number) => sign({ ...unsigned.deposit, tracking_code: `MAN-scan${index}-1763812000` }, FOREIGN);
/** Junk: not a callback at all. */
const junk = { headers: {}, body: 'GET /wp-admin' };

function spyConsole() {
  const lines: { level: string; text: string }[] = [];
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => { lines.push({ level, text: args.map(String).join(' ') }); });
  }
  return lines;
}

function expectNoKey(lines: readonly { text: string }[]): void {
  const printed = lines.map(({ text }) => text).join('\n');
  for (const key of [PROVIDER.apiKey, PROVIDER.secretKey, WRONG_SECRET, FOREIGN.apiKey, FOREIGN.secretKey, genuine().hash]) expect(printed).not.toContain(key);
}

describe('a receiver refusing well-formed callbacks for their hash', () => {
  test('warns on the console with no logger, at most once a minute, with a count, naming the cause and never a key', async () => {
    const lines = spyConsole();
    const { send, advance } = receiverWith({ apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET }, { onError: undefined });
    for (let index = 0; index < 5; index++) {
      expect((await send(genuine())).status).toBe(401);
      advance(10_000);
    }
    // 0 s: the first; 10 to 40 s: counted, not written.
    expect(lines.map(({ level }) => level)).toEqual(['warn']);
    expect(lines[0]?.text).toMatch(/^payorch: refused 1 well-formed callback: 1 because the hash does not match: the secret key is probably wrong, or was rotated\. Genuine callbacks are lost/);
    expect(lines[0]?.text).toContain('"Refused callbacks" in the receiver guide');
    advance(20_000);
    await send(genuine());
    expect(lines).toHaveLength(2);
    expect(lines[1]?.text).toMatch(/refused 5 well-formed callbacks in the last minute: 5 because the hash does not match/);
    expectNoKey(lines);
  });

  test('names an API key that is not this receiver\'s', async () => {
    const lines = spyConsole();
    const { send } = receiverWith({ apiKey: 'prov_api_other_111', secretKey: PROVIDER.secretKey });
    expect((await send(genuine())).status).toBe(401);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.text).toContain('1 because X-Api-Key is not this receiver\'s API key');
    expect(lines[0]?.text).not.toContain('prov_api_other_111');
    expectNoKey(lines);
  });

  test.each([
    ['logLevel error', { logLevel: 'error' as const }, 1],
    ['logLevel off', { logLevel: 'off' as const }, 0],
  ])('%s: only off silences it', async (_name, options, count) => {
    const lines = spyConsole();
    await receiverWith({ apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET }, options).send(genuine());
    expect(lines.filter(({ level }) => level === 'warn')).toHaveLength(count);
  });

  test('goes to the logger when one is given, with the count of each reason', async () => {
    spyConsole();
    const warned: unknown[] = [];
    const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (fields) => warned.push(fields), error: () => undefined };
    await receiverWith({ apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET }, { logger }).send(genuine());
    expect(warned).toEqual([{ refused: 1, reasons: { invalid_signature: 1 } }]);
  });
});

describe('every refusal of a genuine callback is heard, among a scanner\'s junk', () => {
  const cases = [
    {
      name: 'a wrong secret key',
      keys: { apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET },
      options: {},
      delivery: genuine,
      answer: [401, 'invalid_signature'],
      cause: 'because the hash does not match: the secret key is probably wrong, or was rotated',
    },
    {
      // The service signed it 10 minutes ahead of this receiver's clock.
      name: 'a clock 10 minutes slow',
      keys: RIGHT,
      options: {},
      delivery: () => sign(unsigned.deposit, RIGHT, NOW_SECONDS + 600),
      answer: [401, 'timestamp_out_of_tolerance'],
      cause: "because the hash verified but the time did not: this machine's clock is probably off (check NTP)",
    },
    {
      name: 'a receiver made for deposits, sent the service\'s card callback',
      keys: RIGHT,
      options: { kind: 'deposit' as const },
      delivery: () => sign(unsigned.creditCard, RIGHT),
      answer: [400, 'kind_mismatch'],
      cause: "because a callback of another kind at this URL: its hash verified, but the receiver's kind option names another",
    },
  ];

  test.each(cases)('$name: onError hears it at once with its reason, and a console line names its cause', async ({ keys, options, delivery, answer, cause }) => {
    const lines = spyConsole();
    const { send, heard, advance } = receiverWith(keys, options);
    // The scanner opens the minute: junk, and well-formed callbacks under a foreign API key.
    expect((await send(junk)).status).toBe(400);
    expect((await send(foreign(1))).status).toBe(401);
    advance(5_000);
    const reply = await send(delivery());
    expect([reply.status, (JSON.parse(reply.body) as { error: string }).error]).toEqual(answer);
    for (let index = 2; index < 6; index++) await send(foreign(index));
    await send(junk);

    // onError: each reason once, at once, with its count; junk never.
    expect(heard.map(({ error, details }) => [details.phase, (error as CallbackVerificationError).reason, details.count, details.callback])).toEqual([
      ['verify', 'api_key_mismatch', 1, undefined],
      ['verify', answer[1], 1, undefined],
    ]);
    expect(heard[1]?.error).toBeInstanceOf(CallbackVerificationError);

    // The console: the line that opened the minute names the scanner's key; the next names each cause with its count.
    expect(lines.map(({ text }) => text)).toEqual([expect.stringContaining("refused 1 well-formed callback: 1 because X-Api-Key is not this receiver's API key")]);
    advance(60_000);
    await send(foreign(6));
    expect(lines).toHaveLength(2);
    expect(lines[1]?.text).toContain('refused 6 well-formed callbacks in the last minute: ');
    expect(lines[1]?.text).toContain(`1 ${cause}`);
    expect(lines[1]?.text).toContain("5 because X-Api-Key is not this receiver's API key");
    expect(lines.every(({ level }) => level === 'warn')).toBe(true);
    expectNoKey(lines);
    expect(JSON.stringify(heard.map(({ error }) => (error as Error).message))).not.toContain(PROVIDER.secretKey);
  });

  test('onError hears each reason at most once a minute, with the count since the last report', async () => {
    spyConsole();
    const { send, heard, advance } = receiverWith({ apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET });
    for (let index = 0; index < 4; index++) {
      await send(genuine());
      advance(20_000);
    }
    // 0 s reported; 20, 40 s counted; 60 s reported with the three since.
    expect(heard.map(({ details }) => details.count)).toEqual([1, 3]);
    await send(foreign(1));
    expect(heard.map(({ error, details }) => [(error as CallbackVerificationError).reason, details.count])).toEqual([
      ['invalid_signature', 1],
      ['invalid_signature', 3],
      ['api_key_mismatch', 1],
    ]);
  });

  test('a throwing onError changes no answer', async () => {
    const lines = spyConsole();
    const receiver = createCallbackReceiver({
      apiKey: PROVIDER.apiKey,
      secretKey: WRONG_SECRET,
      now: () => NOW_SECONDS * 1000,
      onError: () => {
        throw new Error('the error tracker is down');
      },
    });
    const { headers, body } = genuine();
    expect((await receiver.receive({ headers, body: JSON.stringify(body) })).status).toBe(401);
    expect(lines.map(({ level }) => level)).toEqual(['error', 'warn']);
  });
});

describe('junk that is not a genuine callback', () => {
  test.each([
    ['not JSON', { headers: {}, body: 'GET /wp-admin' }],
    ['no signature', { headers: {}, body: JSON.stringify(unsigned.deposit) }],
    ['an unknown tracking code', { headers: { 'X-Api-Key': PROVIDER.apiKey, 'X-Timestamp': '1', 'X-Hash': 'x' }, body: JSON.stringify({ tracking_code: 'ORDER-1', status: 'completed' }) }],
    ['a forged callback of another kind', (() => {
      const { headers, body } = sign(unsigned.creditCard, { apiKey: PROVIDER.apiKey, secretKey: WRONG_SECRET });
      return { headers, body: JSON.stringify(body) };
    })()],
  ])('%s is logged at debug only, and onError hears nothing', async (_name, input) => {
    const lines = spyConsole();
    const heard: unknown[] = [];
    const quiet = createCallbackReceiver({ ...RIGHT, kind: 'deposit', now: () => NOW_SECONDS * 1000, onError: (error) => heard.push(error) });
    expect((await quiet.receive(input)).status).toBeGreaterThanOrEqual(400);
    expect(lines).toEqual([]);
    expect(heard).toEqual([]);
    const loud = createCallbackReceiver({ ...RIGHT, kind: 'deposit', now: () => NOW_SECONDS * 1000, logLevel: 'debug' });
    await loud.receive(input);
    expect(lines.map(({ level }) => level)).toEqual(['debug']);
  });
});
