// The receiver at its borders: each reproduction against a real socket.
import express5 from 'express';
import express4 from 'express4';
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, expectTypeOf, test, vi } from 'vitest';
import { CallbackHandlingError, confirmWithCardStatus, createCallbackReceiver, createMemoryInbox, isPayorchError, NotConfirmedError, ProviderClient, RequestValidationError, UnhandledError } from '../../../src/index.js';
import type { CallbackErrorDetails, CallbackReceiver, CallbackReceiverOptions, MemoryInboxContext, VerifiedCallback, AppliedCallback, PayorchError } from '../../../src/index.js';
import { NOW_SECONDS, now, sign, unsigned } from '../../helpers/callbacks.js';
import { serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { DEALER, PROVIDER } from '../../helpers/wire.js';
import { merchantIdOf } from '../../../src/webhooks/key.js';

type Signed = ReturnType<typeof sign>;
interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** POSTs over node:http, so that the Content-Type is exactly what the test says (`null`: none at all). */
function post(url: string, signed: Signed, contentType: string | null = 'application/json'): Promise<Answer> {
  const body = JSON.stringify(signed.body);
  const headers: Record<string, string> = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
  if (contentType !== null) headers['Content-Type'] = contentType;
  return new Promise((resolve, reject) => {
    const call = httpRequest(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : (JSON.parse(text) as unknown) });
      });
    });
    call.on('error', reject);
    call.end(body);
  });
}

const OK = { status: 200, body: { success: true } };
const provider = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, now } as const;

let served: Served | undefined;
const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
const onError = (error: unknown, details: CallbackErrorDetails): void => void errors.push({ error, details });

beforeEach(() => {
  errors.length = 0;
});
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(options: Partial<CallbackReceiverOptions<MemoryInboxContext>> = {}): Promise<{ receiver: CallbackReceiver<MemoryInboxContext>; url: string }> {
  const receiver = createCallbackReceiver({ ...provider, onError, ...options });
  served = await serveNode(receiver.nodeHandler);
  return { receiver, url: served.url };
}

describe('signed truth decides: unsigned fields never refuse', () => {
  test.each([
    ['username as a JSON number (JSON_NUMERIC_CHECK)', sign({ ...unsigned.deposit, username: 12345, user_id: 77 }, PROVIDER), 'deposit'],
    ['amount as a padded numeric string', sign({ ...unsigned.deposit, amount: ' 250.00 ' }, PROVIDER), 'deposit'],
    ['a provider card callback that also carries success: true', sign({ ...unsigned.creditCard, success: true }, PROVIDER), 'creditCard'],
    ['a card callback with neither side\'s optional fields', sign({ tracking_code: 'CC-bare1-1763812000', status: 'success', amount: 10 }, PROVIDER), 'creditCard'],
  ] as const)('%s is answered 200 and applied', async (_name, signed, kind) => {
    const { receiver, url } = await start();
    const applied: AppliedCallback[] = [];
    receiver.on('*', (callback) => void applied.push(callback));
    expect(await post(url, signed)).toEqual(OK);
    expect(applied.map((callback) => callback.kind)).toEqual([kind]);
    expect(errors).toEqual([]);
  });

  test('a genuine callback whose amount cannot be typed is answered 500 and onError gets the raw payload without its hash', async () => {
    const { receiver, url } = await start();
    const handler = vi.fn();
    receiver.on('*', handler);
    const signed = sign({ ...unsigned.deposit, amount: '1.500,00 TL' }, PROVIDER);
    expect(await post(url, signed)).toEqual({ status: 500, body: { success: false, error: 'unreadable_payload' } });
    expect(handler).not.toHaveBeenCalled();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.details).toMatchObject({ phase: 'payload', callback: undefined, payload: { tracking_code: unsigned.deposit.tracking_code, amount: '1.500,00 TL' } });
    expect(JSON.stringify(errors[0]?.details.payload)).not.toContain(signed.hash);
    expect(errors[0]?.error).toMatchObject({ reason: 'unreadable_payload', signatureVerified: true });
  });

  test('a genuine body of 60 KiB that cannot be typed reaches onError cut to about 500 characters, at most once a minute with the count', async () => {
    let nowMs = NOW_SECONDS * 1000;
    const { url } = await start({ now: () => nowMs });
    const filler = Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`note_${index}`, 'x'.repeat(1000)]));
    const signed = sign({ ...unsigned.deposit, amount: `1.500,00 TL ${'y'.repeat(1000)}`, ...filler }, PROVIDER);
    expect(JSON.stringify(signed.body).length).toBeGreaterThan(60_000);
    for (let index = 0; index < 3; index++) expect((await post(url, signed)).status).toBe(500);
    expect(errors.map(({ details }) => [details.phase, details.count])).toEqual([['payload', 1]]);
    const payload = errors[0]?.details.payload ?? {};
    expect(JSON.stringify(payload).length).toBeLessThanOrEqual(600);
    expect(payload).toMatchObject({ tracking_code: unsigned.deposit.tracking_code, status: 'completed', amount: expect.stringMatching(/^1\.500,00 TL y+…$/) as unknown });
    expect(String(payload['amount'])).toHaveLength(100);
    expect(payload['…']).toMatch(/^\d+ more fields left out$/);
    nowMs += 60_000;
    expect((await post(url, signed)).status).toBe(500);
    expect(errors.map(({ details }) => [details.phase, details.count])).toEqual([['payload', 1], ['payload', 3]]);
  });

  test('a forgery is still refused 401 and reaches onError only as a refusal, with no callback or payload', async () => {
    const { url } = await start();
    const forged = sign({ ...unsigned.deposit, amount: 'lots' }, { apiKey: PROVIDER.apiKey, secretKey: 'not-the-secret' });
    expect(await post(url, forged)).toMatchObject({ status: 401 });
    // It cannot be told from a genuine callback under a wrong key: heard, never typed.
    expect(errors.map(({ error, details }) => [(error as { reason?: unknown }).reason, details])).toEqual([['invalid_signature', { callback: undefined, phase: 'verify', count: 1 }]]);
  });
});

