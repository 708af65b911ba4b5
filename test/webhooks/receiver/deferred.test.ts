import { describe, expect, test, vi } from 'vitest';
import { CallbackHandlingError, CallbackJobError, CallbackVerificationError, createCallbackReceiver, NotConfirmedError, signCallback } from '../../../src/index.js';
import type { CallbackJob, SignedCallbackJob, CallbackReceiver, CallbackReceiverOptions, MemoryInboxContext, VerifiedCallback } from '../../../src/index.js';
import * as webhooks from '../../../src/webhooks/index.js';
import { createVerifier } from '../../../src/webhooks/verify.js';
import { NOW_SECONDS, sign, unsigned } from '../../helpers/callbacks.js';
import type { Delivery } from '../../helpers/serve.js';
import { DEALER, PROVIDER } from '../../helpers/wire.js';
import { merchantIdOf } from '../../../src/webhooks/key.js';

/** An enqueue that stores each job as an engine stores it: as JSON text. */
function store(jobs: SignedCallbackJob[]): (job: CallbackJob) => Promise<void> {
  return (job) => {
    jobs.push(JSON.parse(JSON.stringify(job)) as SignedCallbackJob);
    return Promise.resolve();
  };
}

// The deferred path without a queue engine: `enqueue` into an array, `apply` from it after a
// round-trip through JSON, as every engine stores the job. The engines themselves are in
// deferred-pgboss.pg.test.ts and deferred-bullmq.test.ts.

const NOW_MS = NOW_SECONDS * 1000;
const DAY_MS = 86_400_000;

function deposit(trackingCode: string, status = 'completed', timestamp = NOW_SECONDS): Delivery {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode, status }, { ...PROVIDER, timestamp });
}

interface Harness {
  readonly receiver: CallbackReceiver<MemoryInboxContext>;
  readonly jobs: SignedCallbackJob[];
  readonly applied: VerifiedCallback[];
  readonly errors: { phase: string; error: unknown }[];
  readonly clock: { ms: number };
  readonly post: (delivery: Delivery) => Promise<{ status: number; body: string }>;
}

function harness(options: Partial<CallbackReceiverOptions<MemoryInboxContext>> = {}): Harness {
  const jobs: SignedCallbackJob[] = [];
  const applied: VerifiedCallback[] = [];
  const errors: { phase: string; error: unknown }[] = [];
  const clock = { ms: NOW_MS };
  const receiver = createCallbackReceiver({
    ...PROVIDER,
    now: () => clock.ms,
    onError: (error, { phase }) => void errors.push({ phase, error }),
    enqueue: store(jobs),
    ...options,
  });
  receiver.on('deposit', (callback) => void applied.push(callback));
  const post = async (delivery: Delivery) => {
    const answer = await receiver.receive({ headers: delivery.headers, body: delivery.body });
    return { status: answer.status, body: answer.body };
  };
  return { receiver, jobs, applied, errors, clock, post };
}

async function refusalOf(promise: Promise<unknown>): Promise<CallbackJobError> {
  const error: unknown = await promise.then(
    () => new Error('apply resolved for a job it should refuse'),
    (caught: unknown) => caught,
  );
  if (error instanceof CallbackJobError) return error;
  throw error;
}

