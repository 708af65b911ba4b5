// receiver.reconcile with the in-memory inbox: its input checks, how each failed read is reported,
// confirm, a refunded payment, bounded concurrency and deferred jobs, over the sandbox and a
// loopback status server (the PostgreSQL cases, two instances, live in reconcile.pg.test.ts).
import { describe, expect, test, vi } from 'vitest';
import { CallbackJobError, CallbackRetentionError, createCallbackReceiver, createMemoryInbox, isPayorchError, RequestValidationError } from '../../../src/index.js';
import type { AppliedCallback, CallbackJob, CallbackReceiverOptions, CardStatusSource, MemoryInboxContext, ReconcileOptions, StatusReadJob } from '../../../src/index.js';
import { createVerifier } from '../../../src/webhooks/verify.js';
import { createSandbox } from '../../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../../src/tools/sandbox/index.js';
import { closeLoopbackServers, json, providerFor, startServer } from '../../helpers/loopback.js';
import { providerOf } from '../../helpers/sandbox.js';
import { PROVIDER } from '../../helpers/wire.js';

closeLoopbackServers();

const CARD = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 };

/** A sandbox, its provider client, and a receiver of its provider account that records what its handlers see. */
function setup(options: Partial<CallbackReceiverOptions<MemoryInboxContext>> = {}) {
  const sandbox = createSandbox();
  const provider = providerOf(sandbox);
  const { apiKey, secretKey } = sandbox.accounts.provider;
  const seen: AppliedCallback[] = [];
  const receiver = createCallbackReceiver({ apiKey, secretKey, onError: () => undefined, ...options });
  receiver.on('creditCard', (callback) => void seen.push(callback));
  return { sandbox, provider, receiver, seen };
}

async function cardPayment(sandbox: Sandbox, status?: string): Promise<string> {
  const { data } = await providerOf(sandbox).creditCard.createPayment(CARD);
  // No callback URL is set: the callback is lost, as with an endpoint that never answered.
  if (status !== undefined) await sandbox.settle(data.tracking_code, status);
  return data.tracking_code;
}