describe('either timestamp', () => {
  test('a redelivery re-stamped in X-Timestamp whose hash matches the body timestamp is applied', async () => {
    const { receiver, url } = await start();
    const handler = vi.fn();
    receiver.on('deposit.completed', handler);
    const first = sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 3600);
    const restamped = { ...first, headers: { ...first.headers, 'X-Timestamp': String(NOW_SECONDS) } };
    expect(await post(url, restamped)).toEqual(OK);
    expect(handler.mock.calls[0]?.[0]).toMatchObject({ ageSeconds: 3600, payload: { timestamp: NOW_SECONDS - 3600 } });
  });

  test('a dealer card callback hashed with its payload timestamp but another X-Timestamp is applied', async () => {
    const { receiver, url } = await start({ apiKey: DEALER.apiKey, secretKey: DEALER.secretKey, api: 'dealer' });
    const handler = vi.fn();
    receiver.on('dealerCreditCard.success', handler);
    const signed = sign(unsigned.dealerCreditCard, DEALER, NOW_SECONDS - 2);
    expect(await post(url, { ...signed, headers: { ...signed.headers, 'X-Timestamp': String(NOW_SECONDS) } })).toEqual(OK);
    expect(handler).toHaveBeenCalledTimes(1);
  });
});

describe('a prefix the SDK does not know', () => {
  test('a correctly signed callback with a new prefix reaches the * handlers only, and is applied once', async () => {
    const { receiver, url } = await start();
    const star = vi.fn();
    const deposit = vi.fn();
    receiver.on('*', star).on('deposit', deposit);
    const signed = sign({ ...unsigned.deposit, tracking_code: 'TPQD-n3w-1763812000' }, PROVIDER);
    expect(await post(url, signed)).toEqual(OK);
    expect(await post(url, signed)).toEqual(OK);
    expect(star).toHaveBeenCalledTimes(1);
    expect(star.mock.calls[0]?.[0]).toMatchObject({ kind: 'unknown', payload: { tracking_code: 'TPQD-n3w-1763812000', amount: 250 } });
    expect(deposit).not.toHaveBeenCalled();
  });
});