describe('a receiver with enqueue', () => {
  test('answers 200 once enqueue resolves, with a sealed job that holds the callback, its signature and no secret key, and runs neither confirm nor a handler', async () => {
    const confirm = vi.fn(() => true);
    const { jobs, applied, post } = harness({ confirm });
    const delivery = deposit('MAN-job01-1763812000');
    expect(await post(delivery)).toEqual({ status: 200, body: '{"success":true}' });
    expect(applied).toEqual([]);
    expect(confirm).not.toHaveBeenCalled();
    const hash = delivery.headers['X-Hash'];
    expect(jobs).toEqual([
      {
        version: 2,
        merchantId: merchantIdOf(PROVIDER.apiKey, undefined),
        kind: 'deposit',
        event: 'deposit.completed',
        payload: { ...unsigned.deposit, tracking_code: 'MAN-job01-1763812000', timestamp: NOW_SECONDS, hash },
        receivedAt: NOW_MS,
        signature: { hash, timestamp: NOW_SECONDS, in: 'headers' },
        seal: { keyId: expect.stringMatching(/^[0-9a-f]{16}$/), mac: expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
    ]);
    expect(JSON.stringify(jobs)).not.toContain(PROVIDER.secretKey);
  });

  test('answers 500 not_queued when enqueue throws, tells onError, records nothing, and the redelivery is queued and applied', async () => {
    let down = true;
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const { receiver, jobs, applied, errors, post } = harness({
      enqueue: (job) => (down ? Promise.reject(refused) : store(jobs)(job)),
    });
    const delivery = deposit('MAN-down02-1763812000');
    expect(await post(delivery)).toEqual({ status: 500, body: '{"success":false,"error":"not_queued"}' });
    expect(errors.map((each) => each.phase)).toEqual(['enqueue']);
    expect(errors[0]?.error).toBeInstanceOf(CallbackHandlingError);
    expect(errors[0]?.error).toMatchObject({ phase: 'enqueue', cause: refused, message: 'The callback was not applied: enqueue threw Error: connect ECONNREFUSED 127.0.0.1:5432' });
    down = false;
    expect((await post(delivery)).status).toBe(200);
    await receiver.apply(jobs[0]!);
    expect(applied.map((callback) => callback.payload.tracking_code)).toEqual(['MAN-down02-1763812000']);
  });

  const genuine = deposit('MAN-bad03-1763812000');
  test.each<[string, Delivery, number]>([
    ['a forged hash', { headers: { ...genuine.headers, 'X-Hash': 'f'.repeat(64) }, body: genuine.body }, 401],
    ['another account’s keys', signCallback({ ...unsigned.deposit }, { ...DEALER, timestamp: NOW_SECONDS }), 401],
    ['a stale signature', deposit('MAN-bad03-1763812000', 'completed', NOW_SECONDS - 4 * 86_400), 401],
    ['a malformed body', { headers: genuine.headers, body: '{"tracking_code":' }, 400],
    ['a status changed after signing', { headers: genuine.headers, body: genuine.body.replace('"completed"', '"canceled"') }, 401],
  ])('never hands %s to enqueue', async (_name, delivery, status) => {
    const { jobs, post } = harness();
    expect((await post(delivery)).status).toBe(status);
    expect(jobs).toEqual([]);
  });
});

describe('receiver.apply(job)', () => {
  test('runs confirm and the handlers of a job after a JSON round-trip, once, and resolves for its duplicates and re-signed copies', async () => {
    const order: string[] = [];
    const { receiver, jobs, applied, post } = harness({ confirm: () => (order.push('confirm'), true) });
    receiver.on('deposit.completed', () => void order.push('handler'));
    await post(deposit('MAN-once04-1763812000'));
    await post(deposit('MAN-once04-1763812000'));
    // The service re-signs its redelivery: another hash and timestamp, the same callback.
    await post(deposit('MAN-once04-1763812000', 'completed', NOW_SECONDS + 60));
    expect(jobs).toHaveLength(3);
    expect(jobs[2]!.signature.timestamp).toBe(NOW_SECONDS + 60);
    const { apply } = receiver;
    await Promise.all(jobs.map((job) => apply(job)));
    await apply(jobs[0]!);
    expect(order).toEqual(['confirm', 'handler']);
    expect(applied.map((callback) => [callback.kind, callback.payload.tracking_code, callback.payload.amount, callback.payload.hash])).toEqual([
      ['deposit', 'MAN-once04-1763812000', 250, jobs[0]!.signature.hash],
    ]);
  });

  test('measures the age limit at the receipt time: a job applied four days after a fresh callback arrived applies', async () => {
    const { receiver, jobs, applied, clock, post } = harness();
    await post(deposit('MAN-late05-1763812000'));
    clock.ms += 4 * DAY_MS;
    await receiver.apply(jobs[0]!);
    expect(applied).toHaveLength(1);
  });

  test('applies a dealer card callback that came without headers, as a dealer card callback', async () => {
    const jobs: SignedCallbackJob[] = [];
    const receiver = createCallbackReceiver({ ...DEALER, now: () => NOW_MS, dealerCardWithoutHeaders: true, enqueue: store(jobs) });
    const kinds: string[] = [];
    receiver.on('dealerCreditCard.success', (callback) => void kinds.push(callback.kind));
    const { body } = sign({ ...unsigned.dealerCreditCard, tracking_code: 'CC-dl06-1763812000' }, DEALER);
    expect((await receiver.receive({ headers: {}, body })).status).toBe(200);
    expect(jobs[0]!.signature.in).toBe('body');
    await receiver.apply(jobs[0]!);
    expect(kinds).toEqual(['dealerCreditCard']);
  });

  test.each<[string, 'confirm-false' | 'confirm-throws' | 'handler-throws']>([
    ['confirm refuses', 'confirm-false'],
    ['confirm throws', 'confirm-throws'],
    ['a handler throws', 'handler-throws'],
  ])('rejects when %s (with the error as thrown; onError with it wrapped), records nothing, and the retry applies it once', async (_name, failure) => {
    let failing = true;
    const thrown = new Error(failure === 'confirm-throws' ? 'ledger down' : 'deadlock detected');
    const { receiver, jobs, applied, errors, post } = harness({
      confirm: () => {
        if (failing && failure === 'confirm-throws') throw thrown;
        return !(failing && failure === 'confirm-false');
      },
    });
    receiver.on('deposit.completed', () => {
      if (failing && failure === 'handler-throws') throw thrown;
    });
    await post(deposit('MAN-fail07-1763812000'));
    const phase = failure === 'handler-throws' ? 'handler' : 'confirm';
    if (failure === 'confirm-false') {
      await expect(receiver.apply(jobs[0]!)).rejects.toMatchObject({ name: 'NotConfirmedError', outcome: 'refused' });
      expect(errors[0]?.error).toBeInstanceOf(NotConfirmedError);
    } else {
      await expect(receiver.apply(jobs[0]!)).rejects.toBe(thrown);
      expect(errors[0]?.error).toMatchObject({ name: 'CallbackHandlingError', phase, cause: thrown });
    }
    expect(errors.map((each) => each.phase)).toEqual([phase]);
    failing = false;
    await receiver.apply(jobs[0]!);
    await receiver.apply(jobs[0]!);
    // The '*'-less 'deposit' handler completed in the failed attempt of 'handler-throws' and is
    // not run again (the in-memory inbox keeps progress); in the others it never ran before.
    expect(applied).toHaveLength(1);
  });

  test('rejects, with no handler, when unhandled is retry; resolves when it is acknowledge', async () => {
    const jobs: SignedCallbackJob[] = [];
    const make = (unhandled: 'retry' | 'acknowledge') =>
      createCallbackReceiver({ ...PROVIDER, now: () => NOW_MS, unhandled, onError: () => undefined, enqueue: store(jobs) });
    await make('retry').receive({ headers: deposit('MAN-none08-1763812000').headers, body: deposit('MAN-none08-1763812000').body });
    await expect(make('retry').apply(jobs[0]!)).rejects.toThrow(/no handler/);
    await expect(make('acknowledge').apply(jobs[0]!)).resolves.toBeUndefined();
  });
});

describe('receiver.apply refuses a job changed or written in the queue', () => {
  type Change = (job: SignedCallbackJob) => unknown;
  const payload = (job: SignedCallbackJob, fields: Record<string, unknown>): SignedCallbackJob => ({ ...job, payload: { ...job.payload, ...fields } });
  const forgedHash = sign({ ...unsigned.deposit, tracking_code: 'MAN-frg09-1763812000' }, { apiKey: PROVIDER.apiKey, secretKey: 'a guessed secret' }).hash;
  test.each<[string, Change, string, string]>([
    ['an amount raised from 250 to 999999', (job) => payload(job, { amount: 999_999 }), 'invalid_signature', 'seal'],
    ['another user', (job) => payload(job, { user_id: 'u-attacker' }), 'invalid_signature', 'seal'],
    ['a receipt time moved', (job) => ({ ...job, receivedAt: job.receivedAt - 60_000 }), 'invalid_signature', 'seal'],
    ['an event changed', (job) => ({ ...job, event: 'deposit.canceled' }), 'invalid_signature', 'seal'],
    ['a kind changed', (job) => ({ ...job, kind: 'withdrawal', event: 'withdrawal.completed' }), 'invalid_signature', 'seal'],
    ['a status changed', (job) => ({ ...payload(job, { status: 'canceled' }), event: 'deposit.canceled' }), 'invalid_signature', 'seal'],
    ['a tracking code changed', (job) => payload(job, { tracking_code: 'MAN-other99-1763812000' }), 'invalid_signature', 'seal'],
    ['a signed timestamp moved', (job) => ({ ...job, signature: { ...job.signature, timestamp: job.signature.timestamp + 1 } }), 'invalid_signature', 'seal'],
    ['a trace context changed', (job) => ({ ...job, traceContext: { traceparent: 'not-a-traceparent' } }), 'invalid_signature', 'seal'],
    ['a job forged without the secret key', (job) => ({ ...payload(job, { tracking_code: 'MAN-frg09-1763812000', hash: forgedHash }), signature: { ...job.signature, hash: forgedHash }, seal: { ...job.seal, mac: 'ab'.repeat(32) } }), 'invalid_signature', 'seal'],
    ['its seal removed', ({ seal: _seal, ...job }) => job, 'malformed_body', 'seal'],
    ['another account', (job) => ({ ...job, merchantId: 'merchant-2' }), 'merchant_mismatch', 'merchantId'],
    ['a job of version 1', (job) => ({ ...job, version: 1 }), 'malformed_body', 'job'],
    ['a job of a later version', (job) => ({ ...job, version: 3 }), 'malformed_body', 'job'],
    ['a string', () => 'MAN-str-1763812000', 'malformed_body', 'job'],
  ])('%s: rejects with CallbackJobError and applies nothing', async (_name, change, reason, field) => {
    const { receiver, jobs, applied, post } = harness();
    await post(deposit('MAN-frg09-1763812000'));
    const job = jobs[0]!;
    const error = await refusalOf(receiver.apply(change(job) as CallbackJob));
    expect([error.reason, error.field]).toEqual([reason, field]);
    expect(error).toBeInstanceOf(CallbackVerificationError);
    expect(error.name).toBe('CallbackJobError');
    expect(error.message).not.toContain(job.signature.hash);
    expect(error.message).not.toContain(job.seal.mac);
    expect(applied).toEqual([]);
    // Nothing was recorded: the genuine job still applies.
    await receiver.apply(job);
    expect(applied).toHaveLength(1);
  });

  test.each([
    [1, /^Callback refused \(malformed_body\): the job is not a CallbackJob of version 2 \(sealed\): version 1, of a build before the first release, carried no seal and is not trusted; apply its callback by hand, from the panel, then purge the dead letter$/],
    [3, /^Callback refused \(malformed_body\): the job is a CallbackJob of version 3, written by a later payorch; this one reads version 2: a worker of that version applies it \(replay it there\)$/],
  ])('a job of version %i says which version it is, and what to do with it', async (version, message) => {
    const { receiver, jobs, post } = harness();
    await post(deposit('MAN-ver01-1763812000'));
    const error = await refusalOf(receiver.apply({ ...jobs[0]!, version } as unknown as CallbackJob));
    expect(error.message).toMatch(message);
  });

  test("an old card payment's job points to the status read, which card payments have", async () => {
    const { receiver, jobs, post } = harness();
    await post(signCallback(unsigned.creditCard, { ...PROVIDER, timestamp: NOW_SECONDS }));
    const error = await refusalOf(receiver.apply({ ...jobs[0]!, version: 1 } as unknown as CallbackJob));
    expect(error.message).toMatch(/; apply its callback from the service's status \(receiver\.reconcile\), then purge the dead letter$/);
  });

  test('a job whose members the engine reordered (as jsonb does) applies', async () => {
    const { receiver, jobs, applied, post } = harness();
    await post(deposit('MAN-ord10-1763812000'));
    const reversed = (value: object): object => Object.fromEntries(Object.entries(value).reverse().map(([name, member]: [string, unknown]) => [name, typeof member === 'object' && member !== null ? reversed(member) : member]));
    await receiver.apply(reversed(jobs[0]!) as CallbackJob);
    expect(applied.map((callback) => callback.payload.amount)).toEqual([250]);
  });

  test('refuses the job of a receiver with other keys under the same merchantId: its seal is of a key this receiver does not hold', async () => {
    const { receiver, jobs, applied, post } = harness({ merchantId: 'merchant-1' });
    await post(deposit('MAN-acct11-1763812000'));
    const theirs = createVerifier({ ...PROVIDER, secretKey: 'another account’s secret' }).seals.seal({ ...jobs[0]!, seal: undefined });
    const error = await refusalOf(receiver.apply(theirs));
    expect([error.reason, error.field]).toEqual(['seal_key_unknown', 'seal']);
    expect(applied).toEqual([]);
  });

  test('writes no API key into a job, whether merchantId is left out or given as the API key, and applies the job', async () => {
    for (const options of [{}, { merchantId: PROVIDER.apiKey }]) {
      const { receiver, jobs, applied, post } = harness(options);
      await post(deposit('MAN-nokey15-1763812000'));
      expect(jobs[0]?.merchantId).toBe(merchantIdOf(PROVIDER.apiKey, undefined));
      expect(JSON.stringify(jobs)).not.toContain(PROVIDER.apiKey);
      await receiver.apply(jobs[0]!);
      expect(applied).toHaveLength(1);
    }
  });

  test('refuses the job of a receiver with the same keys under another merchantId', async () => {
    const first = harness({ merchantId: 'merchant-1' });
    const second = harness({ merchantId: 'merchant-2' });
    await first.post(deposit('MAN-acct10-1763812000'));
    const error = await refusalOf(second.receiver.apply(first.jobs[0]!));
    expect([error.reason, error.field]).toEqual(['merchant_mismatch', 'merchantId']);
    expect(second.applied).toEqual([]);
  });
});

describe('receiver.apply checks a sealed job as the callback was checked', () => {
  // Sealed again with the receiver's own key, as only a holder of the secret key can: the
  // service's hash still refuses what it covers, and the job's fields must still agree with it.
  const resealed = (job: SignedCallbackJob): CallbackJob => createVerifier(PROVIDER).seals.seal({ ...job, seal: undefined });
  type Change = (job: SignedCallbackJob) => SignedCallbackJob;
  test.each<[string, Change, string, string]>([
    ['a status changed', (job) => ({ ...job, event: 'deposit.canceled', payload: { ...job.payload, status: 'canceled' } }), 'invalid_signature', 'signature'],
    ['a tracking code changed', (job) => ({ ...job, payload: { ...job.payload, tracking_code: 'MAN-other99-1763812000' } }), 'invalid_signature', 'signature'],
    ['a signed timestamp moved', (job) => ({ ...job, signature: { ...job.signature, timestamp: job.signature.timestamp + 1 } }), 'invalid_signature', 'signature'],
    ['a kind that disagrees with the signed fields', (job) => ({ ...job, kind: 'withdrawal', event: 'withdrawal.completed' }) as unknown as SignedCallbackJob, 'kind_mismatch', 'kind'],
    ['an event that disagrees with the signed status', (job) => ({ ...job, event: 'deposit.canceled' }), 'kind_mismatch', 'event'],
    ['a signature carried nowhere', (job) => ({ ...job, signature: { ...job.signature, in: 'query' } }) as unknown as SignedCallbackJob, 'malformed_body', 'signature'],
    ['a body without headers on a receiver that does not take one', (job) => ({ ...job, signature: { ...job.signature, in: 'body' } }), 'missing_header', 'signature'],
    ['a payload that is not an object', (job) => ({ ...job, payload: 'MAN-x' }) as unknown as SignedCallbackJob, 'malformed_body', 'payload'],
  ])('%s: rejects with CallbackJobError and applies nothing', async (_name, change, reason, field) => {
    const { receiver, jobs, applied, post } = harness();
    await post(deposit('MAN-frg12-1763812000'));
    const error = await refusalOf(receiver.apply(resealed(change(jobs[0]!))));
    expect([error.reason, error.field]).toEqual([reason, field]);
    expect(applied).toEqual([]);
  });

  test('refuses a job whose receipt time was past the age limit, sealed by a receiver that allowed more', async () => {
    const lenient = harness({ maxAgeSeconds: 5 * 86_400 });
    const { receiver, applied } = harness();
    await lenient.post(deposit('MAN-age13-1763812000', 'completed', NOW_SECONDS - 4 * 86_400));
    const error = await refusalOf(receiver.apply(lenient.jobs[0]!));
    expect([error.reason, error.field, error.retryable]).toEqual(['timestamp_out_of_tolerance', 'receivedAt', false]);
    expect(applied).toEqual([]);
  });

  test('refuses a job received by an instance whose clock ran more than toleranceSeconds ahead, until the worker’s clock catches up', async () => {
    const ahead = harness();
    ahead.clock.ms = NOW_MS + 301_000;
    await ahead.post(deposit('MAN-fut14-1763812000', 'completed', NOW_SECONDS + 301));
    const { receiver, applied, clock } = harness();
    const error = await refusalOf(receiver.apply(ahead.jobs[0]!));
    // Retryable: the engine tries it again rather than keeping it as a dead letter at once.
    expect([error.reason, error.field, error.retryable]).toEqual(['timestamp_out_of_tolerance', 'receivedAt', true]);
    clock.ms += 2_000;
    await receiver.apply(ahead.jobs[0]!);
    expect(applied).toHaveLength(1);
  });

  test('applies a job whose trace context is not a W3C traceparent: it decides nothing', async () => {
    const { receiver, jobs, applied, post } = harness();
    await post(deposit('MAN-trc15-1763812000'));
    await receiver.apply(resealed({ ...jobs[0]!, traceContext: { traceparent: 'not-a-traceparent' } }));
    expect(applied).toHaveLength(1);
  });
});

test('payorch/webhooks exports the same objects as payorch', async () => {
  const main = await import('../../../src/index.js');
  const names = Object.keys(webhooks);
  expect(names.length).toBeGreaterThan(10);
  for (const name of names) expect(webhooks[name as keyof typeof webhooks], name).toBe((main as Readonly<Record<string, unknown>>)[name]);
  expect(names).toEqual(expect.arrayContaining(['verifyCallback', 'signCallback', 'createCallbackReceiver', 'createMemoryInbox', 'CallbackJobError', 'CallbackVerificationError']));
});
