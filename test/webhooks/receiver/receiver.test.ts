import express from 'express';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { CallbackHandlingError, createCallbackReceiver, createMemoryInbox, RequestValidationError, signCallback } from '../../../src/index.js';
import type { CallbackErrorDetails, CallbackInbox, CallbackJob, CallbackReceiver, CallbackReceiverOptions, MemoryInboxContext, VerifiedCallback } from '../../../src/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { deferred, deliver, serveFetch, serveNode } from '../../helpers/serve.js';
import type { Delivery, Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

const OK = { status: 200, body: { success: true } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };

function deposit(trackingCode: string, status = 'completed', extra: Record<string, unknown> = {}): Delivery {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode, status, ...extra }, PROVIDER);
}

type Options = Omit<CallbackReceiverOptions<MemoryInboxContext>, 'apiKey' | 'secretKey'>;

const transports: [string, (receiver: CallbackReceiver<MemoryInboxContext>) => Promise<Served>][] = [
  ['nodeHandler on node:http', (receiver) => serveNode(receiver.nodeHandler)],
  ['handle on a Fetch API server', (receiver) => serveFetch(receiver.handle)],
];

describe.each(transports)('a receiver served by %s', (_name, serveReceiver) => {
  let served: Served | undefined;
  const errors: { error: unknown; phase: string }[] = [];

  beforeEach(() => {
    errors.length = 0;
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  async function start(options: Options = {}): Promise<{ receiver: CallbackReceiver<MemoryInboxContext>; url: string }> {
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: (error, { phase }) => errors.push({ error, phase }), ...options });
    served = await serveReceiver(receiver);
    return { receiver, url: served.url };
  }

  test('answers 200 {"success":true} byte for byte once the handler has applied the callback', async () => {
    const { receiver, url } = await start();
    const applied: VerifiedCallback[] = [];
    receiver.on('deposit.completed', (callback) => void applied.push(callback));
    const response = await fetch(url, { method: 'POST', ...deposit('MAN-ok01-1763812000') });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('{"success":true}');
    expect(applied.map((callback) => [callback.kind, callback.payload.tracking_code, callback.payload.amount])).toEqual([['deposit', 'MAN-ok01-1763812000', 250]]);
  });

  test('acknowledges a redelivery with 200 and does not apply it again', async () => {
    const { receiver, url } = await start();
    const handler = vi.fn();
    receiver.on('deposit', handler);
    const delivery = deposit('MAN-again02-1763812000');
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  test('applies the same tracking code again when its status changes', async () => {
    const { receiver, url } = await start();
    const statuses: string[] = [];
    receiver.on('withdrawal', (callback) => void statuses.push(callback.payload.status));
    const code = 'WIT-two03-1763812000';
    await deliver(url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'failed' }, PROVIDER));
    await deliver(url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'completed' }, PROVIDER));
    expect(statuses).toEqual(['failed', 'completed']);
  });

  test('runs the handlers once for copies that arrive together; the others wait and get 200 when it succeeded', async () => {
    const { receiver, url } = await start();
    const gate = deferred();
    const handler = vi.fn(() => gate.promise);
    receiver.on('deposit.completed', handler);
    const delivery = deposit('MAN-together04-1763812000');
    const answers = Promise.all([deliver(url, delivery), deliver(url, delivery), deliver(url, delivery)]);
    await vi.waitFor(() => { expect(handler).toHaveBeenCalled(); });
    gate.resolve();
    expect(await answers).toEqual([OK, OK, OK]);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  test('answers 500 to every copy that waited on a failing handler, and the redelivery applies it', async () => {
    // Counts the copies that reached the inbox: the gate opens only once both wait there.
    const memory = createMemoryInbox();
    let reached = 0;
    const inbox: CallbackInbox = {
      process: (key, apply) => {
        reached += 1;
        return memory.process(key, apply);
      },
    };
    const { receiver, url } = await start({ inbox });
    const gate = deferred();
    let fail = true;
    const handler = vi.fn(async () => {
      await gate.promise;
      if (fail) throw new Error('the ledger is down');
    });
    receiver.on('deposit', handler);
    const delivery = deposit('MAN-fails05-1763812000');
    const answers = Promise.all([deliver(url, delivery), deliver(url, delivery)]);
    await vi.waitFor(() => {
      expect([reached, handler.mock.calls.length]).toEqual([2, 1]);
    });
    gate.resolve();
    expect(await answers).toEqual([NOT_APPLIED, NOT_APPLIED]);
    expect(handler).toHaveBeenCalledTimes(1);
    fail = false;
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(handler).toHaveBeenCalledTimes(2);
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  test('answers 500 without internals when a handler throws, tells onError with a CallbackHandlingError around it, and leaves nothing claimed', async () => {
    const { receiver, url } = await start();
    let calls = 0;
    const thrown = new Error('secret internal detail: db at 10.0.0.5');
    receiver.on('deposit.completed', () => {
      calls++;
      if (calls === 1) throw thrown;
    });
    const delivery = deposit('MAN-throws06-1763812000');
    const response = await fetch(url, { method: 'POST', ...delivery });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"success":false,"error":"not_applied"}');
    expect(errors).toEqual([{ error: expect.any(CallbackHandlingError), phase: 'handler' }]);
    expect(errors[0]?.error).toMatchObject({ phase: 'handler', cause: thrown, outcome: 'unknown', message: 'The callback was not applied: a handler threw Error: secret internal detail: db at 10.0.0.5' });
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(calls).toBe(2);
  });

  test('runs the handlers of a callback one after the other: status, then kind, then "*", each in the order added', async () => {
    const { receiver, url } = await start();
    const order: string[] = [];
    receiver.on('*', () => void order.push('* 1'));
    receiver.on('deposit', () => void order.push('deposit'));
    receiver
      .on('deposit.completed', async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push('deposit.completed 1');
      })
      .on('deposit.completed', () => void order.push('deposit.completed 2'));
    receiver.on('deposit.canceled', () => void order.push('deposit.canceled'));
    receiver.on('withdrawal', () => void order.push('withdrawal'));
    receiver.on('*', () => void order.push('* 2'));
    expect(await deliver(url, deposit('MAN-order07-1763812000'))).toEqual(OK);
    expect(order).toEqual(['deposit.completed 1', 'deposit.completed 2', 'deposit', '* 1', '* 2']);
  });

  test('delivers a status the SDK does not know to the kind-level and "*" handlers', async () => {
    const { receiver, url } = await start();
    const seen: string[] = [];
    receiver.on('deposit.completed', () => void seen.push('deposit.completed'));
    receiver.on('deposit', (callback) => void seen.push(`deposit ${callback.payload.status}`));
    receiver.on('*', (callback) => void seen.push(`* ${callback.kind}`));
    expect(await deliver(url, deposit('MAN-new08-1763812000', 'refunded'))).toEqual(OK);
    expect(seen).toEqual(['deposit refunded', '* deposit']);
  });

  test('acknowledges a genuine callback no handler is registered for', async () => {
    const { receiver, url } = await start();
    const handler = vi.fn();
    receiver.on('withdrawal', handler);
    expect(await deliver(url, deposit('MAN-none09-1763812000'))).toEqual(OK);
    expect(handler).not.toHaveBeenCalled();
  });

  test('answers 401 with the reason to a callback signed with another secret, applies nothing, and tells onError of the refusal', async () => {
    const { receiver, url } = await start();
    const handler = vi.fn();
    receiver.on('*', handler);
    const forged = signCallback({ ...unsigned.deposit }, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' });
    expect(await deliver(url, forged)).toEqual({ status: 401, body: { success: false, error: 'invalid_signature' } });
    expect(handler).not.toHaveBeenCalled();
    expect(errors.map((entry) => [(entry.error as { reason?: unknown }).reason, entry.phase])).toEqual([['invalid_signature', 'verify']]);
  });

  test('answers 401 to a deposit callback without its signature headers', async () => {
    const { url } = await start();
    const { body } = deposit('MAN-bare10-1763812000');
    expect(await deliver(url, { headers: { 'content-type': 'application/json' }, body })).toEqual({ status: 401, body: { success: false, error: 'missing_header' } });
  });

  test('answers 400 to a body that is not JSON', async () => {
    const { headers } = deposit('MAN-junk11-1763812000');
    const { url } = await start();
    expect(await deliver(url, { headers, body: '{"tracking_code":' })).toEqual({ status: 400, body: { success: false, error: 'malformed_body' } });
  });

  test.each(['GET', 'PUT', 'DELETE'])('answers 405 with Allow: POST to %s', async (method) => {
    const { url } = await start();
    const response = await fetch(url, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({ success: false, error: 'method_not_allowed' });
  });

  test('answers 413 to a body past maxBodyBytes, announced by Content-Length', async () => {
    const { url } = await start({ maxBodyBytes: 1024 });
    const { headers, body } = deposit('MAN-big12-1763812000', 'completed', { padding: 'x'.repeat(2000) });
    expect(await deliver(url, { headers, body })).toEqual({ status: 413, body: { success: false, error: 'body_too_large' } });
  });

  test('accepts a body of exactly maxBodyBytes', async () => {
    const { headers, body } = deposit('MAN-fits13-1763812000');
    const { url } = await start({ maxBodyBytes: new TextEncoder().encode(body).byteLength });
    expect(await deliver(url, { headers, body })).toEqual(OK);
  });

  test('answers 413 to an endless chunked body after reading at most the cap, over a raw socket', async () => {
    const { port } = (served = await serveReceiver(createCallbackReceiver({ ...PROVIDER })));
    const { headers } = deposit('MAN-endless14-1763812000');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      let sent = 0;
      const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
      const pump = (): void => {
        // Keeps sending until the server answers; a server that buffered everything never would.
        while (received === '' && sent < 64 * 1024 * 1024 && socket.write(chunk)) sent += 0x4000;
      };
      socket.on('connect', () => {
        const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
        socket.write(['POST /webhooks/payorch HTTP/1.1', 'Host: 127.0.0.1', 'Transfer-Encoding: chunked', ...lines, '', ''].join('\r\n'));
        pump();
      });
      socket.on('drain', pump);
      socket.on('data', (data: Buffer) => {
        received += data.toString('latin1');
        if (received.includes('\r\n\r\n') && received.includes('}')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', (error) => {
        if (received === '') reject(error);
        else resolve(received);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('{"success":false,"error":"body_too_large"}');
  });

  test('survives a client that goes away mid-body, and serves the next callback', async () => {
    const { receiver, url } = await start();
    const handler = vi.fn();
    receiver.on('*', handler);
    const { port } = new URL(url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('POST /webhooks/payorch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"tracking_code":');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on('error', reject);
    });
    expect(await deliver(url, deposit('MAN-after18-1763812000'))).toEqual(OK);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(errors).toEqual([]);
  });

  test('answers 500 when onError itself throws, and keeps serving', async () => {
    const { receiver, url } = await start({
      onError: () => {
        throw new Error('the error tracker is down');
      },
    });
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    receiver.on('*', () => Promise.reject(new Error('handler failed')));
    expect(await deliver(url, deposit('MAN-onerror15-1763812000'))).toEqual(NOT_APPLIED);
    expect(consoleError).toHaveBeenCalled();
    expect(await deliver(url, deposit('MAN-onerror15-1763812000'))).toEqual(NOT_APPLIED);
  });
});

describe('nodeHandler inside Express', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  test.each([
    ['no body parser', []],
    ['express.json()', [express.json()]],
    ['express.raw()', [express.raw({ type: () => true })]],
    ['express.text()', [express.text({ type: () => true })]],
  ] as const)('verifies and applies a callback after %s, passed detached', async (_name, parsers) => {
    const receiver = createCallbackReceiver({ ...PROVIDER });
    const applied: string[] = [];
    receiver.on('deposit.completed', (callback) => void applied.push(callback.payload.tracking_code));
    const app = express();
    app.post('/webhooks/payorch', ...parsers, receiver.nodeHandler);
    served = await serveNode(app);
    const delivery = deposit('MAN-express16-1763812000');
    expect(await deliver(served.url, delivery)).toEqual(OK);
    expect(await deliver(served.url, delivery)).toEqual(OK);
    expect(applied).toEqual(['MAN-express16-1763812000']);
    expect(await deliver(served.url, signCallback({ ...unsigned.deposit }, { ...PROVIDER, secretKey: 'wrong' }))).toMatchObject({ status: 401 });
  });
});

describe('createCallbackReceiver refuses impossible settings at start-up', () => {
  test.each([
    ['an empty apiKey', { apiKey: '' }, /createCallbackReceiver: apiKey: must be a non-empty string \(for example from PAYORCH_PROVIDER_API_KEY.*got an empty string/],
    ['a secretKey of the wrong type', { secretKey: 42 }, /secretKey: must be a non-empty string \(for example from PAYORCH_PROVIDER_SECRET_KEY.*got number/],
    ['maxBodyBytes 0', { maxBodyBytes: 0 }, /maxBodyBytes: must be an integer from 1 to 65536 .*; got 0/],
    ['maxBodyBytes NaN', { maxBodyBytes: Number.NaN }, /maxBodyBytes: .* got NaN/],
    ['maxBodyBytes past verifyCallback’s cap', { maxBodyBytes: 65537 }, /maxBodyBytes: .* got 65537/],
    ['an unknown kind', { kind: 'refund' }, /kind: /],
    ['a negative maximum age', { maxAgeSeconds: -1 }, /maxAgeSeconds: /],
    ['a negative tolerance', { toleranceSeconds: -1 }, /toleranceSeconds: /],
    ['an onError that is not a function', { onError: 'log' }, /onError: must be a function; got "log"/],
    ['an inbox without process()', { inbox: {} }, /inbox: must be an object with a process\(key, apply\) method/],
  ])('%s', (_name, override, message) => {
    const create = () => createCallbackReceiver({ ...PROVIDER, ...(override as object) });
    expect(create).toThrow(RequestValidationError);
    expect(create).toThrow(message);
  });

  test('receiver.on refuses an event name that is not a kind, a listed status or "*", naming the argument', () => {
    const receiver = createCallbackReceiver({ ...PROVIDER });
    expect(() => receiver.on('deposit.refunded' as 'deposit', () => undefined)).toThrow(/"deposit.refunded" is not an event/);
    const error = catchError(() => receiver.on('deposits' as 'deposit', () => undefined));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ outcome: 'not_sent', issues: [{ field: 'event', rule: 'invalid_argument' }] });
    expect((error as Error).message).toMatch(/^Invalid argument to receiver\.on: event: "deposits" is not an event; use '\*'/);
  });

  test('receiver.on refuses a handler that is not a function, naming the argument', () => {
    const receiver = createCallbackReceiver({ ...PROVIDER });
    const error = catchError(() => receiver.on('deposit', 'credit' as unknown as () => void));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ issues: [{ field: 'handler', rule: 'invalid_argument' }] });
    expect((error as Error).message).toBe("Invalid argument to receiver.on: handler: must be a function for 'deposit'; got string");
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('handle', () => {
  test('answers 500 to a request whose body was already read, applies nothing, and tells onError of the misuse', async () => {
    const errors: { error: unknown; phase: string }[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: (error, { phase }) => errors.push({ error, phase }) });
    const applied = vi.fn();
    receiver.on('*', applied);
    const { headers, body } = deposit('MAN-bodyused1-1763812000');
    const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', headers, body });
    await request.text();
    const answer = await receiver.handle(request);
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ success: false, error: 'not_applied' });
    expect(applied).not.toHaveBeenCalled();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.phase).toBe('request');
    expect(errors[0]?.error).toBeInstanceOf(RequestValidationError);
    expect(errors[0]?.error).toMatchObject({ issues: [{ field: 'request', rule: 'invalid_argument' }] });
    expect((errors[0]?.error as Error).message).toBe('Invalid argument to receiver.handle: request: its body was already read; pass the request before anything reads it');
  });

  test.each([
    ['null', null],
    ['an empty object', {}],
    ['a Node-style request', { method: 'POST', headers: { 'x-hash': 'a' } }],
  ])('answers 500 to %s instead of rejecting, and tells onError it needs a Fetch API Request', async (_case, request) => {
    const errors: unknown[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: (error) => errors.push(error) });
    const answer = await receiver.handle(request as unknown as Request);
    expect(answer.status).toBe(500);
    expect(errors).toEqual([expect.objectContaining({ issues: [{ field: 'request', rule: 'invalid_argument', message: expect.stringMatching(/^must be a Fetch API Request .*receiver\.nodeHandler$/) as unknown }] })]);
  });
});