describe('bodies behind any parser', () => {
  const majors = [
    ['Express 4', express4 as unknown as typeof express5],
    ['Express 5', express5],
  ] as const;
  const parsers = [
    ['express.json()', (express: typeof express5) => [express.json()]],
    ['express.text()', (express: typeof express5) => [express.text()]],
    ['express.urlencoded({ extended: false })', (express: typeof express5) => [express.urlencoded({ extended: false })]],
    ['express.urlencoded({ extended: true })', (express: typeof express5) => [express.urlencoded({ extended: true })]],
    ['express.json() and express.urlencoded() app-wide', (express: typeof express5) => [express.json(), express.urlencoded({ extended: false })]],
  ] as const;
  const contentTypes = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', null] as const;
  const cases = majors.flatMap(([major, express]) => parsers.flatMap(([parser, make]) => contentTypes.map((type) => [major, parser, type ?? 'no Content-Type', express, make, type] as const)));

  test.each(cases)('%s behind %s: a callback sent with %s is applied once', async (_major, _parser, _label, express, make, type) => {
    const receiver = createCallbackReceiver({ ...provider, onError });
    const applied: string[] = [];
    receiver.on('deposit.completed', (callback) => void applied.push(`${callback.payload.tracking_code} ${callback.payload.fullname ?? ''}`));
    const app = express();
    app.use(...make(express));
    app.post('/webhooks/payorch', receiver.nodeHandler);
    served = await serveNode(app);
    const signed = sign({ ...unsigned.deposit, tracking_code: 'MAN-parser1-1763812000' }, PROVIDER);
    expect(await post(served.url, signed, type)).toEqual(OK);
    expect(await post(served.url, signed, type)).toEqual(OK);
    expect(applied).toEqual(['MAN-parser1-1763812000 Ada Yılmaz']);
    expect(errors).toEqual([]);
  });

  test('the raw bytes a verify hook kept are preferred to the parsed fields', async () => {
    const receiver = createCallbackReceiver({ ...provider, onError });
    const applied: unknown[] = [];
    receiver.on('*', (callback) => void applied.push((callback.payload as Record<string, unknown>)['note']));
    const app = express5();
    app.use(express5.urlencoded({ extended: false, verify: (request, _response, buffer) => void ((request as unknown as { rawBody: Buffer }).rawBody = buffer) }));
    app.post('/webhooks/payorch', receiver.nodeHandler);
    served = await serveNode(app);
    // '+' and '&' are read by a form decoder as a space and a separator: only the raw bytes keep them.
    const signed = sign({ ...unsigned.deposit, note: 'a+b&c' }, PROVIDER);
    expect(await post(served.url, signed, 'application/x-www-form-urlencoded')).toEqual(OK);
    expect(applied).toEqual(['a+b&c']);
  });
});

describe('keys per account', () => {
  test('a callback signed with account A for B\'s tracking code does not make B\'s genuine callback a duplicate', async () => {
    const inbox = createMemoryInbox();
    const a = createCallbackReceiver({ ...provider, inbox, onError });
    const b = createCallbackReceiver({ apiKey: 'prov_api_B', secretKey: 'prov_secret_B', now, inbox, onError });
    const appliedA = vi.fn();
    const appliedB = vi.fn();
    a.on('*', appliedA);
    b.on('*', appliedB);
    served = await serveNode(a.nodeHandler);
    const urlA = served.url;
    const servedB = await serveNode(b.nodeHandler);
    try {
      const trackingCode = 'MAN-victim1-1763812000';
      expect(await post(urlA, sign({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER))).toEqual(OK);
      expect(await post(servedB.url, sign({ ...unsigned.deposit, tracking_code: trackingCode }, { apiKey: 'prov_api_B', secretKey: 'prov_secret_B' }))).toEqual(OK);
      expect([appliedA.mock.calls.length, appliedB.mock.calls.length]).toEqual([1, 1]);
      expect(appliedB.mock.calls[0]?.[1]).toMatchObject({ key: { merchantId: merchantIdOf('prov_api_B', undefined), trackingCode, status: 'completed' } });
    } finally {
      await servedB.close();
    }
  });

  test('merchantId replaces the digest of the API key in the key', async () => {
    const { receiver, url } = await start({ merchantId: 'merchant-42' });
    const handler = vi.fn();
    receiver.on('*', handler);
    expect(await post(url, sign(unsigned.deposit, PROVIDER))).toEqual(OK);
    expect(handler.mock.calls[0]?.[1]).toMatchObject({ key: { merchantId: 'merchant-42' } });
  });
});

describe('once per handler with the in-memory inbox', () => {
  test('when a later handler throws, the redelivery runs only the handlers that did not complete', async () => {
    const { receiver, url } = await start();
    const credit = vi.fn();
    let auditUp = false;
    const audit = vi.fn(() => {
      if (!auditUp) throw new Error('audit log down');
    });
    receiver.on('deposit.completed', credit).on('*', audit);
    const signed = sign({ ...unsigned.deposit, tracking_code: 'MAN-twice1-1763812000' }, PROVIDER);
    expect(await post(url, signed)).toMatchObject({ status: 500 });
    auditUp = true;
    expect(await post(url, signed)).toEqual(OK);
    expect(await post(url, signed)).toEqual(OK);
    expect([credit.mock.calls.length, audit.mock.calls.length]).toEqual([1, 2]);
    expect(errors.map(({ details }) => details.phase)).toEqual(['handler']);
  });

  test('a second end status of one tracking code is applied, shows the first in appliedStatuses, and is logged at warn', async () => {
    const warn = vi.fn();
    const logger = { debug: vi.fn(), info: vi.fn(), warn, error: vi.fn() };
    const { receiver, url } = await start({ logger });
    const refunds: string[] = [];
    receiver.on('withdrawal', (callback, context) => {
      if ((callback.payload.status === 'rejected' || callback.payload.status === 'failed') && !context.appliedStatuses.some((status) => status === 'rejected' || status === 'failed')) {
        refunds.push(callback.payload.status);
      }
    });
    const code = 'WIT-ends1-1763812000';
    expect(await post(url, sign({ ...unsigned.withdrawal, tracking_code: code, status: 'rejected' }, PROVIDER))).toEqual(OK);
    expect(await post(url, sign({ ...unsigned.withdrawal, tracking_code: code, status: 'failed' }, PROVIDER))).toEqual(OK);
    expect(refunds).toEqual(['rejected']);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ trackingCode: code, status: 'failed', appliedStatuses: ['rejected'] }), expect.stringContaining('second end status'));
  });
});

