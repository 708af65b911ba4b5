import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createCallbackReceiver } from '../../../src/index.js';
import type { CallbackJob, CallbackReceiver, CallbackReceiverOptions, MemoryInboxContext } from '../../../src/index.js';
import { NOW_SECONDS, now, sign, unsigned } from '../../helpers/callbacks.js';
import { fires, promqlBlock, samplesOf } from '../../helpers/promql.js';
import { DEALER, PROVIDER } from '../../helpers/wire.js';

/*
 * The alert docs/observability.md documents, read from the guide and evaluated over what a real
 * receiver's meter counts (the OpenTelemetry SDK's MeterProvider): it fires for every cause that
 * means "this receiver refuses or loses genuine callbacks", even while other callbacks apply, and
 * stays quiet for requests that are not well-formed callbacks.
 */

const RULE = promqlBlock(readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'observability.md'), 'utf8'));

class TestReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

type Options = Omit<CallbackReceiverOptions<MemoryInboxContext>, 'apiKey' | 'secretKey'>;
type Receiver = CallbackReceiver<MemoryInboxContext>;
interface Request {
  readonly headers: Record<string, string>;
  readonly body: string;
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A receiver of `keys` with a meter, every kind handled unless `options` says otherwise, and whether the rule fires over its counts. */
function metered(options: Options = {}, keys: { readonly apiKey: string; readonly secretKey: string } = PROVIDER) {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const reader = new TestReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter('payorch-alert');
  const receiver: Receiver = createCallbackReceiver({ ...keys, now, meter, onError: () => undefined, logLevel: 'off', ...options });
  const alerting = async (): Promise<boolean> => fires(RULE, samplesOf((await reader.collect()).resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)));
  return { receiver, alerting };
}

const request = (signed: { headers: Record<string, string>; body: Record<string, unknown> }): Request => ({ headers: signed.headers, body: JSON.stringify(signed.body) });
const deposit = (code: string, keys: { readonly apiKey: string; readonly secretKey: string } = PROVIDER, timestamp = NOW_SECONDS): Request =>
  request(sign({ ...unsigned.deposit, tracking_code: `MAN-${code}-1763812000` }, keys, timestamp));

/** Healthy traffic beside the cause: deposits applied, and one delivered again. */
async function healthy(receiver: Receiver, code: string, keys: { readonly apiKey: string; readonly secretKey: string } = PROVIDER): Promise<void> {
  for (const each of [`${code}a`, `${code}b`, `${code}a`]) expect((await receiver.receive(deposit(each, keys))).status).toBe(200);
}

