import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { CallbackVerificationError, DEFAULT_CALLBACK_MAX_AGE_SECONDS, verifyCallback } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../src/tools/sandbox/index.js';
import { customer, providerOf, rawRequest, startReceiver } from '../helpers/sandbox.js';
import type { ReceivedCallback, TestReceiver } from '../helpers/sandbox.js';

/*
 * The sandbox can redeliver a callback with its original signature, so that a
 * receiver's maximum callback age is testable end to end.
 */

let receiver: TestReceiver | undefined;
let running: RunningSandbox | undefined;
afterEach(async () => {
  await running?.close();
  await receiver?.close();
  running = undefined;
  receiver = undefined;
});

const DAY_MS = 86_400_000;

async function settled(sandbox: Sandbox, status = 'completed') {
  const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 250 });
  const { callback } = await sandbox.settle(data.tracking_code, status);
  if (callback === undefined) throw new Error('no callback was delivered');
  return { trackingCode: data.tracking_code, callback };
}

const signatureOf = (request: ReceivedCallback | undefined) => [request?.headers['x-timestamp'], request?.headers['x-hash'], request?.body];

describe('retries with callbackRetry.resign', () => {
  /*
   * Signatures carry Unix seconds, so a fresh signature differs from the first only when a second
   * or more has passed between the attempts. Instead of waiting for it, the clock that signs
   * (Date) moves two seconds as each attempt arrives; the backoff between attempts stays real.
   */
  const AN_ATTEMPT_LATER_MS = 2_000;
  const laterEachAttempt = () => {
    vi.setSystemTime(Date.now() + AN_ATTEMPT_LATER_MS);
  };
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('resign: false sends every retry with the first attempt\'s headers and body, byte for byte', async () => {
    receiver = await startReceiver([500, 500, 200], laterEachAttempt);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { backoffMs: 10, resign: false } });
    await settled(sandbox);
    expect(receiver.received).toHaveLength(3);
    const [first, ...retries] = receiver.received.map(signatureOf);
    for (const retry of retries) expect(retry).toEqual(first);
  });

  test('by default each retry is signed afresh (today\'s behaviour): its timestamp is its own', async () => {
    receiver = await startReceiver([500, 200], laterEachAttempt);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { backoffMs: 10 } });
    const { callback } = await settled(sandbox);
    const [first, second] = receiver.received.map((request) => Number(request.headers['x-timestamp']));
    expect(second).toBeGreaterThan(first ?? Infinity);
    expect(callback.attempts.map((attempt) => attempt.signedAt.getTime() / 1000)).toEqual([first, second]);
  });

  test("settle()'s resign overrides the sandbox's setting for that delivery", async () => {
    receiver = await startReceiver([500, 200], laterEachAttempt);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { backoffMs: 10 } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 250 });
    await sandbox.settle(data.tracking_code, 'completed', { resign: false });
    const [first, second] = receiver.received.map(signatureOf);
    expect(second).toEqual(first);
  });
});

describe('sandbox.redeliver()', () => {
  test('resign: false sends the original headers and body again, as a new delivery that names the first', async () => {
    receiver = await startReceiver([200]);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url } });
    const { callback } = await settled(sandbox);
    const again = await sandbox.redeliver(callback.id, { resign: false });
    expect(again).toMatchObject({ redeliveryOf: callback.id, delivered: true, url: receiver.url });
    expect(again.id).not.toBe(callback.id);
    expect(signatureOf(receiver.received[1])).toEqual(signatureOf(receiver.received[0]));
    expect(again.attempts[0]?.signedAt).toEqual(callback.attempts[0]?.signedAt);
  });

  test('a redelivery of a redelivery still carries the first signature', async () => {
    receiver = await startReceiver([200]);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url } });
    const { callback } = await settled(sandbox);
    const fresh = await sandbox.redeliver(callback.id, { resign: true });
    await sandbox.redeliver(fresh.id, { resign: false });
    expect(signatureOf(receiver.received[2])).toEqual(signatureOf(receiver.received[0]));
  });

  test("it goes to the kind's callback URL now, so a receiver moved to another port gets it", async () => {
    const old = await startReceiver([500]);
    const sandbox = createSandbox({ callbackUrls: { deposit: old.url }, callbackRetry: { attempts: 1 } });
    const { callback } = await settled(sandbox);
    await old.close();
    receiver = await startReceiver([200]);
    sandbox.setCallbackUrls({ deposit: receiver.url });
    expect((await sandbox.redeliver(callback.id)).delivered).toBe(true);
    expect(receiver.received).toHaveLength(1);
  });

  test('an unknown id is a SandboxError unknown_delivery', async () => {
    await expect(createSandbox().redeliver('dlv_404')).rejects.toMatchObject({ name: 'SandboxError', code: 'unknown_delivery' });
  });
});