describe('receiver.reconcile', () => {
  test('applies each end status once with the status answer\'s fields, leaves a pending payment alone, and reports an unknown code', async () => {
    const { sandbox, provider, receiver, seen } = setup();
    const paid = await cardPayment(sandbox, 'success');
    const cancelled = await cardPayment(sandbox, 'cancelled');
    const pending = await cardPayment(sandbox);
    const unknown = 'CC-nope1-1763812000';
    const results = await receiver.reconcile({ provider, trackingCodes: [paid, cancelled, pending, unknown] });
    expect(results).toEqual([
      { trackingCode: paid, result: 'applied', status: 'success' },
      { trackingCode: cancelled, result: 'applied', status: 'cancelled' },
      { trackingCode: pending, result: 'pending', status: 'pending' },
      { trackingCode: unknown, result: 'not_found' },
    ]);
    expect(seen.map((callback) => [callback.source, callback.payload.tracking_code, callback.payload.status])).toEqual([
      ['status', paid, 'success'],
      ['status', cancelled, 'cancelled'],
    ]);
    // Only spec 2.6's status fields: nothing a callback carries that the status answer lacks.
    expect(Object.keys(seen[0]?.payload ?? {}).sort()).toEqual(['amount', 'created_at', 'currency', 'order_id', 'status', 'tracking_code', 'updated_at', 'user_id', 'username']);
    expect(seen[0]).toMatchObject({ kind: 'creditCard', readStatus: 'success', payload: { amount: 150, user_id: 'u-1' } });
    expect(await receiver.reconcile({ provider, trackingCodes: [paid, cancelled] })).toEqual([
      { trackingCode: paid, result: 'duplicate', status: 'success' },
      { trackingCode: cancelled, result: 'duplicate', status: 'cancelled' },
    ]);
    expect(seen).toHaveLength(2);
  });

  test('a refunded payment applies success, then refunded, each under its own key and in that order', async () => {
    const { sandbox, provider, receiver, seen } = setup();
    const contexts: (readonly string[])[] = [];
    receiver.on('creditCard.refunded', (callback, context) => void contexts.push(context.appliedStatuses));
    const code = await cardPayment(sandbox, 'success');
    await sandbox.settle(code, 'refunded');
    expect(await receiver.reconcile({ provider, trackingCodes: [code] })).toEqual([{ trackingCode: code, result: 'applied', status: 'refunded' }]);
    expect(seen.map((callback) => [callback.payload.status, callback.source === 'status' ? callback.readStatus : undefined])).toEqual([
      ['success', 'refunded'],
      ['refunded', 'refunded'],
    ]);
    expect(contexts).toEqual([['success']]);
    expect((await receiver.reconcile({ provider, trackingCodes: [code] }))[0]?.result).toBe('duplicate');
  });

  test('a confirm that refuses is reported, applies and records nothing; once it confirms, the status applies', async () => {
    let allow = false;
    const confirmed: AppliedCallback[] = [];
    const { sandbox, provider, receiver, seen } = setup({
      confirm: (callback) => {
        confirmed.push(callback);
        return allow;
      },
    });
    const code = await cardPayment(sandbox, 'success');
    const [refused] = await receiver.reconcile({ provider, trackingCodes: [code] });
    expect(refused).toMatchObject({ trackingCode: code, result: 'refused', status: 'success' });
    expect(seen).toEqual([]);
    expect(confirmed.map((callback) => callback.source)).toEqual(['status']);
    allow = true;
    expect((await receiver.reconcile({ provider, trackingCodes: [code] }))[0]?.result).toBe('applied');
    expect(seen).toHaveLength(1);
  });

  test('a handler that throws is failed for its code only; the others apply and it applies on the next run', async () => {
    const { sandbox, provider, receiver } = setup();
    let failures = 1;
    const credited: string[] = [];
    receiver.on('creditCard.success', (callback) => {
      if (failures-- > 0) throw new Error('deadlock detected');
      credited.push(callback.payload.tracking_code);
    });
    const first = await cardPayment(sandbox, 'success');
    const second = await cardPayment(sandbox, 'success');
    const results = await receiver.reconcile({ provider, trackingCodes: [first, second], concurrency: 1 });
    expect(results.map((each) => each.result)).toEqual(['failed', 'applied']);
    expect(results[0]?.error).toEqual(new Error('deadlock detected'));
    expect((await receiver.reconcile({ provider, trackingCodes: [first, second] })).map((each) => each.result)).toEqual(['applied', 'duplicate']);
    expect(credited).toEqual([second, first]);
  });

  test.each([
    ['401 Invalid hash', 401, { success: false, error: 'Invalid hash', message: 'Hash verification failed' }, 'AuthenticationError', 'refused'],
    ['403 IP address not allowed', 403, { success: false, error: 'IP address not allowed', message: 'Your IP is not whitelisted' }, 'PermissionDeniedError', 'refused'],
    ['503 from a proxy', 503, { success: false, message: 'Service Unavailable' }, 'InternalServerError', 'unknown'],
    ['a 404 page of a proxy, not JSON', 404, '<html>Not Found</html>', 'NotFoundError', 'refused'],
    ['404 of an unknown endpoint (a wrong base URL path)', 404, { success: false, error: 'Not Found', message: 'No endpoint at POST /credit-card/status' }, 'NotFoundError', 'refused'],
  ] as const)('%s is failed, with the error and its outcome, never not_found', async (_name, status, body, name, outcome) => {
    const server = await startServer((_request, response) => (typeof body === 'string' ? response.writeHead(status, { 'content-type': 'text/html' }).end(body) : json(response, status, body)));
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: () => undefined });
    const code = 'CC-fail1-1763812000';
    const [result] = await receiver.reconcile({ provider: providerFor(server, { maxRetries: 0 }), trackingCodes: [code] });
    expect(result).toMatchObject({ trackingCode: code, result: 'failed', outcome });
    expect((result?.error as Error).name).toBe(name);
  });

  test('a read that times out is failed (outcome unknown), and the card error shape with 404 is not_found', async () => {
    const server = await startServer((request, response, _n, seen) => {
      if (seen.body.includes('CC-slow1')) return undefined;
      return json(response, 404, { success: false, message: 'Payment not found' });
    });
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: () => undefined });
    const results = await receiver.reconcile({ provider: providerFor(server, { maxRetries: 0, timeout: 200 }), trackingCodes: ['CC-slow1-1763812000', 'CC-gone1-1763812000'] });
    expect(results).toMatchObject([
      { result: 'failed', outcome: 'unknown', error: { name: 'TimeoutError' } },
      { result: 'not_found' },
    ]);
  });

  test('an answer about another tracking code applies nothing', async () => {
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: () => undefined });
    const handler = vi.fn();
    receiver.on('*', handler);
    const provider: CardStatusSource = { creditCard: { getStatus: () => Promise.resolve({ data: { tracking_code: 'CC-other-1763812000', status: 'success', amount: 150 } }) } };
    const [result] = await receiver.reconcile({ provider, trackingCodes: ['CC-mine1-1763812000'] });
    expect(result?.result).toBe('failed');
    expect((result?.error as Error).message).toMatch(/another tracking code/);
    expect(handler).not.toHaveBeenCalled();
  });

  test('behind the inbox\'s retention horizon is too_old; with no handler for it, unhandled: nothing applied or recorded either way', async () => {
    let now = Date.now();
    const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createMemoryInbox({ retentionSeconds: 60, now: () => now }), onError: () => undefined });
    const provider: CardStatusSource = { creditCard: { getStatus: ({ tracking_code }) => Promise.resolve({ data: { tracking_code, status: 'success', amount: 150 } }) } };
    expect((await receiver.reconcile({ provider, trackingCodes: ['CC-old1-1000000000'] }))[0]?.result).toBe('unhandled');
    const credited: string[] = [];
    receiver.on('creditCard.success', (callback) => void credited.push(callback.payload.tracking_code));
    expect((await receiver.reconcile({ provider, trackingCodes: ['CC-old1-1000000000'] }))[0]?.result).toBe('applied');
    now += 120_000;
    // The inbox forgets the old key, so a record as old may have been applied: it is not applied again.
    const [tooOld] = await receiver.reconcile({ provider, trackingCodes: ['CC-old2-1000000000'] });
    expect(tooOld?.result).toBe('too_old');
    expect(isPayorchError(tooOld?.error, CallbackRetentionError)).toBe(true);
    expect(credited).toEqual(['CC-old1-1000000000']);
  });

  test('reads at most `concurrency` statuses at once (4 by default)', async () => {
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: () => undefined });
    const running = { now: 0, most: 0 };
    const provider: CardStatusSource = {
      creditCard: {
        async getStatus({ tracking_code }) {
          running.most = Math.max(running.most, ++running.now);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running.now--;
          return { data: { tracking_code, status: 'pending', amount: 1 } };
        },
      },
    };
    const codes = Array.from({ length: 9 }, (_, index) => `CC-par${index}-1763812000`);
    expect((await receiver.reconcile({ provider, trackingCodes: codes, concurrency: 2 })).map((each) => each.trackingCode)).toEqual(codes);
    expect(running.most).toBe(2);
    running.most = 0;
    await receiver.reconcile({ provider, trackingCodes: codes });
    expect(running.most).toBe(4);
  });

  const getStatus = vi.fn();
  const provider: CardStatusSource = { creditCard: { getStatus } };
  test.each([
    ['no options', undefined, '(options)'],
    ['no provider', { trackingCodes: ['CC-a1-1763812000'] }, 'provider'],
    ['a provider without creditCard.getStatus', { provider: { creditCard: {} }, trackingCodes: ['CC-a1-1763812000'] }, 'provider'],
    ['a list that is not an array', { provider, trackingCodes: 'CC-a1-1763812000' }, 'trackingCodes'],
    ['1001 codes', { provider, trackingCodes: Array.from({ length: 1001 }, (_, index) => `CC-m${index}-1763812000`) }, 'trackingCodes'],
    ['a deposit\'s code', { provider, trackingCodes: ['CC-a1-1763812000', 'MAN-a1-1763812000'] }, 'trackingCodes[1]'],
    ['a code without its Unix seconds', { provider, trackingCodes: ['CC-a1'] }, 'trackingCodes[0]'],
    ['a code given twice', { provider, trackingCodes: ['CC-a1-1763812000', 'CC-a1-1763812000'] }, 'trackingCodes[1]'],
    ['concurrency 0', { provider, trackingCodes: ['CC-a1-1763812000'], concurrency: 0 }, 'concurrency'],
    ['concurrency 1.5', { provider, trackingCodes: ['CC-a1-1763812000'], concurrency: 1.5 }, 'concurrency'],
    ['concurrency 65', { provider, trackingCodes: ['CC-a1-1763812000'], concurrency: 65 }, 'concurrency'],
  ])('%s is a RequestValidationError naming %s, before anything is read', async (_name, options, field) => {
    const receiver = createCallbackReceiver({ ...PROVIDER });
    const error: unknown = await receiver.reconcile(options as unknown as ReconcileOptions).then(() => undefined, (caught: unknown) => caught);
    expect(isPayorchError(error, RequestValidationError)).toBe(true);
    expect((error as RequestValidationError).issues.map((issue) => issue.field)).toContain(field);
    expect(getStatus).not.toHaveBeenCalled();
  });
});

