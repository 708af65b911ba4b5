import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { RequestValidationError, createCallbackReceiver, createMemoryInbox, signCallback } from '../../../src/index.js';
import type { CallbackJob, CallbackReceiver, CallbackReceiverOptions, MemoryInboxContext, MeterLike } from '../../../src/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { serveFetch, serveNode } from '../../helpers/serve.js';
import type { Delivery, Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

/*
 * The receiver's `meter`: each callback counted in `payorch.callbacks` by outcome, reason and kind,
 * each verified one timed in `payorch.callback.duration`, and the in-memory inbox's fill read at
 * collection, through the OpenTelemetry SDK's own MeterProvider, as a user's application has it.
 */

/** A reader the test collects from when it asks. */
class TestReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

function sdkMeter() {
  const reader = new TestReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter('payorch-test');
  const collect = async (): Promise<Map<string, MetricData>> => {
    const { resourceMetrics } = await reader.collect();
    return new Map(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).map((metric) => [metric.descriptor.name, metric]));
  };
  return { meter, collect };
}

/** The counter's points as `outcome reason kind: value`, sorted. */
function counted(metrics: Map<string, MetricData>): string[] {
  const metric = metrics.get('payorch.callbacks');
  if (metric?.dataPointType !== DataPointType.SUM) return [];
  return metric.dataPoints
    .map(({ attributes, value }) => `${String(attributes['payorch.outcome'])} ${String(attributes['payorch.reason'] ?? '-')} ${String(attributes['payorch.kind'] ?? '-')}: ${value}`)
    .sort();
}

function deposit(trackingCode: string): Delivery {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  vi.restoreAllMocks();
});

type Receiver = CallbackReceiver<MemoryInboxContext>;
type Options = Omit<CallbackReceiverOptions<MemoryInboxContext>, 'apiKey' | 'secretKey'>;

/** Each entry point as users feed it: `receive` with the parts, the other two on a real socket. */
const entries: [string, (receiver: Receiver, delivery: Delivery) => Promise<number>][] = [
  ['receive', async (receiver, delivery) => (await receiver.receive({ headers: delivery.headers, body: delivery.body })).status],
  [
    'handle',
    async (receiver, delivery) => {
      served ??= await serveFetch(receiver.handle);
      return (await fetch(served.url, { method: 'POST', headers: delivery.headers, body: delivery.body })).status;
    },
  ],
  [
    'nodeHandler',
    async (receiver, delivery) => {
      served ??= await serveNode(receiver.nodeHandler);
      return (await fetch(served.url, { method: 'POST', headers: delivery.headers, body: delivery.body })).status;
    },
  ],
];