describe('unhandled', () => {
  test.each([
    [undefined, OK, []],
    ['acknowledge', OK, []],
    ['retry', { status: 500, body: { success: false, error: 'no_handler' } }, ['unhandled']],
  ] as const)('unhandled: %s answers a callback no handler takes with %o, logged at warn', async (unhandled, expected, phases) => {
    const warn = vi.fn();
    const { receiver, url } = await start({ unhandled, logger: { debug: vi.fn(), info: vi.fn(), warn, error: vi.fn() } });
    receiver.on('withdrawal', () => undefined);
    expect(await post(url, sign(unsigned.deposit, PROVIDER))).toEqual(expected);
    const fate = unhandled === 'retry' ? 'not applied, delivered again' : 'acknowledged (200) and not applied';
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ trackingCode: unsigned.deposit.tracking_code }), `payorch: no handler takes deposit.completed ${unsigned.deposit.tracking_code}; ${fate}`);
    expect(errors.map(({ details }) => details.phase)).toEqual(phases);
  });
});

describe('confirm', () => {
  // The merchant's own record of what it expects for each tracking code.
  const record = new Map([['MAN-conf1-1763812000', { user: 'u-1', amount: 250 }]]);
  const confirm = (callback: AppliedCallback): boolean => {
    const expected = record.get(callback.payload.tracking_code);
    return callback.kind === 'deposit' && expected !== undefined && expected.amount === callback.payload.amount && expected.user === callback.payload.user_id;
  };

  test('a tampered amount is refused 409, applies and records nothing, and the genuine delivery then applies', async () => {
    const { receiver, url } = await start({ confirm });
    const credit = vi.fn();
    receiver.on('deposit.completed', credit);
    const genuine = sign({ ...unsigned.deposit, tracking_code: 'MAN-conf1-1763812000' }, PROVIDER);
    const tampered = { ...genuine, body: { ...genuine.body, amount: 25_000 } };
    expect(await post(url, tampered)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
    expect(credit).not.toHaveBeenCalled();
    expect(errors.map(({ details }) => details.phase)).toEqual(['confirm']);
    expect(await post(url, genuine)).toEqual(OK);
    expect(credit.mock.calls.map(([callback]) => (callback as VerifiedCallback & { kind: 'deposit' }).payload.amount)).toEqual([250]);
  });

  test('a confirm that throws is answered 500 and applies nothing', async () => {
    const { receiver, url } = await start({ confirm: () => Promise.reject(new Error('ledger down')) });
    const credit = vi.fn();
    receiver.on('*', credit);
    expect(await post(url, sign(unsigned.deposit, PROVIDER))).toMatchObject({ status: 500 });
    expect(credit).not.toHaveBeenCalled();
    expect(errors.map(({ details }) => details.phase)).toEqual(['confirm']);
  });

  test('onError is typed with what reaches it: a PayorchError, whose message compiles', () => {
    expectTypeOf<Parameters<NonNullable<CallbackReceiverOptions<MemoryInboxContext>['onError']>>[0]>().toEqualTypeOf<PayorchError>();
    expectTypeOf(new CallbackHandlingError('handler', new Error('x')).phase).toEqualTypeOf<'handler' | 'confirm' | 'enqueue' | 'inbox' | 'request'>();
  });

  test('onError is told of a refusal by confirm, or of a callback no handler takes under retry, with an exported PayorchError that says nothing was applied; a throw of confirm reaches it wrapped', async () => {
    const own = new Error('ledger down');
    const { receiver, url } = await start({ unhandled: 'retry', confirm: (callback) => (callback.payload.tracking_code === unsigned.withdrawal.tracking_code ? Promise.reject(own) : callback.kind === 'deposit') });
    receiver.on('deposit', () => undefined).on('withdrawal', () => undefined);
    expect(await post(url, sign(unsigned.creditCard, PROVIDER))).toEqual({ status: 500, body: { success: false, error: 'no_handler' } });
    receiver.on('creditCard', () => undefined);
    expect(await post(url, sign({ ...unsigned.creditCard, tracking_code: 'CC-own2-1763812000' }, PROVIDER))).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
    expect(await post(url, sign(unsigned.withdrawal, PROVIDER))).toMatchObject({ status: 500 });
    const told = errors.map(({ error, details }) => [details.phase, isPayorchError(error), (error as Error).name, (error as { outcome?: string }).outcome]);
    expect(told).toEqual([['unhandled', true, 'UnhandledError', 'refused'], ['confirm', true, 'NotConfirmedError', 'refused'], ['confirm', true, 'CallbackHandlingError', 'refused']]);
    expect([isPayorchError(errors[0]?.error, UnhandledError), isPayorchError(errors[1]?.error, NotConfirmedError), isPayorchError(errors[2]?.error, CallbackHandlingError)]).toEqual([true, true, true]);
    expect(errors[2]?.error).toMatchObject({ phase: 'confirm', cause: own });
  });

  describe('confirmWithCardStatus', () => {
    const card = (status: string, amount: number) => ({ creditCard: { getStatus: vi.fn(() => Promise.resolve({ data: { tracking_code: unsigned.creditCard.tracking_code, status, amount } })) } });

    test.each([
      ['status and amount agree', card('success', 150), OK, 1],
      ['the amount differs', card('success', 15), { status: 409, body: { success: false, error: 'not_confirmed' } }, 0],
      ['the status differs', card('failed', 150), { status: 409, body: { success: false, error: 'not_confirmed' } }, 0],
    ] as const)('a provider card callback is applied only when %s', async (_name, source, expected, applications) => {
      const { receiver, url } = await start({ api: 'provider', confirm: confirmWithCardStatus(source) });
      const handler = vi.fn();
      receiver.on('creditCard', handler);
      expect(await post(url, sign(unsigned.creditCard, PROVIDER))).toEqual(expected);
      expect(handler).toHaveBeenCalledTimes(applications);
      expect(source.creditCard.getStatus).toHaveBeenCalledWith({ tracking_code: unsigned.creditCard.tracking_code }, { timeout: 5000 });
    });

    test('a failing status query is answered 500, so the callback comes again', async () => {
      const { receiver, url } = await start({ confirm: confirmWithCardStatus({ creditCard: { getStatus: () => Promise.reject(new Error('timeout')) } }) });
      receiver.on('*', () => undefined);
      expect(await post(url, sign(unsigned.creditCard, PROVIDER))).toMatchObject({ status: 500 });
    });

    test.each([
      ['a deposit', unsigned.deposit, 'provider'],
      ['a dealer card payment (the dealer API has no status endpoint)', unsigned.dealerCreditCard, 'dealer'],
    ] as const)('%s passes without a status query', async (_name, body, account) => {
      const source = card('failed', 1);
      const { receiver, url } = await start({ api: account, confirm: confirmWithCardStatus(source) });
      receiver.on('*', () => undefined);
      expect(await post(url, sign(body, PROVIDER))).toEqual(OK);
      expect(source.creditCard.getStatus).not.toHaveBeenCalled();
    });

    test('takes the provider client itself, and refuses anything without creditCard.getStatus', () => {
      const client = new ProviderClient({ apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, baseUrl: 'https://api.payorch.test' });
      expect(typeof confirmWithCardStatus(client)).toBe('function');
      expect(() => confirmWithCardStatus({} as never)).toThrow(RequestValidationError);
    });
  });
});

describe('new options are checked at start-up', () => {
  test.each([
    ['confirm', { confirm: 'yes' }, /confirm: must be a function/],
    ['unhandled', { unhandled: 'drop' }, /unhandled: must be 'acknowledge' or 'retry'; got "drop"/],
    ['merchantId', { merchantId: ' ' }, /merchantId: must be a non-empty string/],
    ['api', { api: 'merchant' }, /api: must be 'provider' or 'dealer'/],
  ])('a bad %s is refused naming it', (_name, options, message) => {
    expect(() => createCallbackReceiver({ ...provider, ...(options as object) })).toThrow(message);
  });
});
