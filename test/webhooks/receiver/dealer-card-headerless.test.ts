import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { CallbackVerificationError, createCallbackReceiver } from '../../../src/index.js';
import type { CallbackErrorDetails, CallbackReceiverOptions, MemoryInboxContext } from '../../../src/index.js';
import { NOW_SECONDS, sign, unsigned } from '../../helpers/callbacks.js';
import { deliver, serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { DEALER } from '../../helpers/wire.js';

/*
 * Spec 6.1 says every callback carries X-Api-Key, X-Timestamp and X-Hash; 6.5 describes the dealer
 * card body with its own hash and timestamp, verified from "the payload timestamp". A dealer card
 * payment has no status read to recover it: one sent without headers must never be refused in
 * silence. Over a real socket: a receiver not set for it refuses it, and onError, the console and
 * the meter hear it with its cause; a receiver whose kind is the dealer card's applies it.
 */

class TestReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  vi.restoreAllMocks();
});

type Options = Omit<CallbackReceiverOptions<MemoryInboxContext>, 'apiKey' | 'secretKey'>;

async function start(options: Options) {
  const warned: string[] = [];
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => { warned.push(args.map(String).join(' ')); });
  const reader = new TestReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter('payorch-test');
  const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
  const applied: string[] = [];
  const receiver = createCallbackReceiver({ ...DEALER, now: () => NOW_SECONDS * 1000, meter, onError: (error, details) => heard.push({ error, details }), ...options });
  receiver.on('*', (callback) => { applied.push(`${callback.kind} ${callback.payload.tracking_code} ${callback.payload.status}`); });
  served = await serveNode(receiver.nodeHandler);
  const counted = async (): Promise<string[]> => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((each) => each.descriptor.name === 'payorch.callbacks');
    if (metric?.dataPointType !== DataPointType.SUM) return [];
    return metric.dataPoints.map(({ attributes, value }) => `${String(attributes['payorch.outcome'])} ${String(attributes['payorch.reason'] ?? '-')}: ${value}`).sort();
  };
  return { url: served.url, heard, applied, warned, counted };
}

/** A dealer card callback as spec 6.5 describes it: its hash and timestamp in the body, no signature headers. */
const headerless = (fields: Readonly<Record<string, unknown>> = {}, keys: { apiKey: string; secretKey: string } = DEALER) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(sign({ ...unsigned.dealerCreditCard, ...fields }, keys).body),
});

describe('a dealer card callback signed in its body, without headers', () => {
  test('at a receiver not set for it: 401 missing_header, heard by onError, the console and the meter with its cause; nothing applied', async () => {
    const { url, heard, applied, warned, counted } = await start({});
    expect(await deliver(url, headerless())).toEqual({ status: 401, body: { success: false, error: 'missing_header' } });
    expect(applied).toEqual([]);
    expect(heard).toHaveLength(1);
    const [{ error, details } = { error: undefined, details: undefined }] = heard;
    expect(error).toBeInstanceOf(CallbackVerificationError);
    expect(error).toMatchObject({ reason: 'missing_header', signatureVerified: true });
    expect(details).toMatchObject({ phase: 'verify', count: 1 });
    expect(warned.join('\n')).toMatch(/refused 1 well-formed callback: 1 because a body signed in itself .* kind: 'dealerCreditCard'/);
    expect(await counted()).toEqual(['refused missing_header: 1']);
    for (const secret of [DEALER.apiKey, DEALER.secretKey]) expect(`${warned.join('\n')}${String(error)}`).not.toContain(secret);
  });

  test('at a provider card receiver (kind creditCard) too, and a forged one is junk: logged at debug, not heard, metered apart', async () => {
    const { url, heard, warned, counted } = await start({ kind: 'creditCard' });
    expect((await deliver(url, headerless({ tracking_code: 'CC-forged1-1763812000' }, { apiKey: DEALER.apiKey, secretKey: 'guessed' }))).status).toBe(401);
    expect([heard, warned]).toEqual([[], []]);
    expect((await deliver(url, headerless())).status).toBe(401);
    expect(heard.map(({ error, details }) => [(error as CallbackVerificationError).reason, details.phase])).toEqual([['missing_header', 'verify']]);
    expect(warned).toHaveLength(1);
    expect(await counted()).toEqual(['refused missing_header: 1', 'refused missing_header_unverified: 1']);
  });

  test("at a receiver whose kind is 'dealerCreditCard': applied once, without dealerCardWithoutHeaders", async () => {
    const { url, heard, applied, counted } = await start({ kind: 'dealerCreditCard' });
    const delivery = headerless();
    expect(await deliver(url, delivery)).toEqual({ status: 200, body: { success: true } });
    expect(await deliver(url, delivery)).toEqual({ status: 200, body: { success: true } });
    expect(applied).toEqual([`dealerCreditCard ${unsigned.dealerCreditCard.tracking_code} success`]);
    expect(heard).toEqual([]);
    expect(await counted()).toEqual(['applied -: 1', 'duplicate -: 1']);
    // A forged body is still refused there.
    expect((await deliver(url, headerless({}, { apiKey: DEALER.apiKey, secretKey: 'guessed' }))).status).toBe(401);
  });
});
