import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CallbackJobError, RequestValidationError, createCallbackReceiver, createMemoryInbox, resealCallbackJob, signCallback, verifyCallback } from '../../../src/index.js';
import type { CallbackJob, CallbackReceiverOptions, MemoryInboxContext, SignedCallbackJob } from '../../../src/index.js';
import { jobSealer } from '../../../src/webhooks/seal.js';
import { NOW_SECONDS, unsigned } from '../../helpers/callbacks.js';
import type { Delivery } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

// A secret key rotation: the service signs with the old key until it is changed there, then with
// the new one; callbacks signed before, and their redeliveries, must still apply once.

const OLD = { apiKey: PROVIDER.apiKey, secretKey: 'old-secret-key-rotated-away' };
const NEW = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
const UNTIL = '2025-11-22T12:52:25Z'; // an hour after the tests' clock
const UNTIL_MS = Date.parse(UNTIL);

function deposit(keys: { readonly apiKey: string; readonly secretKey: string }, trackingCode = 'MAN-rot01-1763812000', timestamp = NOW_SECONDS): Delivery {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, { ...keys, timestamp });
}

/** An enqueue that stores each job as an engine stores it: as JSON text. */
function queue(jobs: CallbackJob[]): (job: CallbackJob) => Promise<void> {
  return (job) => {
    jobs.push(JSON.parse(JSON.stringify(job)) as CallbackJob);
    return Promise.resolve();
  };
}

