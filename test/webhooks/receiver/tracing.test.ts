import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createCallbackReceiver, signCallback } from '../../../src/index.js';
import type { CallbackReceiver, MemoryInboxContext } from '../../../src/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { serveFetch, serveNode } from '../../helpers/serve.js';
import type { Delivery, Served } from '../../helpers/serve.js';
import { SPAN_KIND, STATUS, expectNoSecrets, memoryTracing } from '../../helpers/tracing.js';
import { PROVIDER } from '../../helpers/wire.js';

const { tracer, exporter, spans } = memoryTracing();

function deposit(trackingCode: string): Delivery {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);
}

/** A delivery whose hash is another one's: the service did not sign it. */
function forged(trackingCode: string): Delivery {
  const genuine = deposit(trackingCode);
  const hash = 'f'.repeat(64);
  return { headers: { ...genuine.headers, 'X-Hash': hash }, body: genuine.body.replace(/"hash":"[0-9a-f]+"/, `"hash":"${hash}"`) };
}

type Receiver = CallbackReceiver<MemoryInboxContext>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});
beforeEach(() => {
  exporter.reset();
});

/** Each entry point, fed as users feed it: `receive` with the parts, the other two on a real socket. */
const entries: [string, (receiver: Receiver, delivery: Delivery, method?: string) => Promise<number>][] = [
  ['receive', async (receiver, delivery) => (await receiver.receive({ headers: delivery.headers, body: delivery.body })).status],
  [
    'handle',
    async (receiver, delivery, method = 'POST') => {
      served ??= await serveFetch(receiver.handle);
      return (await fetch(served.url, { method, headers: delivery.headers, ...(method === 'POST' ? { body: delivery.body } : {}) })).status;
    },
  ],
  [
    'nodeHandler',
    async (receiver, delivery, method = 'POST') => {
      served ??= await serveNode(receiver.nodeHandler);
      return (await fetch(served.url, { method, headers: delivery.headers, ...(method === 'POST' ? { body: delivery.body } : {}) })).status;
    },
  ],
];

describe.each(entries)('a callback received by %s', (_entry, post) => {
  function receiver(): Receiver {
    return createCallbackReceiver({ ...PROVIDER, tracer, onError: () => undefined });
  }

  test('is one CONSUMER span, active while the handlers run, that says applied, then duplicate for the redelivery', async () => {
    const callbacks = receiver();
    const activeInHandler: (string | undefined)[] = [];
    callbacks.on('deposit.completed', () => void activeInHandler.push(trace.getActiveSpan()?.spanContext().spanId));
    const delivery = deposit('MAN-trace01-1763812000');
    expect(await post(callbacks, delivery)).toBe(200);
    expect(await post(callbacks, delivery)).toBe(200);
    const ended = spans();
    expect(ended.map((span) => [span.name, span.kind, span.attributes])).toEqual(
      ['applied', 'duplicate'].map((result) => [
        'callback.receive',
        SPAN_KIND.CONSUMER,
        {
          'payorch.operation': 'callback.receive',
          'payorch.callback.kind': 'deposit',
          'payorch.callback.status': 'completed',
          'payorch.tracking_code': 'MAN-trace01-1763812000',
          'http.response.status_code': 200,
          'payorch.callback.result': result,
        },
      ]),
    );
    expect(ended.map((span) => span.status)).toEqual([{ code: STATUS.UNSET }, { code: STATUS.UNSET }]);
    expect(activeInHandler).toEqual([ended[0]?.spanContext().spanId]);
  });

  test('that is forged is refused with the reason, status ERROR, and none of its unverified fields', async () => {
    expect(await post(receiver(), forged('MAN-forged02-1763812000'))).toBe(401);
    const ended = spans();
    expect(ended).toHaveLength(1);
    expect(ended[0]?.attributes).toEqual({
      'payorch.operation': 'callback.receive',
      'http.response.status_code': 401,
      'payorch.callback.result': 'refused',
      'payorch.callback.reason': 'invalid_signature',
      'error.type': 'invalid_signature',
    });
    expect(ended[0]?.status).toEqual({ code: STATUS.ERROR, message: 'invalid_signature' });
  });

  test('whose handler throws is failed, with status ERROR', async () => {
    const callbacks = receiver();
    callbacks.on('deposit', () => {
      throw new Error('database down');
    });
    expect(await post(callbacks, deposit('MAN-fails03-1763812000'))).toBe(500);
    const ended = spans();
    expect(ended).toHaveLength(1);
    expect(ended[0]?.attributes).toEqual(expect.objectContaining({ 'payorch.tracking_code': 'MAN-fails03-1763812000', 'http.response.status_code': 500, 'payorch.callback.result': 'failed', 'payorch.callback.reason': 'not_applied' }));
    expect(ended[0]?.status).toEqual({ code: STATUS.ERROR, message: 'not_applied' });
  });

  test('never puts the hash, the secret key or the handler’s error in a span', async () => {
    const callbacks = receiver();
    callbacks.on('deposit', () => {
      throw new Error(`bad ${PROVIDER.secretKey}`);
    });
    const deliveries = [deposit('MAN-scan04-1763812000'), forged('MAN-scan05-1763812000')];
    for (const delivery of deliveries) await post(callbacks, delivery);
    expectNoSecrets(spans(), [PROVIDER.secretKey, ...deliveries.map((delivery) => delivery.headers['X-Hash']!)]);
  });
});

test.each(entries.slice(1))('a request to %s that is not a POST is a refused span too', async (_entry, post) => {
  const callbacks = createCallbackReceiver({ ...PROVIDER, tracer });
  expect(await post(callbacks, deposit('MAN-get06-1763812000'), 'GET')).toBe(405);
  expect(spans().map((span) => [span.attributes['payorch.callback.result'], span.attributes['payorch.callback.reason'], span.status.code])).toEqual([['refused', 'method_not_allowed', STATUS.ERROR]]);
});

test('a receiver without a tracer answers as before', async () => {
  const callbacks = createCallbackReceiver({ ...PROVIDER });
  const delivery = deposit('MAN-none07-1763812000');
  expect((await callbacks.receive({ headers: delivery.headers, body: delivery.body })).status).toBe(200);
  expect(spans()).toEqual([]);
});