describe.each(entries)('a receiver with a meter, served by %s', (_entry, post) => {
  function receiverWith(meter: MeterLike, options: Options = {}): Receiver {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    return createCallbackReceiver({ ...PROVIDER, meter, onError: () => undefined, ...options });
  }

  test('counts applied, duplicate and refused (with the reason), each with its kind once verified', async () => {
    const { meter, collect } = sdkMeter();
    const receiver = receiverWith(meter).on('deposit', () => undefined);
    const delivery = deposit('MAN-meter01-1763812000');
    expect(await post(receiver, delivery)).toBe(200);
    expect(await post(receiver, delivery)).toBe(200);
    expect(await post(receiver, deposit('MAN-meter02-1763812000'))).toBe(200);
    expect(await post(receiver, { headers: { ...delivery.headers, 'X-Hash': 'f'.repeat(64) }, body: delivery.body })).toBe(401);
    expect(await post(receiver, { headers: {}, body: '{"not":"a callback"}' })).toBe(400);
    const metrics = await collect();
    expect(counted(metrics)).toEqual(['applied - deposit: 2', 'duplicate - deposit: 1', 'refused invalid_signature -: 1', 'refused malformed_body -: 1']);

    // Timed once verified, in seconds, with the counter's attributes.
    const duration = metrics.get('payorch.callback.duration');
    expect(duration?.descriptor).toMatchObject({ unit: 's' });
    expect(duration?.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = duration?.dataPointType === DataPointType.HISTOGRAM ? duration.dataPoints : [];
    expect(points.map(({ attributes, value }) => [attributes['payorch.outcome'], value.count]).sort()).toEqual([['applied', 2], ['duplicate', 1]]);
    for (const { value } of points) expect(value.max).toBeLessThan(5);

    // Codes only: no tracking code, hash or key in any attribute.
    const written = JSON.stringify([...metrics.values()].map((metric) => metric.dataPoints.map(({ attributes }) => attributes)));
    for (const secret of [PROVIDER.apiKey, PROVIDER.secretKey, 'MAN-meter01-1763812000', JSON.parse(delivery.body).hash as string]) expect(written).not.toContain(secret);
  });

  test('counts an acknowledged callback no handler takes as unhandled, not applied', async () => {
    const { meter, collect } = sdkMeter();
    const receiver = receiverWith(meter).on('withdrawal', () => undefined);
    expect(await post(receiver, deposit('MAN-meter06-1763812000'))).toBe(200);
    expect(counted(await collect())).toEqual(['unhandled - deposit: 1']);
  });

  test('counts a handler\'s failure as failed, not_applied; a callback confirm refuses as refused, not_confirmed', async () => {
    const { meter, collect } = sdkMeter();
    const receiver = receiverWith(meter, { confirm: (callback) => callback.payload.tracking_code !== 'MAN-meter04-1763812000' }).on('deposit', () => {
      throw new Error('the ledger is down');
    });
    expect(await post(receiver, deposit('MAN-meter03-1763812000'))).toBe(500);
    expect(await post(receiver, deposit('MAN-meter04-1763812000'))).toBe(409);
    expect(counted(await collect())).toEqual(['failed not_applied deposit: 1', 'refused not_confirmed deposit: 1']);
  });
});

describe('a deferred receiver with a meter', () => {
  test('counts queued when received, then applied or duplicate when the worker applies the job, and a forged job refused', async () => {
    const { meter, collect } = sdkMeter();
    const jobs: CallbackJob[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, meter, onError: () => undefined, enqueue: (job) => { jobs.push(job); return Promise.resolve(); } }).on('deposit', () => undefined);
    const delivery = deposit('MAN-meter05-1763812000');
    expect((await receiver.receive(delivery)).status).toBe(200);
    const [job] = jobs;
    if (job === undefined) throw new Error('no job was queued');
    await receiver.apply(job);
    await receiver.apply(JSON.parse(JSON.stringify(job)) as CallbackJob);
    // Not a job: refused, with the reason CallbackJobError gives.
    const refusal = await receiver.apply({} as CallbackJob).then(() => undefined, (error: unknown) => (error as { reason?: string }).reason);
    expect(counted(await collect())).toEqual(['applied - deposit: 1', 'duplicate - deposit: 1', 'queued - deposit: 1', `refused ${String(refusal)} -: 1`]);
  });
});

describe('the in-memory inbox\'s fill', () => {
  test('is read at collection: the keys held and the limit', async () => {
    const { meter, collect } = sdkMeter();
    const receiver = createCallbackReceiver({ ...PROVIDER, meter, inbox: createMemoryInbox({ maxKeys: 50 }) }).on('*', () => undefined);
    for (let index = 0; index < 3; index++) await receiver.receive(deposit(`MAN-fill${index}-1763812000`));
    const metrics = await collect();
    const value = (name: string) => metrics.get(name)?.dataPoints.map((point) => point.value);
    expect(value('payorch.inbox.key.count')).toEqual([3]);
    expect(value('payorch.inbox.key.limit')).toEqual([50]);
    expect(metrics.get('payorch.inbox.key.count')?.descriptor.unit).toBe('{key}');
  });

  test('is not read for an inbox of another kind', async () => {
    const { meter, collect } = sdkMeter();
    const receiver = createCallbackReceiver({ ...PROVIDER, meter, inbox: { process: async (_key, apply) => { await apply({ key: _key, appliedStatuses: [] }); return 'applied'; } } }).on('*', () => undefined);
    // The instruments are made on the first request: after it, the callback is counted and no fill is read.
    expect((await receiver.receive(deposit('MAN-fill9-1763812000'))).status).toBe(200);
    const names = [...(await collect()).keys()];
    expect(names).toContain('payorch.callbacks');
    expect(names.filter((name) => name.startsWith('payorch.inbox'))).toEqual([]);
  });
});

describe('the meter option', () => {
  test('a meter that throws changes no answer', async () => {
    const broken: MeterLike = {
      createCounter: () => ({ add: () => { throw new Error('exporter down'); } }),
      createHistogram: () => ({ record: () => { throw new Error('exporter down'); } }),
      createObservableUpDownCounter: () => { throw new Error('exporter down'); },
    };
    const receiver = createCallbackReceiver({ ...PROVIDER, meter: broken }).on('*', () => undefined);
    expect((await receiver.receive(deposit('MAN-meter06-1763812000'))).status).toBe(200);
  });

  test.each([
    ['a tracer', { startActiveSpan: () => undefined }],
    ['a string', 'metrics'],
  ])('%s is refused at start-up, naming the option', (_name, meter) => {
    let thrown: unknown;
    try {
      createCallbackReceiver({ ...PROVIDER, meter: meter as unknown as MeterLike });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RequestValidationError);
    expect((thrown as RequestValidationError).issues[0]).toMatchObject({ field: 'meter', rule: 'invalid_option' });
  });
});
