import { afterEach, describe, expect, test, vi } from 'vitest';
import { InboxFullError, createCallbackReceiver, createMemoryInbox, signCallback } from '../../../src/index.js';
import type { CallbackErrorDetails } from '../../../src/index.js';
import { NOW_SECONDS, unsigned } from '../../helpers/callbacks.js';
import { serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

/*
 * The in-memory inbox refuses rather than forgets once it is full of keys it cannot forget yet.
 * The receiver says so before the wall, on the console with no setup: once most of maxKeys is
 * held (at most once an hour), naming the count, the limit, when keys start to expire and the way
 * out; and once it is full (at most once a minute), beside the onError each refusal gets.
 */

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  vi.restoreAllMocks();
});

const RECORD = 1763812000;
const code = (index: number) => `MAN-cap${index}-${RECORD}`;

function spyConsole() {
  const lines: { level: string; text: string }[] = [];
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => { lines.push({ level, text: args.map(String).join(' ') }); });
  }
  return lines;
}

/** A receiver on node:http over an in-memory inbox of `maxKeys`, on a clock the test moves. */
async function start(maxKeys: number, logLevel?: 'off') {
  let nowMs = NOW_SECONDS * 1000;
  const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
  const receiver = createCallbackReceiver({
    ...PROVIDER,
    now: () => nowMs,
    inbox: createMemoryInbox({ maxKeys, now: () => nowMs }),
    onError: (error, details) => heard.push({ error, details }),
    ...(logLevel === undefined ? {} : { logLevel }),
  });
  const applied: string[] = [];
  receiver.on('deposit', (callback) => { applied.push(callback.payload.tracking_code); });
  served = await serveNode(receiver.nodeHandler);
  const url = served.url;
  const post = async (trackingCode: string): Promise<number> => {
    const { headers, body } = signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, { ...PROVIDER, timestamp: Math.floor(nowMs / 1000) });
    return (await fetch(url, { method: 'POST', headers, body })).status;
  };
  return { post, heard, applied, advance: (ms: number) => { nowMs += ms; } };
}

describe('an in-memory inbox of 10 keys behind a receiver', () => {
  test('answers 10 callbacks 200, warns of its capacity and the way out before the first 500, says when it is full, and still refuses rather than forgets', async () => {
    const lines = spyConsole();
    const { post, heard, applied, advance } = await start(10);
    const statuses: number[] = [];
    const linesBefore: number[] = [];
    for (let index = 0; index < 10; index++) {
      statuses.push(await post(code(index)));
      linesBefore.push(lines.length);
    }
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));
    // Quiet until 8 of 10 keys are held.
    expect(linesBefore).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 2]);
    const [nearly, full] = lines;
    expect(nearly?.level).toBe('warn');
    expect(nearly?.text).toContain('the in-memory inbox holds 8 of its 10 keys (maxKeys)');
    // The oldest key is forgotten 30 days after it was applied (its record is older still).
    expect(nearly?.text).toContain(`until ${new Date(NOW_SECONDS * 1000 + 30 * 86_400_000).toISOString()} (30 days, retentionSeconds, after their record)`);
    expect(nearly?.text).toContain('Use a durable inbox (PostgreSQL: createPostgresInbox from payorch/postgres');
    expect(nearly?.text).toContain('or a larger maxKeys: see "In memory (the default)" in the inbox guide');
    expect(full?.level).toBe('warn');
    expect(full?.text).toContain('the in-memory inbox is full: it holds 10 keys (maxKeys 10)');
    expect(full?.text).toContain('every new callback is answered 500 (InboxFullError, told to onError)');

    // Full: a new callback is refused 500 and told to onError; a redelivery is still a duplicate.
    expect(await post(code(10))).toBe(500);
    expect(await post(code(0))).toBe(200);
    expect(await post(code(11))).toBe(500);
    expect(heard.map(({ error, details }) => [details.phase, error instanceof InboxFullError])).toEqual([['inbox', true], ['inbox', true]]);
    expect(applied).toEqual(Array.from({ length: 10 }, (_, index) => code(index)));
    // Said once a minute, not for each refusal.
    expect(lines).toHaveLength(2);
    advance(61_000);
    expect(await post(code(12))).toBe(500);
    expect(lines).toHaveLength(3);
    expect(lines[2]?.text).toContain('the in-memory inbox is full');

    const printed = lines.map(({ text }) => text).join('\n');
    for (const secret of [PROVIDER.apiKey, PROVIDER.secretKey, code(0), code(10)]) expect(printed).not.toContain(secret);
  });

  test('warns of a nearly full inbox at most once an hour', async () => {
    const lines = spyConsole();
    const { post, advance } = await start(10);
    for (let index = 0; index < 9; index++) await post(code(index));
    expect(lines).toHaveLength(1);
    advance(30 * 60_000);
    await post(code(0));
    expect(lines).toHaveLength(1);
    advance(31 * 60_000);
    await post(code(1));
    expect(lines.map(({ text }) => text.slice(0, 51))).toEqual(['payorch: the in-memory inbox holds 8 of its 10 keys', 'payorch: the in-memory inbox holds 9 of its 10 keys']);
  });

  test('logLevel off silences the warnings, and onError still hears each refusal', async () => {
    const lines = spyConsole();
    const { post, heard } = await start(2, 'off');
    expect([await post(code(0)), await post(code(1)), await post(code(2))]).toEqual([200, 200, 500]);
    expect(lines).toEqual([]);
    expect(heard).toHaveLength(1);
  });
});

test('a receiver with an inbox of another kind reads no fill and warns of none', async () => {
  const lines = spyConsole();
  const receiver = createCallbackReceiver({
    ...PROVIDER,
    now: () => NOW_SECONDS * 1000,
    inbox: { process: async (key, apply) => { await apply({ key, appliedStatuses: [] }); return 'applied'; } },
  }).on('*', () => undefined);
  const { headers, body } = signCallback({ ...unsigned.deposit, tracking_code: code(1) }, { ...PROVIDER, timestamp: NOW_SECONDS });
  expect((await receiver.receive({ headers, body })).status).toBe(200);
  expect(lines).toEqual([]);
});