describe('receiver.reconcile on a quiet tick and on the default inbox', () => {
  test('an empty list resolves [] without a request, as a schedule passes it when no order waits', async () => {
    const getStatus = vi.fn();
    const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createMemoryInbox(), onError: () => undefined });
    await expect(receiver.reconcile({ provider: { creditCard: { getStatus } }, trackingCodes: [] })).resolves.toEqual([]);
    expect(getStatus).not.toHaveBeenCalled();
  });

  test('warns once that the default in-memory inbox knows nothing of what another process applied; a receiver given an inbox does not', async () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const provider: CardStatusSource = { creditCard: { getStatus: vi.fn() } };
    const defaulted = createCallbackReceiver({ ...PROVIDER, onError: () => undefined });
    await defaulted.reconcile({ provider, trackingCodes: [] });
    await defaulted.reconcile({ provider, trackingCodes: [] });
    const lines = warned.mock.calls.map((call) => call.map(String).join(' '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('keeps applied callbacks in memory (the default inbox): a callback received by another process, such as your web receiver, is not known here and would be applied again');
    expect(lines[0]).toContain('PostgreSQL, D1 or Durable Object');
    warned.mockClear();
    await createCallbackReceiver({ ...PROVIDER, inbox: createMemoryInbox(), onError: () => undefined }).reconcile({ provider, trackingCodes: [] });
    expect(warned).not.toHaveBeenCalled();
  });
});

