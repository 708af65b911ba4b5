import { beforeEach, expect, test } from 'vitest';
import { createCallbackReceiver, signCallback } from '../../../src/index.js';
import type { CallbackJob, SignedCallbackJob } from '../../../src/index.js';
import { NOW_SECONDS, unsigned } from '../../helpers/callbacks.js';
import { SPAN_KIND, STATUS, expectNoSecrets, memoryTracing } from '../../helpers/tracing.js';
import { PROVIDER } from '../../helpers/wire.js';

/** An enqueue that stores each job as an engine stores it: as JSON text. */
function store(jobs: SignedCallbackJob[]): (job: CallbackJob) => Promise<void> {
  return (job) => {
    jobs.push(JSON.parse(JSON.stringify(job)) as SignedCallbackJob);
    return Promise.resolve();
  };
}

const { tracer, exporter, spans } = memoryTracing();
beforeEach(() => {
  exporter.reset();
});

function receiver() {
  const jobs: SignedCallbackJob[] = [];
  const made = createCallbackReceiver({ ...PROVIDER, tracer, now: () => NOW_SECONDS * 1000, enqueue: store(jobs) });
  made.on('deposit', () => undefined);
  return { receiver: made, jobs };
}

test('the callback.apply span links to the callback.receive span through the job’s trace context', async () => {
  const { receiver: made, jobs } = receiver();
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-span01-1763812000' }, { ...PROVIDER, timestamp: NOW_SECONDS });
  expect((await made.receive({ headers: delivery.headers, body: delivery.body })).status).toBe(200);
  await made.apply(jobs[0]!);
  const [received, applied] = spans();
  expect(received?.name).toBe('callback.receive');
  expect(received?.attributes['payorch.callback.result']).toBe('queued');
  const { traceId, spanId } = received!.spanContext();
  expect(jobs[0]!.traceContext).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
  expect(applied?.name).toBe('callback.apply');
  expect(applied?.kind).toBe(SPAN_KIND.CONSUMER);
  expect(applied?.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[traceId, spanId]]);
  expect(applied?.attributes).toMatchObject({ 'payorch.callback.kind': 'deposit', 'payorch.callback.status': 'completed', 'payorch.tracking_code': 'MAN-span01-1763812000', 'payorch.callback.result': 'applied' });
  await made.apply(jobs[0]!);
  expect(spans()[2]?.attributes['payorch.callback.result']).toBe('duplicate');
  expectNoSecrets(spans(), [PROVIDER.secretKey, jobs[0]!.signature.hash, jobs[0]!.seal.mac]);
});

test('a refused job’s span has status ERROR with the reason, and no hash', async () => {
  const { receiver: made, jobs } = receiver();
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-span02-1763812000' }, { ...PROVIDER, timestamp: NOW_SECONDS });
  await made.receive({ headers: delivery.headers, body: delivery.body });
  await expect(made.apply({ ...jobs[0]!, payload: { ...jobs[0]!.payload, amount: 999_999 } })).rejects.toThrow(/changed in the queue/);
  const applied = spans().find((span) => span.name === 'callback.apply');
  expect(applied?.status).toEqual({ code: STATUS.ERROR, message: 'invalid_signature' });
  expect(applied?.attributes['payorch.callback.result']).toBe('failed');
  expectNoSecrets(spans(), [PROVIDER.secretKey, jobs[0]!.signature.hash, jobs[0]!.seal.mac]);
});