describe('receive', () => {
  test('answers a parsed body as the framework gave it, and refuses an oversized string body with 413 unparsed', async () => {
    const receiver = createCallbackReceiver({ ...PROVIDER, maxBodyBytes: 2048 });
    const applied = vi.fn();
    receiver.on('deposit', applied);
    const { headers, body } = deposit('MAN-parsed17-1763812000');
    expect(await receiver.receive({ headers, body: JSON.parse(body) as Record<string, unknown> })).toEqual({ status: 200, headers: { 'content-type': 'application/json', 'content-length': '16' }, body: '{"success":true}' });
    expect(applied).toHaveBeenCalledTimes(1);
    expect((await receiver.receive({ headers, body: 'ü'.repeat(1500) })).status).toBe(413);
  });
});

describe('what onError is told of a callback not applied', () => {
  // Each way a verified callback fails to apply, and what a test does to make it fail.
  const failures: { readonly phase: CallbackErrorDetails['phase']; readonly options: Options; readonly fail: (receiver: CallbackReceiver<MemoryInboxContext>, delivery: Delivery) => Promise<unknown> }[] = [
    { phase: 'handler', options: {}, fail: (receiver, delivery) => receiver.on('*', () => Promise.reject(new Error('db down'))).receive(delivery) },
    { phase: 'confirm', options: { confirm: () => false }, fail: (receiver, delivery) => receiver.on('*', () => undefined).receive(delivery) },
    { phase: 'unhandled', options: { unhandled: 'retry' }, fail: (receiver, delivery) => receiver.receive(delivery) },
    { phase: 'inbox', options: { inbox: { process: () => Promise.reject(new Error('connection lost')) } }, fail: (receiver, delivery) => receiver.on('*', () => undefined).receive(delivery) },
    { phase: 'enqueue', options: { enqueue: () => Promise.reject(new Error('queue down')) }, fail: (receiver, delivery) => receiver.receive(delivery) },
  ];

  test.each(failures)('phase $phase: the callback without its hash, nor the secret key anywhere', async ({ phase, options, fail }) => {
    const told: { error: unknown; details: CallbackErrorDetails }[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, ...options, onError: (error, details) => void told.push({ error, details }) });
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: `MAN-told${phase}-1763812000` }, PROVIDER);
    await fail(receiver, delivery);
    expect(told.map(({ details }) => [details.phase, details.callback?.kind, details.callback?.payload.tracking_code])).toEqual([[phase, 'deposit', `MAN-told${phase}-1763812000`]]);
    const written = JSON.stringify(told);
    for (const secret of [delivery.headers['X-Hash'], PROVIDER.secretKey]) expect(written).not.toContain(secret);
  });

  test('a queued job whose handler throws: its handler gets the hash that verified, onError does not', async () => {
    const jobs: CallbackJob[] = [];
    const told: CallbackErrorDetails[] = [];
    const hashes: string[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, enqueue: (job) => Promise.resolve(void jobs.push(job)), onError: (_error, details) => void told.push(details) });
    receiver.on('deposit.completed', (callback) => {
      hashes.push(callback.payload.hash);
      throw new Error('db down');
    });
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-toldjob-1763812000' }, PROVIDER);
    expect((await receiver.receive(delivery)).status).toBe(200);
    await expect(receiver.apply(jobs[0]!)).rejects.toThrow('db down');
    expect(hashes).toEqual([delivery.headers['X-Hash']]);
    expect(told.map(({ phase, callback }) => [phase, callback?.payload.tracking_code])).toEqual([['handler', 'MAN-toldjob-1763812000']]);
    expect(JSON.stringify(told)).not.toContain(delivery.headers['X-Hash']);
  });
});