function rotated(clock: { ms: number }, options: Partial<CallbackReceiverOptions<MemoryInboxContext>> = {}) {
  const applied: string[] = [];
  const receiver = createCallbackReceiver({
    ...NEW,
    previousSecretKey: { secretKey: OLD.secretKey, until: UNTIL },
    merchantId: 'merchant-1',
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

  test.each([
    ['the secret key rotated', OLD],
    ['the API key rotated too', { apiKey: 'prov_api_before_rotation', secretKey: OLD.secretKey }],
  ])('%s: given the digest the guide prints and the refusal names, a receiver that had no merchantId keeps its keys through the rolling deploy; a callback an old instance applied is a duplicate to a new one, and the other way round', async (_rotation, old) => {
    const guide = readFileSync(new URL('../../../docs/rotating-keys.md', import.meta.url), 'utf8');
    const line = /`node -p "(.+)" "\$OLD_API_KEY"`/.exec(guide)?.[1];
    expect(line).toBeDefined();
    const digest = execFileSync(process.execPath, ['-p', line ?? '', old.apiKey], { encoding: 'utf8' }).trim();
    expect(digest).toMatch(/^payorch-ak1-[0-9a-f]{32}$/);
    const previousSecretKey = { ...old, until: UNTIL };
    // Without merchantId the rotation is refused, naming the digest to give.
    expect(() => createCallbackReceiver({ ...NEW, previousSecretKey })).toThrow(`merchantId: is required with previousSecretKey, so that the inbox never records callbacks under a key: give '${digest}'`);
    const inbox = createMemoryInbox();
    const clock = { ms: NOW_SECONDS * 1000 };
    const applied: string[] = [];
    const before = createCallbackReceiver({ ...old, inbox, maxAgeSeconds: 86_400, now: () => clock.ms, onError: () => undefined });
    before.on('deposit', (callback) => void applied.push(`old ${callback.payload.tracking_code}`));
    const { receiver: after } = rotated(clock, { inbox, merchantId: digest, previousSecretKey });
    after.on('deposit', (callback) => void applied.push(`new ${callback.payload.tracking_code}`));
    const post = async (receiver: typeof before, delivery: Delivery) => (await receiver.receive({ headers: delivery.headers, body: delivery.body })).status;
    expect(await post(before, deposit(old, 'MAN-rot21-1763812000'))).toBe(200);
    expect(await post(after, deposit(old, 'MAN-rot21-1763812000'))).toBe(200);
    expect(await post(after, deposit(NEW, 'MAN-rot22-1763812000'))).toBe(200);
    expect(await post(before, deposit(old, 'MAN-rot22-1763812000'))).toBe(200);
    expect(applied).toEqual(['old MAN-rot21-1763812000', 'new MAN-rot22-1763812000']);
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

  test('a previous-key callback acknowledged one second before `until` is applied by a retry after `until`, and by a worker whose clock runs 2 s ahead', async () => {
    const clock = { ms: UNTIL_MS - 1000 };
    const jobs: CallbackJob[] = [];
    let failing = true;
    const { receiver, applied, post } = rotated(clock, { enqueue: queue(jobs) });
    receiver.on('deposit', () => {
      if (failing) throw new Error('deadlock detected');
    });
    expect(await post(deposit(OLD, 'MAN-rot05-1763812000', Math.floor(clock.ms / 1000)))).toBe(200);
    expect(await post(deposit(OLD, 'MAN-rot06-1763812000', Math.floor(clock.ms / 1000)))).toBe(200);
    const [first, second] = jobs;
    if (first === undefined || second === undefined) throw new Error('two jobs were expected');
    // The first attempt fails before `until`; the engine retries after it.
    await expect(receiver.apply(first)).rejects.toThrow(/deadlock/);
    failing = false;
    clock.ms = UNTIL_MS + 60_000;
    await receiver.apply(first);
    // Another instance, its clock 2 s ahead of the one that answered 200.
    const ahead = rotated({ ms: UNTIL_MS + 1000 });
    await ahead.receiver.apply(second);
    expect([...applied, ...ahead.applied]).toEqual(['MAN-rot05-1763812000 completed', 'MAN-rot06-1763812000 completed']);
  });

  test('a job queued before the rotation applies until `until`; past it, it is refused as seal_key_expired, not as a forgery, and applies once re-sealed', async () => {
    const before = { ms: NOW_SECONDS * 1000 };
    const jobs: CallbackJob[] = [];
    // The receiver before the rotation: the old key is its secret key.
    const old = createCallbackReceiver({ ...OLD, merchantId: 'merchant-1', maxAgeSeconds: 86_400, now: () => before.ms, enqueue: queue(jobs) });
    for (const code of ['MAN-rot07-1763812000', 'MAN-rot08-1763812000']) expect((await old.receive(deposit(OLD, code))).status).toBe(200);
    const [first, second] = jobs;
    if (first === undefined || second === undefined) throw new Error('two jobs were expected');
    const clock = { ms: UNTIL_MS - 1 };
    const { receiver, applied } = rotated(clock);
    await receiver.apply(first);
    clock.ms = UNTIL_MS;
    const refused: unknown = await receiver.apply(second).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CallbackJobError);
    expect(refused).toMatchObject({ reason: 'seal_key_expired', field: 'seal' });
    expect((refused as Error).message).toMatch(/^Callback refused \(seal_key_expired\): the job was sealed with previousSecretKey, whose window closed/);
    expect((refused as Error).message).not.toContain(OLD.secretKey);
    // Given the old key on purpose, the dead-letter tool seals it again with the current one.
    await receiver.apply(resealCallbackJob(second, { oldSecretKey: OLD.secretKey, secretKey: NEW.secretKey }));
    expect(applied).toEqual(['MAN-rot07-1763812000 completed', 'MAN-rot08-1763812000 completed']);
  });

  test('a job forged with the previous key after `until` pays nothing', async () => {
    const clock = { ms: NOW_SECONDS * 1000 };
    const jobs: CallbackJob[] = [];
    const { receiver, applied, post } = rotated(clock, { enqueue: queue(jobs) });
    await post(deposit(NEW, 'MAN-rot09-1763812000'));
    const genuine = jobs[0] as SignedCallbackJob;
    // Whoever holds the old key can seal what they like with it.
    const forged = jobSealer(OLD.secretKey, undefined).seal({ ...genuine, payload: { ...genuine.payload, amount: 999_999 } });
    clock.ms = UNTIL_MS + 1;
    const refused: unknown = await receiver.apply(forged).catch((error: unknown) => error);
    expect(refused).toMatchObject({ reason: 'seal_key_expired', field: 'seal' });
    expect(applied).toEqual([]);
    await receiver.apply(genuine);
    expect(applied).toEqual(['MAN-rot09-1763812000 completed']);
  });

  test('a job received before `until` with a hash of the previous key applies while previousSecretKey is given; without it, the refusal says the seal is this receiver\'s', async () => {
    const clock = { ms: NOW_SECONDS * 1000 };
    const jobs: CallbackJob[] = [];
    const { post } = rotated(clock, { enqueue: queue(jobs) });
    await post(deposit(OLD, 'MAN-rot10-1763812000'));
    const dropped = createCallbackReceiver({ ...NEW, merchantId: 'merchant-1', now: () => UNTIL_MS + 86_400_000, onError: () => undefined });
    const refused: unknown = await dropped.apply(jobs[0]!).catch((error: unknown) => error);
    expect(refused).toMatchObject({ reason: 'invalid_signature', field: 'signature' });
    expect((refused as Error).message).toMatch(/seal is this receiver’s.*give it previousSecretKey again/);
    const kept = rotated({ ms: UNTIL_MS + 86_400_000 });
    await kept.receiver.apply(jobs[0]!);
    expect(kept.applied).toEqual(['MAN-rot10-1763812000 completed']);
  });

  test('with the API key rotated too, callbacks and jobs of the previous API key verify until `until`, and jobs received before it apply after it', async () => {
    const before = { apiKey: 'prov_api_before_rotation', secretKey: OLD.secretKey };
    const clock = { ms: NOW_SECONDS * 1000 };
    const jobs: CallbackJob[] = [];
    const { receiver, applied, post } = rotated(clock, { previousSecretKey: { ...before, until: UNTIL }, enqueue: queue(jobs) });
    expect(await post(deposit(before, 'MAN-rot11-1763812000'))).toBe(200);
    expect(await post(deposit(NEW, 'MAN-rot12-1763812000'))).toBe(200);
    // The new API key with the old secret key, and the old one with the new secret key, are no pair.
    expect(await post(deposit({ apiKey: NEW.apiKey, secretKey: before.secretKey }, 'MAN-rot13-1763812000'))).toBe(401);
    expect(await post(deposit({ apiKey: before.apiKey, secretKey: NEW.secretKey }, 'MAN-rot13-1763812000'))).toBe(401);
    clock.ms = UNTIL_MS;
    expect(await post(deposit(before, 'MAN-rot14-1763812000', Math.floor(clock.ms / 1000)))).toBe(401);
    for (const job of jobs) await receiver.apply(job);
    expect(applied).toEqual(['MAN-rot11-1763812000 completed', 'MAN-rot12-1763812000 completed']);
  });

  test('a misspelt part of previousSecretKey is refused at start-up, naming it: the old API key it meant would be unknown, and its callbacks refused all the window', () => {
    const misspelt = { secretKey: OLD.secretKey, apikey: 'prov_api_before_rotation', until: UNTIL };
    const refusal = (name: string) => new RequestValidationError('previousSecretKey', [{ field: name, rule: 'invalid_option', message: 'is not an option of previousSecretKey (misspelt, or removed?); its options are secretKey, apiKey, until' }]);
    expect(() => createCallbackReceiver({ ...NEW, merchantId: 'merchant-1', previousSecretKey: misspelt })).toThrow(refusal('apikey'));
    expect(() => verifyCallback(deposit(OLD), { ...NEW, previousSecretKey: { secretKey: OLD.secretKey, until: UNTIL, windowSeconds: 60 } as never })).toThrow(refusal('windowSeconds'));
  });

  test("after `until`, the API key before the rotation is refused as a passed until, not as another account's key", () => {
    const before = { apiKey: 'prov_api_before_rotation', secretKey: OLD.secretKey };
    const options = { ...NEW, previousSecretKey: { ...before, until: UNTIL }, maxAgeSeconds: 86_400, now: () => UNTIL_MS };
    const late = (keys: typeof before) => () => verifyCallback(deposit(keys, 'MAN-rot15-1763812000', UNTIL_MS / 1000), options);
    expect(late(before)).toThrow(
      "X-Api-Key is the API key before the rotation, and previousSecretKey's until (2025-11-22T12:52:25.000Z) has passed: a callback signed before the rotation and delivered again since is refused; widen until (docs/rotating-keys.md)",
    );
    expect(late({ apiKey: 'prov_api_of_another', secretKey: 'another' })).toThrow(/^Callback refused \(api_key_mismatch\): X-Api-Key is not the API key this receiver was given$/);
  });

  test.each([
    ['without merchantId', { merchantId: undefined }, 'merchantId'],
    ['with the same key as secretKey', { previousSecretKey: { secretKey: NEW.secretKey, until: UNTIL } }, 'previousSecretKey.secretKey'],
    ['with an empty key', { previousSecretKey: { secretKey: '', until: UNTIL } }, 'previousSecretKey.secretKey'],
    ['with an empty API key', { previousSecretKey: { secretKey: OLD.secretKey, until: UNTIL, apiKey: '' } }, 'previousSecretKey.apiKey'],
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
