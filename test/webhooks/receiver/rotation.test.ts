import { describe, expect, test } from 'vitest';
import { CallbackJobError, RequestValidationError, createCallbackReceiver, signCallback, verifyCallback } from '../../../src/index.js';
import type { CallbackJob, CallbackReceiverOptions, MemoryInboxContext } from '../../../src/index.js';
import { NOW_SECONDS, unsigned } from '../../helpers/callbacks.js';
import type { Delivery } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

// A secret key rotation: the service signs with the old key until it is changed there, then with
// the new one; callbacks signed before, and their redeliveries, must still apply once.

const OLD = { apiKey: PROVIDER.apiKey, secretKey: 'old-secret-key-rotated-away' };
const NEW = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
const UNTIL = '2025-11-22T12:52:25Z'; // an hour after the tests' clock
const UNTIL_MS = Date.parse(UNTIL);

function deposit(keys: typeof OLD, trackingCode = 'MAN-rot01-1763812000', timestamp = NOW_SECONDS): Delivery {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, { ...keys, timestamp });
}

function rotated(clock: { ms: number }, options: Partial<CallbackReceiverOptions<MemoryInboxContext>> = {}) {
  const applied: string[] = [];
  const receiver = createCallbackReceiver({
    ...NEW,
    previousSecretKey: { secretKey: OLD.secretKey, until: UNTIL },
    accountName: 'merchant-1',
    maxAgeSeconds: 86_400,
    now: () => clock.ms,
    onError: () => undefined,
    ...options,
  });
  receiver.on('deposit', (callback) => void applied.push(`${callback.payload.tracking_code} ${callback.payload.status}`));
  const post = async (delivery: Delivery) => (await receiver.receive({ headers: delivery.headers, body: delivery.body })).status;
  return { receiver, applied, post };
}

describe('a receiver given previousSecretKey', () => {
  test('accepts callbacks signed with the old key until `until`, refuses them from then on, and always accepts the new key', async () => {
    const clock = { ms: UNTIL_MS - 1 };
    const { applied, post } = rotated(clock);
    expect(await post(deposit(OLD, 'MAN-rot01-1763812000'))).toBe(200);
    expect(await post(deposit(NEW, 'MAN-rot02-1763812000'))).toBe(200);
    clock.ms = UNTIL_MS;
    expect(await post(deposit(OLD, 'MAN-rot03-1763812000'))).toBe(401);
    expect(await post(deposit(NEW, 'MAN-rot04-1763812000'))).toBe(200);
    expect(applied).toEqual(['MAN-rot01-1763812000 completed', 'MAN-rot02-1763812000 completed', 'MAN-rot04-1763812000 completed']);
    // verifyCallback itself takes the same option, with a Date.
    const options = { ...NEW, previousSecretKey: { secretKey: OLD.secretKey, until: new Date(UNTIL_MS) }, maxAgeSeconds: 86_400 };
    expect(verifyCallback(deposit(OLD), { ...options, now: () => UNTIL_MS - 1 }).kind).toBe('deposit');
    expect(() => verifyCallback(deposit(OLD), { ...options, now: () => UNTIL_MS })).toThrow(/hash does not match/);
  });

  test('a callback applied under the old key and redelivered re-signed with the new one, across the rotation, applies once', async () => {
    const clock = { ms: NOW_SECONDS * 1000 };
    const { applied, post } = rotated(clock);
    expect(await post(deposit(OLD))).toBe(200);
    clock.ms = UNTIL_MS + 60_000;
    expect(await post(deposit(NEW, undefined, Math.floor(clock.ms / 1000)))).toBe(200);
    expect(await post(deposit(OLD))).toBe(401);
    expect(applied).toEqual(['MAN-rot01-1763812000 completed']);
  });

  test('a job queued under the old key applies within the window, and is refused after it, also when it was received within it', async () => {
    const clock = { ms: NOW_SECONDS * 1000 };
    const jobs: CallbackJob[] = [];
    const { receiver, applied, post } = rotated(clock, {
      enqueue: (job) => {
        jobs.push(JSON.parse(JSON.stringify(job)) as CallbackJob);
        return Promise.resolve();
      },
    });
    expect(await post(deposit(OLD, 'MAN-rot05-1763812000'))).toBe(200);
    expect(await post(deposit(OLD, 'MAN-rot06-1763812000'))).toBe(200);
    const [first, second] = jobs;
    if (first === undefined || second === undefined) throw new Error('two jobs were expected');
    await receiver.apply(first);
    clock.ms = UNTIL_MS;
    const refused: unknown = await receiver.apply(second).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CallbackJobError);
    expect(refused).toMatchObject({ reason: 'invalid_signature', field: 'signature' });
    expect(applied).toEqual(['MAN-rot05-1763812000 completed']);
  });

  test.each([
    ['without accountName', { accountName: undefined }, 'accountName'],
    ['with the same key as secretKey', { previousSecretKey: { secretKey: NEW.secretKey, until: UNTIL } }, 'previousSecretKey.secretKey'],
    ['with an empty key', { previousSecretKey: { secretKey: '', until: UNTIL } }, 'previousSecretKey.secretKey'],
    ['with a local time', { previousSecretKey: { secretKey: OLD.secretKey, until: '2025-11-22T12:52:25' } }, 'previousSecretKey.until'],
    ['with an invalid Date', { previousSecretKey: { secretKey: OLD.secretKey, until: new Date(Number.NaN) } }, 'previousSecretKey.until'],
    ['with no until', { previousSecretKey: { secretKey: OLD.secretKey } as unknown as { secretKey: string; until: string } }, 'previousSecretKey.until'],
    ['as a string', { previousSecretKey: OLD.secretKey as unknown as { secretKey: string; until: string } }, 'previousSecretKey'],
  ])('refuses previousSecretKey %s, naming the option and never showing a key', (_, options, field) => {
    let caught: unknown;
    try {
      rotated({ ms: 0 }, options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestValidationError);
    expect((caught as RequestValidationError).issues.map((issue) => issue.field)).toEqual([field]);
    expect((caught as Error).message).not.toContain(OLD.secretKey);
    expect((caught as Error).message).not.toContain(NEW.secretKey);
  });
});