describe('end to end: a callback redelivered with its original signature long after', () => {
  /*
   * Signatures carry real time; the record clock moved two days stands for the receiver's
   * clock two days later: the receiver verifies with `now` on the sandbox's record clock.
   */
  function verifyAt(sandbox: Sandbox, request: ReceivedCallback | undefined, apiKey: string, secretKey: string) {
    if (request === undefined) throw new Error('nothing received');
    // verifyCallback's defaults: a maximum age of 3 days.
    return verifyCallback({ headers: request.headers, body: request.body }, { apiKey, secretKey, now: () => sandbox.clock.now().getTime() });
  }

  test('POST /__sandbox/deliveries/{id}/redeliver {"resign": false} two days later is verified within the 3-day window; four days later it is refused', async () => {
    receiver = await startReceiver([200]);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url } });
    running = await sandbox.listen({ port: 0 });
    const { apiKey, secretKey } = sandbox.accounts.provider;
    const { trackingCode, callback } = await settled(sandbox);
    expect(verifyAt(sandbox, receiver.received[0], apiKey, secretKey).payload.tracking_code).toBe(trackingCode);

    await sandbox.clock.advance(2 * DAY_MS);
    const answer = await rawRequest(running.url, `/__sandbox/deliveries/${callback.id}/redeliver`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"resign":false}' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ success: true, delivery: { redeliveryOf: callback.id, delivered: true } });
    const late = receiver.received[1];
    expect(signatureOf(late)).toEqual(signatureOf(receiver.received[0]));
    const verified = verifyAt(sandbox, late, apiKey, secretKey);
    expect(verified).toMatchObject({ kind: 'deposit', payload: { tracking_code: trackingCode, status: 'completed', amount: 250 } });
    expect(DEFAULT_CALLBACK_MAX_AGE_SECONDS).toBe(259_200);
    expect(verified.ageSeconds).toBeGreaterThanOrEqual(2 * 86_400);
    expect(verified.ageSeconds).toBeLessThan(2 * 86_400 + 600);

    await sandbox.clock.advance(2 * DAY_MS);
    await rawRequest(running.url, `/__sandbox/deliveries/${callback.id}/redeliver`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"resign":false}' });
    expect(() => verifyAt(sandbox, receiver?.received[2], apiKey, secretKey)).toThrow(CallbackVerificationError);
    expect(() => verifyAt(sandbox, receiver?.received[2], apiKey, secretKey)).toThrow(/maxAgeSeconds/);
  });

  test('re-signed, the same redelivery is fresh: its timestamp is the real time of sending', async () => {
    receiver = await startReceiver([200]);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url } });
    running = await sandbox.listen({ port: 0 });
    const { callback } = await settled(sandbox);
    const before = Math.floor(Date.now() / 1000);
    const answer = await rawRequest(running.url, `/__sandbox/deliveries/${callback.id}/redeliver`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"resign":true}' });
    expect(answer.status).toBe(200);
    const { apiKey, secretKey } = sandbox.accounts.provider;
    const request = receiver.received[1];
    expect(Number(request?.headers['x-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(verifyCallback({ headers: request?.headers ?? {}, body: request?.body ?? '' }, { apiKey, secretKey }).kind).toBe('deposit');
  });

  test('an unknown delivery id answers 404; a bad body 422', async () => {
    const sandbox = createSandbox();
    running = await sandbox.listen({ port: 0 });
    const json = { 'Content-Type': 'application/json' };
    expect((await rawRequest(running.url, '/__sandbox/deliveries/dlv_9/redeliver', { method: 'POST', headers: json, body: '{}' })).status).toBe(404);
    expect((await rawRequest(running.url, '/__sandbox/deliveries/dlv_9/redeliver', { method: 'POST', headers: json, body: '{"resign":"yes"}' })).status).toBe(422);
  });
});

describe('settle with failDeliveries: an endpoint that stays down until the attempts run out', () => {
  test('every attempt fails at once without being sent, and the delivery stays in the log for a later redelivery', async () => {
    receiver = await startReceiver([200]);
    // A minute between attempts: the test would hang if an endpoint that is down were waited for.
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { attempts: 4, backoffMs: 60_000 } });
    running = await sandbox.listen({ port: 0, host: '127.0.0.1' });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 250 });
    const answer = await rawRequest(running.url, '/__sandbox/settle', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: data.tracking_code, status: 'completed', failDeliveries: true }) });
    expect(answer.status).toBe(200);
    const { callback } = JSON.parse(answer.text) as { callback: { id: string; delivered: boolean; attempts: { attempt: number; httpStatus?: number; error: string }[] } };
    expect(callback.delivered).toBe(false);
    expect(callback.attempts.map(({ attempt, httpStatus, error }) => [attempt, httpStatus ?? null, error])).toEqual(
      [1, 2, 3, 4].map((attempt) => [attempt, null, 'the endpoint was down (settle with failDeliveries): not sent']),
    );
    expect(receiver.received).toEqual([]);
    const again = await sandbox.redeliver(callback.id);
    expect([again.delivered, receiver.received.length]).toEqual([true, 1]);
  });
});