describe('logging', () => {
  const logger = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

  test('logs each applied or repeated callback at debug and a refused well-formed callback at warn, with no key or hash', async () => {
    const log = logger();
    const receiver = createCallbackReceiver({ ...PROVIDER, logger: log, logLevel: 'debug' }).on('*', () => undefined);
    const delivery = deposit('MAN-log19-1763812000');
    await receiver.receive(delivery);
    await receiver.receive(delivery);
    expect(log.debug.mock.calls.map(([fields]) => (fields as { outcome: string }).outcome)).toEqual(['applied', 'duplicate']);
    await receiver.receive(signCallback({ ...unsigned.deposit }, { ...PROVIDER, secretKey: 'wrong' }));
    expect(log.warn).toHaveBeenCalledWith({ refused: 1, reasons: { invalid_signature: 1 } }, expect.stringContaining('the hash does not match'));
    const written = JSON.stringify([log.debug.mock.calls, log.warn.mock.calls]);
    for (const secret of [PROVIDER.secretKey, PROVIDER.apiKey, JSON.parse(delivery.body).hash as string]) expect(written).not.toContain(secret);
  });

  test('sends a handler failure to logger.error when there is no onError, and to console.error when there is neither', async () => {
    const log = logger();
    const withLogger = createCallbackReceiver({ ...PROVIDER, logger: log });
    withLogger.on('*', () => {
      throw new Error('boom');
    });
    expect((await withLogger.receive(deposit('MAN-log20-1763812000'))).status).toBe(500);
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ phase: 'handler', trackingCode: 'MAN-log20-1763812000', error: new Error('boom') }), 'payorch: a callback was not applied');

    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const bare = createCallbackReceiver({ ...PROVIDER });
    bare.on('*', () => Promise.reject(new Error('bare')));
    expect((await bare.receive(deposit('MAN-log21-1763812000'))).status).toBe(500);
    expect(consoleError).toHaveBeenCalledWith('payorch: a callback was not applied', new Error('bare'));
  });
});

describe('verifyCallback options pass through', () => {
  test('kind: a callback of another kind is refused with kind_mismatch and reaches no handler', async () => {
    const receiver = createCallbackReceiver({ ...PROVIDER, kind: 'withdrawal' });
    const handler = vi.fn();
    receiver.on('*', handler);
    const answer = await receiver.receive(deposit('MAN-kind22-1763812000'));
    expect([answer.status, JSON.parse(answer.body)]).toEqual([400, { success: false, error: 'kind_mismatch' }]);
    expect(handler).not.toHaveBeenCalled();
  });

  test('maxAgeSeconds: a redelivery 10 minutes old is applied by default and refused under a 60 s maximum', async () => {
    const old = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-age23-1763812000' }, { ...PROVIDER, timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect((await createCallbackReceiver({ ...PROVIDER }).receive(old)).status).toBe(200);
    const strict = await createCallbackReceiver({ ...PROVIDER, maxAgeSeconds: 60 }).receive(old);
    expect([strict.status, JSON.parse(strict.body)]).toEqual([401, { success: false, error: 'timestamp_out_of_tolerance' }]);
  });
});