describe('receiver.reconcile with enqueue', () => {
  test('queues a sealed job that carries no service signature; apply reads the status again and applies it once, and a late callback is a duplicate', async () => {
    const jobs: CallbackJob[] = [];
    const enqueuing = setup({ enqueue: (job) => Promise.resolve(void jobs.push(JSON.parse(JSON.stringify(job)) as CallbackJob)) });
    const { sandbox, provider } = enqueuing;
    const worker = createCallbackReceiver({ apiKey: sandbox.accounts.provider.apiKey, secretKey: sandbox.accounts.provider.secretKey, onError: () => undefined });
    const applied: AppliedCallback[] = [];
    worker.on('creditCard', (callback) => void applied.push(callback));
    const code = await cardPayment(sandbox, 'success');
    expect(await enqueuing.receiver.reconcile({ provider, trackingCodes: [code] })).toEqual([{ trackingCode: code, result: 'queued', status: 'success' }]);
    expect(enqueuing.seen).toEqual([]);
    const [job] = jobs;
    expect(job).toMatchObject({ version: 2, source: 'status', kind: 'creditCard', event: 'creditCard.success', payload: { tracking_code: code, status: 'success' }, seal: { keyId: expect.any(String), mac: expect.any(String) } });
    expect(JSON.stringify({ ...job, seal: undefined })).not.toMatch(/hash|signature|secret/i);
    expect(JSON.stringify(job)).not.toContain(sandbox.accounts.provider.secretKey);

    await expect(worker.apply(job!)).rejects.toThrow(/pass the provider client/);
    await expect(worker.apply(job!)).rejects.toMatchObject({ name: 'RequestValidationError', outcome: 'not_sent', issues: [{ field: 'provider', rule: 'invalid_option' }] });
    await worker.apply(job!, { provider });
    await worker.apply(job!, { provider });
    expect(applied.map((callback) => [callback.source, callback.payload.status])).toEqual([['status', 'success']]);
  });

  test('a job written by someone else pays nothing: unsealed, another account\'s, and even sealed with the key, a pending payment\'s or an unknown code\'s', async () => {
    const { sandbox, provider } = setup();
    const worker = createCallbackReceiver({ apiKey: sandbox.accounts.provider.apiKey, secretKey: sandbox.accounts.provider.secretKey, merchantId: 'shop', onError: () => undefined });
    const handler = vi.fn();
    worker.on('*', handler);
    const pending = await cardPayment(sandbox);
    const unsealed = (code: string, merchantId = 'shop') => ({ version: 2, source: 'status', merchantId, kind: 'creditCard', event: 'creditCard.success', payload: { tracking_code: code, status: 'success', amount: 1_000_000 }, receivedAt: Date.now() }) as const;
    // Sealed with the receiver's own key, as only a holder of it can: the status read still decides.
    const sealed = (code: string): CallbackJob => createVerifier(sandbox.accounts.provider).seals.seal(unsealed(code));
    const forged: CallbackJob[] = [{ ...unsealed(pending), seal: { ...sealed(pending).seal, mac: '0'.repeat(64) } }, { ...sealed(pending), merchantId: 'another-shop' }, sealed(pending), sealed('CC-nope2-1763812000')];
    const refusals = await Promise.all(forged.map((job) => worker.apply(job, { provider }).then(() => undefined, (error: unknown) => error)));
    expect(refusals.map((error) => (error instanceof CallbackJobError ? [error.reason, error.field] : error))).toEqual([
      ['invalid_signature', 'seal'],
      ['merchant_mismatch', 'merchantId'],
      ['invalid_status', 'payload'],
      ['invalid_tracking_code', 'payload'],
    ]);
    expect(handler).not.toHaveBeenCalled();
  });

  test('a status-read job changed in the queue is refused by its seal before the service is asked', async () => {
    const jobs: CallbackJob[] = [];
    const { sandbox, provider, receiver } = setup({ enqueue: (job) => Promise.resolve(void jobs.push(job)) });
    const code = await cardPayment(sandbox, 'success');
    await receiver.reconcile({ provider, trackingCodes: [code] });
    const other = await cardPayment(sandbox, 'success');
    const job = jobs[0] as StatusReadJob;
    const reads = vi.spyOn(provider.creditCard, 'getStatus');
    const error: unknown = await receiver.apply({ ...job, payload: { ...job.payload, tracking_code: other } }, { provider }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'CallbackJobError', reason: 'invalid_signature', field: 'seal' });
    expect(reads).not.toHaveBeenCalled();
  });
});
