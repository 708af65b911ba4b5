import { trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import { describe, expect, test } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError, TimeoutError, UnprocessableEntityError, createCallbackReceiver } from '../../../src/index.js';
import { traceCall } from '../../../src/internal/tracing.js';
import { CUSTOMER, DEPOSIT, WELCOME, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { transferStatusAnswer } from '../../helpers/dealer-answers.js';
import { DEALER, PROVIDER } from '../../helpers/wire.js';
import { SPAN_KIND, STATUS, expectNoSecrets, memoryTracing, spanText } from '../../helpers/tracing.js';

closeLoopbackServers();
const { tracer, exporter, spans } = memoryTracing();

/** Runs `call` with a fresh exporter and returns the spans it ended. */
async function spansOf(call: () => Promise<unknown>): Promise<{ result: unknown; spans: ReturnType<typeof spans> }> {
  exporter.reset();
  const result = await call().catch((error: unknown) => error);
  return { result, spans: spans() };
}

describe('a call with a tracer', () => {
  test('is one CLIENT span named by the operation, with the HTTP client attributes, and the fetch nests under it', async () => {
    const server = await startServer((_request, response) => { json(response, 200, WELCOME); });
    let fetchParent: string | undefined;
    const fetch: typeof globalThis.fetch = (input, init) => {
      // What a fetch instrumentation does: a span in the active context.
      const child = tracer.startSpan('fetch');
      fetchParent = trace.getActiveSpan()?.spanContext().spanId;
      child.end();
      return globalThis.fetch(input, init);
    };
    const { result, spans: ended } = await spansOf(() => providerFor(server, { tracer, fetch }).welcome());
    expect(result).toEqual(WELCOME);
    const call = ended.find((span) => span.name === 'welcome');
    const child = ended.find((span) => span.name === 'fetch');
    expect(ended).toHaveLength(2);
    expect(call?.kind).toBe(SPAN_KIND.CLIENT);
    expect(call?.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': server.port,
      'url.full': `${server.url}/api/provider/welcome`,
      'payorch.operation': 'welcome',
      'http.response.status_code': 200,
      'payorch.attempts': 1,
    });
    expect(call?.status).toEqual({ code: STATUS.UNSET });
    expect(call?.events).toEqual([]);
    expect(fetchParent).toBe(call?.spanContext().spanId);
    expect(child?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
  });

  test('that is a retried read is still one span: an event per retry with its reason, the attempts, the query values hidden', async () => {
    noBackoff();
    const server = await startServer((_request, response, n) => (n < 3 ? json(response, 503, { success: false, error: 'busy' }) : json(response, 200, transferStatusAnswer)));
    const dealer = new DealerClient({ baseUrl: server.url, ...DEALER, tracer });
    const { result, spans: ended } = await spansOf(() => dealer.transfers.getStatus({ transfer_id: 'TRF-8fK2pQ' }));
    expect(result).toEqual(transferStatusAnswer);
    expect(server.seen).toHaveLength(3);
    expect(ended).toHaveLength(1);
    const [span] = ended;
    expect(span?.name).toBe('transfers.getStatus');
    expect(span?.attributes).toEqual(expect.objectContaining({
      'http.request.method': 'GET',
      'url.full': `${server.url}/api/dealer/transfer-status?transfer_id=REDACTED`,
      'http.response.status_code': 200,
      'payorch.attempts': 3,
    }));
    expect(spanText(span!)).not.toContain('TRF-8fK2pQ');
    expect(span?.events.map((event) => [event.name, event.attributes])).toEqual([1, 2].map((attempt) => [
      'payorch.retry',
      { 'payorch.attempt': attempt, 'payorch.retry.reason': 'retryable_status', 'payorch.retry.delay_ms': 0, 'http.response.status_code': 503, 'error.type': 'InternalServerError' },
    ]));
    expect(span?.status).toEqual({ code: STATUS.UNSET });
  });

  test.each([
    {
      reason: 'connection_refused',
      errorType: 'ConnectionError',
      status: undefined,
      // Nothing listens on the first port: the payment is resent only because it was refused.
      setUp: async () => {
        const server = await startServer((_request, response) => { json(response, 200, DEPOSIT); });
        let first = true;
        // What undici throws when the service's own address refuses (a custom fetch's refusal
        // counts only when it names the service: it may have followed a redirect elsewhere).
        const refused = new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${server.port}`), { code: 'ECONNREFUSED', address: '127.0.0.1', port: server.port }) });
        const fetch: typeof globalThis.fetch = (input, init) => {
          const attempt = first ? Promise.reject(refused) : globalThis.fetch(input, init);
          first = false;
          return attempt;
        };
        return providerFor(server, { tracer, fetch, credentialKey: PROVIDER.credentialKey });
      },
    },
    {
      reason: 'timestamp_refused',
      errorType: 'AuthenticationError',
      status: 401,
      setUp: async () => {
        const server = await startServer((_request, response, n) =>
          n === 1 ? json(response, 401, { success: false, error: 'Request timestamp expired' }, { date: new Date(Date.now() + 600_000).toUTCString() }) : json(response, 200, DEPOSIT),
        );
        return providerFor(server, { tracer, credentialKey: PROVIDER.credentialKey });
      },
    },
  ])('that is a payment resent after $reason records why', async ({ reason, errorType, status, setUp }) => {
    noBackoff();
    const client = await setUp();
    const { result, spans: ended } = await spansOf(() => client.manual.startDeposit({ ...CUSTOMER, amount: 250 }));
    expect(result).toEqual(DEPOSIT);
    expect(ended).toHaveLength(1);
    expect(ended[0]?.attributes['payorch.attempts']).toBe(2);
    expect(ended[0]?.events.map((event) => event.attributes)).toEqual([
      { 'payorch.attempt': 1, 'payorch.retry.reason': reason, 'payorch.retry.delay_ms': 0, ...(status === undefined ? {} : { 'http.response.status_code': status }), 'error.type': errorType },
    ]);
  });

  test('that is a refused payment ends in status ERROR with the status code, the error type and the outcome', async () => {
    const server = await startServer((_request, response) => { json(response, 422, { success: false, error: 'Doğrulama hatası', messages: ['Tutar en az 10 olmalıdır'] }); });
    const { result, spans: ended } = await spansOf(() => providerFor(server, { tracer, credentialKey: PROVIDER.credentialKey }).manual.startDeposit({ ...CUSTOMER, amount: 250 }));
    expect(result).toBeInstanceOf(UnprocessableEntityError);
    expect(server.seen).toHaveLength(1);
    expect(ended).toHaveLength(1);
    const [span] = ended;
    expect(span?.name).toBe('manual.startDeposit');
    expect(span?.attributes).toEqual(expect.objectContaining({ 'http.response.status_code': 422, 'error.type': 'UnprocessableEntityError', 'payorch.attempts': 1 }));
    // `outcome` joins PayorchError separately; whatever the error says is what the span says.
    const outcome = (result as { outcome?: unknown }).outcome;
    expect(span?.attributes['payorch.outcome']).toBe(typeof outcome === 'string' ? outcome : undefined);
    expect(span?.status).toEqual({ code: STATUS.ERROR, message: 'UnprocessableEntityError: HTTP 422, outcome refused' });
    expect(span?.events).toEqual([]);
  });

  test('that times out ends in status ERROR with error.type TimeoutError and no status code', async () => {
    const server = await startServer(() => undefined);
    const { result, spans: ended } = await spansOf(() => providerFor(server, { tracer, timeout: 300 }).welcome());
    expect(result).toBeInstanceOf(TimeoutError);
    expect(ended).toHaveLength(1);
    expect(ended[0]?.attributes).toEqual(expect.objectContaining({ 'error.type': 'TimeoutError', 'payorch.attempts': 1 }));
    expect(ended[0]?.attributes).not.toHaveProperty('http.response.status_code');
    expect(ended[0]?.status).toEqual({ code: STATUS.ERROR, message: 'TimeoutError: timeout 300 ms, outcome unknown' });
  });

  test('that fails before anything is sent has status ERROR and no attempt', async () => {
    const server = await startServer((_request, response) => { json(response, 200, WELCOME); });
    const { result, spans: ended } = await spansOf(() => providerFor(server, { tracer }).welcome({ timeout: 0 }));
    expect(result).toBeInstanceOf(RequestValidationError);
    expect(server.seen).toHaveLength(0);
    expect(ended[0]?.attributes).toEqual(expect.objectContaining({ 'error.type': 'RequestValidationError', 'payorch.attempts': 0 }));
    expect(ended[0]?.status).toEqual({ code: STATUS.ERROR, message: 'RequestValidationError: rules invalid_option, outcome not_sent' });
  });
});

describe('no secret reaches a span', () => {
  // The service quotes every key and hash it got, in its message and its headers, and fails
  // twice so that retry events are made too.
  const echo = async () =>
    startServer((request, response, n) => {
      const quoted = ['x-hash', 'x-key', 'x-credential-key'].map((name) => request.headers[name]).filter((value) => value !== undefined).join(' ');
      const message = `refused ${quoted} ${PROVIDER.secretKey} ${quoted.toUpperCase()}`;
      return json(response, n === 1 ? 503 : 401, { success: false, error: message, message }, { 'x-echo': quoted });
    });

  test.each([
    { name: 'a credential-signed payment', secret: PROVIDER.credentialKey, run: (client: ProviderClient) => client.manual.startDeposit({ ...CUSTOMER, amount: 250 }) },
    { name: 'a key-signed read, retried', secret: 'x-key-0123456789', run: (client: ProviderClient) => client.sites.list({ key: 'x-key-0123456789' }) },
  ])('for $name, whatever the service echoes', async ({ secret, run }) => {
    noBackoff();
    const server = await echo();
    const client = providerFor(server, { tracer, credentialKey: PROVIDER.credentialKey });
    const { spans: ended } = await spansOf(() => run(client));
    const hashes = server.seen.map((request) => String(request.headers['x-hash']));
    expect(hashes.length).toBeGreaterThan(0);
    expectNoSecrets(ended, [PROVIDER.secretKey, secret, ...hashes]);
    // Codes only: the class, the status, the outcome.
    expect(ended[0]?.status.message).toMatch(/^[A-Za-z]+Error: HTTP \d{3}(, [a-z_]+)?, outcome [a-z_]+$/);
  });
});

describe('no customer data reaches a span', () => {
  // A refusal that quotes the customer back, as a service's validation or fraud check may.
  const PERSON = { fullname: 'Ayşe Nur Demirtaş', email: 'ayse.demirtas@example.com.tr', iban: 'TR330006100519786457841326' };
  const quoting = `${PERSON.fullname} <${PERSON.email}>, IBAN ${PERSON.iban}`;
  const ANSWERS = [
    [422, { success: false, error: `Doğrulama hatası: ${quoting}`, messages: [`fullname ${PERSON.fullname} is blocked`, `iban ${PERSON.iban} is invalid`], code: PERSON.email }, 'UnprocessableEntityError: HTTP 422, outcome refused'],
    [403, { success: false, error: `Customer ${quoting} is not allowed`, message: quoting, code: 'CUSTOMER_BLOCKED' }, 'PermissionDeniedError: HTTP 403, CUSTOMER_BLOCKED, outcome refused'],
  ] as const;

  test.each(ANSWERS)('a %s that echoes the name, e-mail and IBAN puts none of them in a span name, attribute, event or status', async (status, body, message) => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, status, body); });
    const client = providerFor(server, { tracer, credentialKey: PROVIDER.credentialKey, maxRetries: 2 });
    const { result, spans: ended } = await spansOf(() => client.manual.startWithdrawal({ fullname: PERSON.fullname, username: PERSON.email, user_id: 'u-1', iban: PERSON.iban, amount: 100 }));
    // The error keeps the service's words for the caller; the span does not.
    expect((result as Error).message).toContain(PERSON.fullname);
    expect(ended).toHaveLength(1);
    expect(ended[0]?.status).toEqual({ code: STATUS.ERROR, message });
    const text = spanText(ended[0]!);
    for (const value of [PERSON.fullname, 'Ayşe', 'Demirtaş', PERSON.email, PERSON.iban, 'Doğrulama', 'blocked']) expect(text).not.toContain(value);
  });
});

describe('a tracer that fails', () => {
  test.each([
    {
      name: 'to start a span',
      tracer: { startActiveSpan: () => { throw new Error('exporter down'); } },
    },
    {
      name: 'after calling the work',
      tracer: {
        startActiveSpan<T>(_name: string, _options: unknown, fn: (span: never) => T): T {
          fn({ setAttributes: () => { throw new Error('no'); }, addEvent: () => { throw new Error('no'); }, setStatus: () => { throw new Error('no'); }, end: () => { throw new Error('no'); } } as never);
          throw new Error('context lost');
        },
      },
    },
  ])('$name changes nothing: the payment is sent once and its answer returned', async ({ tracer: broken }) => {
    const server = await startServer((_request, response) => { json(response, 200, DEPOSIT); });
    const client = providerFor(server, { tracer: broken, credentialKey: PROVIDER.credentialKey });
    await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).resolves.toEqual(DEPOSIT);
    expect(server.seen).toHaveLength(1);
  });
});

test('a failure with an outcome records it as payorch.outcome', async () => {
  const error = Object.assign(new Error('Connection failed: POST http://127.0.0.1/api/provider/manual/deposit'), { name: 'ConnectionError', outcome: 'unknown' });
  const { spans: ended } = await spansOf(() => traceCall(tracer, { operation: 'manual.startDeposit', method: 'POST', url: 'http://127.0.0.1/api/provider/manual/deposit' }, () => Promise.reject(error)));
  expect(ended[0]?.attributes).toEqual(expect.objectContaining({ 'error.type': 'ConnectionError', 'payorch.outcome': 'unknown' }));
});

describe('the tracer option', () => {
  const notTracers = [{}, { startActiveSpan: 'yes' }, null, 'tracer', trace.getTracerProvider()];
  const makers: [string, (tracer: unknown) => unknown][] = [
    ['new ProviderClient', (given) => new ProviderClient({ baseUrl: 'https://pay.example', ...PROVIDER, tracer: given as Tracer })],
    ['new DealerClient', (given) => new DealerClient({ baseUrl: 'https://pay.example', ...DEALER, tracer: given as Tracer })],
    ['createCallbackReceiver', (given) => createCallbackReceiver({ ...PROVIDER, tracer: given as Tracer })],
  ];
  test.each(makers)('of %s refuses what is not a Tracer, naming the option', (_where, make) => {
    for (const given of notTracers) {
      let error: unknown;
      try {
        make(given);
      } catch (caught) {
        error = caught;
      }
      expect(error, typeof given).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]).toEqual(expect.objectContaining({ field: 'tracer', rule: 'invalid_option' }));
    }
  });

  test.each(makers)('of %s takes the API’s Tracer', (_where, make) => {
    expect(() => make(trace.getTracer('my-app'))).not.toThrow();
    expect(() => make(tracer)).not.toThrow();
  });
});