describe('the documented alert', () => {
  test.each<[string, Options, (receiver: Receiver) => Promise<number>, number]>([
    ['a wrong secret key (invalid_signature)', {}, async (receiver) => (await receiver.receive(deposit('cause01', { apiKey: PROVIDER.apiKey, secretKey: 'the-rotated-secret' }))).status, 401],
    ['a wrong API key (api_key_mismatch)', {}, async (receiver) => (await receiver.receive(deposit('cause02', { apiKey: 'the-rotated-api-key', secretKey: PROVIDER.secretKey }))).status, 401],
    ['a clock that is off (timestamp_out_of_tolerance)', {}, async (receiver) => (await receiver.receive(deposit('cause03', PROVIDER, NOW_SECONDS + 3600))).status, 401],
    ['a URL given to another kind (kind_mismatch)', { kind: 'deposit' }, async (receiver) => (await receiver.receive(request(sign(unsigned.withdrawal, PROVIDER)))).status, 400],
    ['a failed handler (failed)', {}, async (receiver) => (await receiver.receive(deposit('cause05fails'))).status, 500],
  ])('fires for %s while other callbacks apply', async (_cause, options, cause, status) => {
    const { receiver, alerting } = metered(options);
    receiver.on('*', (callback) => {
      if (callback.payload.tracking_code.includes('fails')) throw new Error('the ledger is down');
    });
    await healthy(receiver, 'healthy');
    expect(await alerting()).toBe(false);
    expect(await cause(receiver)).toBe(status);
    expect(await alerting()).toBe(true);
  });

  test('fires for a callback no handler takes (unhandled) while other callbacks apply', async () => {
    const { receiver, alerting } = metered();
    receiver.on('deposit', () => undefined);
    await healthy(receiver, 'healthy');
    expect(await alerting()).toBe(false);
    expect((await receiver.receive(request(sign(unsigned.withdrawal, PROVIDER)))).status).toBe(200);
    expect(await alerting()).toBe(true);
  });

  test('fires for a dealer card callback signed in its body and refused for its missing headers (missing_header) while other callbacks apply', async () => {
    const { receiver, alerting } = metered({}, DEALER);
    receiver.on('*', () => undefined);
    await healthy(receiver, 'healthy', DEALER);
    expect(await alerting()).toBe(false);
    const signedInBody = sign(unsigned.dealerCreditCard, DEALER).body;
    expect((await receiver.receive({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(signedInBody) })).status).toBe(401);
    expect(await alerting()).toBe(true);
  });

  test("fires for another merchant's job (merchant_mismatch, on apply) while other jobs apply", async () => {
    const jobs: CallbackJob[] = [];
    const enqueue = (job: CallbackJob): Promise<void> => {
      jobs.push(job);
      return Promise.resolve();
    };
    const { receiver, alerting } = metered({ merchantId: 'merchant-a', enqueue });
    receiver.on('*', () => undefined);
    const other = metered({ merchantId: 'merchant-b', enqueue }).receiver;
    expect((await receiver.receive(deposit('job01'))).status).toBe(200);
    expect((await other.receive(deposit('job02'))).status).toBe(200);
    const [own, foreign] = jobs;
    if (own === undefined || foreign === undefined) throw new Error('no jobs were queued');
    await receiver.apply(own);
    expect(await alerting()).toBe(false);
    await expect(receiver.apply(foreign)).rejects.toMatchObject({ reason: 'merchant_mismatch' });
    expect(await alerting()).toBe(true);
  });

  test('stays quiet for requests that are not well-formed callbacks, beside healthy traffic', async () => {
    const { receiver, alerting } = metered({ kind: 'deposit' });
    receiver.on('*', () => undefined);
    await healthy(receiver, 'healthy');
    const genuine = deposit('junk01');
    const junk: [string, Request, number][] = [
      ['bad JSON', { headers: genuine.headers, body: '{"tracking_code":' }, 400],
      ['no headers, a body that does not verify', { headers: {}, body: JSON.stringify({ ...JSON.parse(genuine.body), hash: 'f'.repeat(64) }) }, 401],
      ['no headers, a body without hash', { headers: {}, body: JSON.stringify(unsigned.deposit) }, 401],
      ['one header missing', { headers: { 'X-Api-Key': PROVIDER.apiKey, 'X-Timestamp': String(NOW_SECONDS) }, body: genuine.body }, 401],
      ['a malformed tracking code', request(sign({ ...unsigned.deposit, tracking_code: 'not-a-code' }, PROVIDER)), 400],
      ['an empty status', { headers: genuine.headers, body: JSON.stringify({ ...JSON.parse(genuine.body), status: '' }) }, 400],
      ['a forged callback of another kind', request(sign(unsigned.withdrawal, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' })), 400],
    ];
    for (const [what, each, status] of junk) expect([what, (await receiver.receive(each)).status]).toEqual([what, status]);
    const served = await receiver.handle(new globalThis.Request('http://receiver.test/callbacks', { method: 'GET' }));
    expect(served.status).toBe(405);
    expect(await alerting()).toBe(false);
  });

  test('stays quiet for junk alone', async () => {
    const { receiver, alerting } = metered();
    receiver.on('*', () => undefined);
    expect((await receiver.receive({ headers: {}, body: 'GET / HTTP/1.1' })).status).toBe(400);
    expect((await receiver.receive({ headers: {}, body: JSON.stringify(unsigned.deposit) })).status).toBe(401);
    expect(await alerting()).toBe(false);
  });
});

describe('the rule evaluator', () => {
  const sample = { name: 'payorch_callbacks_total', labels: { payorch_outcome: 'failed' }, value: 1 };

  test('reads the documented rule, and evaluates or and unless as PromQL does', () => {
    expect(fires(RULE, [])).toBe(false);
    const failed = 'sum(increase(payorch_callbacks_total{payorch_outcome="failed"}[15m])) > 0';
    const applied = 'sum(increase(payorch_callbacks_total{payorch_outcome=~"applied|duplicate"}[15m])) > 0';
    expect(fires(`${failed} unless ${applied}`, [sample])).toBe(true);
    expect(fires(`${failed} unless ${applied}`, [sample, { ...sample, labels: { payorch_outcome: 'applied' } }])).toBe(false);
    expect(fires(`${applied} or ${failed}`, [sample])).toBe(true);
    expect(fires(failed, [{ ...sample, value: 0 }])).toBe(false);
  });

  test.each([
    'sum(rate(payorch_callbacks_total[5m])) > 0',
    'sum(increase(payorch_callbacks_total{payorch_outcome!="failed"}[15m])) > 0',
    'sum(increase(payorch_callbacks_total{payorch_reason=~"invalid_.*"}[15m])) > 0',
    'sum(increase(payorch_callbacks_total{payorch_outcome="failed"}[15m])) > 0 and sum(increase(payorch_callbacks_total{payorch_outcome="failed"}[15m])) > 0',
    'sum(increase(payorch_callbacks_total{payorch_outcome="failed"}[1h])) > 0',
  ])('throws on syntax it does not know: %s', (rule) => {
    expect(() => fires(rule, [sample])).toThrow(/unsupported/);
  });
});
