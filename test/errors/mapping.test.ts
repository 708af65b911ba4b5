import { inspect } from 'node:util';
import { HttpResponse, delay, http } from 'msw';
import { describe, expect, test } from 'vitest';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  PermissionDeniedError,
  ProviderClient,
  RequestAbortedError,
  ResponseValidationError,
  TimeoutError,
  UnprocessableEntityError,
} from '../../src/index.js';
import type { RequestValidationError } from '../../src/index.js';
import { server, useMsw } from '../mocks/server.js';
import { BASE_URL, PROVIDER, capture } from '../helpers/wire.js';

useMsw();

// How the Provider API's failures reach the caller: spec 7.1 to 7.3, and what a proxy or a broken
// server may answer instead.

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';
const WITHDRAW_URL = `${BASE_URL}/api/provider/start-manual-withdraw`;
const CARD_URL = `${BASE_URL}/api/provider/credit-card/payment`;
const withdraw = () => provider.manual.startWithdrawal({ ...customer, iban, amount: 100 });
const payByCard = () => provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
/** Answers `url` never; `onRequest` sees each request as it arrives. */
const hang = (url: string, onRequest: (request: Request) => void = () => undefined) => {
  server.use(
    http.post(url, async ({ request }) => {
      onRequest(request);
      await delay('infinite');
      return HttpResponse.json({});
    }),
  );
};
const caught = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the call succeeded'), (error: unknown) => error);

describe('authentication and permission failures (spec 7.1)', () => {
  test.each([
    [401, 'Missing required headers', AuthenticationError, 'missing_headers'],
    [401, 'Invalid API key', AuthenticationError, 'invalid_api_key'],
    [401, 'Request timestamp expired', AuthenticationError, 'timestamp_expired'],
    [401, 'Invalid hash', AuthenticationError, 'invalid_hash'],
    [403, 'Provider account is inactive', PermissionDeniedError, 'provider_inactive'],
    [403, 'IP address not allowed', PermissionDeniedError, 'ip_not_allowed'],
  ] as const)('HTTP %i "%s" is a %o with its reason', async (status, text, type, reason) => {
    const body = { success: false, error: text, message: 'Request refused' };
    capture('post', WITHDRAW_URL, () => HttpResponse.json(body, { status }));
    const error = (await caught(withdraw())) as AuthenticationError | PermissionDeniedError;

    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(APIError);
    expect(error.name).toBe(type.name);
    expect(error.reason).toBe(reason);
    expect(error.status).toBe(status);
    expect(error.error).toBe(text);
    expect(error.body).toEqual(body);
    expect(error.message).toBe(`${text}: Request refused (HTTP ${status}, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.`);
  });
});

describe('errors shown per endpoint (spec 7.3)', () => {
  test('"Yetkisiz Credential Key" on a manual withdrawal is a PermissionDeniedError, whatever the status', async () => {
    const body = { success: false, error: 'Yetkisiz Credential Key', message: 'Bu credential key size ait değil' };
    for (const status of [200, 400, 403]) {
      capture('post', WITHDRAW_URL, () => HttpResponse.json(body, { status }));
      const error = (await caught(withdraw())) as PermissionDeniedError;
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.reason).toBe('credential_key_refused');
      expect(error.status).toBe(status);
      expect(error.error).toBe('Yetkisiz Credential Key');
      expect(error.message).toContain('Bu credential key size ait değil');
    }
  });

  test('"Doğrulama hatası" with messages is a UnprocessableEntityError listing each failed rule', async () => {
    const body = { success: false, error: 'Doğrulama hatası', messages: ['Alıcı IBAN zorunludur', 'Tutar zorunludur'] };
    capture('post', WITHDRAW_URL, () => HttpResponse.json(body, { status: 200 }));
    const error = (await caught(withdraw())) as UnprocessableEntityError;

    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.messages).toEqual(['Alıcı IBAN zorunludur', 'Tutar zorunludur']);
    expect(error.message).toBe('Doğrulama hatası: Alıcı IBAN zorunludur; Tutar zorunludur (HTTP 200, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.');
  });

  test('the card payment\'s "Invalid credential key" is a PermissionDeniedError', async () => {
    capture('post', CARD_URL, { success: false, message: 'Invalid credential key' });
    const error = (await caught(payByCard())) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.reason).toBe('credential_key_refused');
    expect(error.error).toBeUndefined();
  });

  test.each(['Credit card payment is not enabled for this dealer', 'This customer is blocked. Payment not allowed.'])(
    'the card payment\'s "%s" is an APIError carrying the text',
    async (text) => {
      capture('post', CARD_URL, { success: false, message: text });
      const error = (await caught(payByCard())) as APIError;
      expect(error.constructor).toBe(APIError);
      expect(error.status).toBe(200);
      expect(error.error).toBeUndefined();
      expect(error.messages).toBeUndefined();
      expect(error.message).toBe(`${text} (HTTP 200, POST /api/provider/credit-card/payment). The service refused it: nothing was created.`);
      expect(error.body).toEqual({ success: false, message: text });
    },
  );
});

describe('answers that are not a success', () => {
  test('success: false with HTTP 200 is an APIError, not a result', async () => {
    const body = { success: false, error: 'Site inactive', message: 'The site is disabled' };
    capture('post', WITHDRAW_URL, body);
    const error = (await caught(withdraw())) as APIError;
    expect(error.constructor).toBe(APIError);
    expect(error.status).toBe(200);
    expect(error.error).toBe('Site inactive');
    expect(error.body).toEqual(body);
  });

  test("a proxy's HTML 502 page is an InternalServerError keeping the text", async () => {
    const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    capture('post', WITHDRAW_URL, () => new HttpResponse(html, { status: 502, headers: { 'Content-Type': 'text/html' } }));
    const error = (await caught(withdraw())) as APIError;
    expect(error.constructor).toBe(InternalServerError);
    expect(error.status).toBe(502);
    expect(error.body).toBe(html);
    expect(error.headers['content-type']).toBe('text/html');
    expect(error.message).toBe('The service answered with a body that is not JSON (HTTP 502, POST /api/provider/start-manual-withdraw). The service may have processed it: the withdrawal may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).');
  });

  test('an HTML page with HTTP 200 is an APIError too', async () => {
    capture('post', WITHDRAW_URL, () => new HttpResponse('<html>Login</html>', { status: 200 }));
    const error = (await caught(withdraw())) as APIError;
    expect(error.status).toBe(200);
    expect(error.body).toBe('<html>Login</html>');
  });

  test.each([[200, APIError], [500, InternalServerError]] as const)('an empty body with HTTP %i is an %o', async (status, errorClass) => {
    capture('post', WITHDRAW_URL, () => new HttpResponse(null, { status }));
    const error = (await caught(withdraw())) as APIError;
    expect(error.constructor).toBe(errorClass);
    expect(error.status).toBe(status);
    expect(error.body).toBe('');
    expect(error.message).toMatch(/^The service answered with an empty body/);
  });

  // Spec 7.4 shows no status for most refusals: the body rules decide first (a 7.1 text, then a
  // `messages` list), and only then does a 400 or a 409 name its own class.
  test.each([
    [400, { success: false, error: 'MIN_AMOUNT_ERROR', message: 'Amount below 10.00' }, BadRequestError],
    [409, { success: false, error: 'Duplicate request', message: 'A withdrawal for this order is under way' }, ConflictError],
    [400, { success: false, error: 'Doğrulama hatası', messages: ['iban is required'] }, UnprocessableEntityError],
    [409, { success: false, error: 'Doğrulama hatası', messages: ['amount must be at least 1'] }, UnprocessableEntityError],
    [400, { success: false, error: 'Missing required headers' }, AuthenticationError],
    [409, { success: false, error: 'Yetkisiz Credential Key', message: 'not yours' }, PermissionDeniedError],
  ] as const)('HTTP %i with %o is a %o, an APIError whose outcome is refused and whose message says nothing was created', async (status, body, errorClass) => {
    capture('post', WITHDRAW_URL, () => HttpResponse.json(body, { status }));
    const error = (await caught(withdraw())) as APIError;
    expect(error.constructor).toBe(errorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(status);
    expect(error.outcome).toBe('refused');
    expect(error.body).toEqual(body);
    expect(error.message).toContain(`(HTTP ${status}, POST /api/provider/start-manual-withdraw)`);
    expect(error.message).toMatch(/The service refused it/);
  });

  test('a success answer that misses a field the caller needs is a ResponseValidationError keeping body and raw text', async () => {
    const rawBody = '{"success":true,"data":{"tracking_code":"WIT-Q2w9-1763812000","amount":"lots","status":"pending"}}';
    capture('post', WITHDRAW_URL, () => new HttpResponse(rawBody, { status: 200, headers: { 'Content-Type': 'application/json' } }));
    const error = (await caught(withdraw())) as ResponseValidationError;

    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.status).toBe(200);
    expect(error.rawBody).toBe(rawBody);
    expect(error.body).toEqual(JSON.parse(rawBody));
    expect(error.issues.map((issue) => issue.field)).toEqual(['data.amount']);
    expect(error.message).toMatch(/^Unexpected answer from provider.manual.startWithdrawal: data.amount/);
  });
});

describe('calls that do not finish', () => {
  test('a per-call timeout ends a hanging call with a TimeoutError', async () => {
    hang(WITHDRAW_URL);
    const error = (await caught(provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }, { timeout: 20 }))) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.timeout).toBe(20);
  });

  test('the client timeout applies when the call sets none', async () => {
    hang(`${BASE_URL}/api/provider/welcome`);
    const error = await caught(new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, timeout: 20 }).welcome());
    expect(error).toBeInstanceOf(TimeoutError);
  });

  test("the caller's AbortSignal ends the call with a RequestAbortedError carrying the reason", async () => {
    const controller = new AbortController();
    hang(WITHDRAW_URL, () => {
      controller.abort(new Error('user left the page'));
    });
    const error = (await caught(provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }, { signal: controller.signal }))) as RequestAbortedError;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error.cause as Error).message).toBe('user left the page');
  });

  test('an already aborted signal sends nothing', async () => {
    const seen = capture('post', WITHDRAW_URL, {});
    const error = await caught(provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(seen).toHaveLength(0);
  });

  test('a network failure is a ConnectionError that does not claim the connection was refused', async () => {
    capture('post', WITHDRAW_URL, () => HttpResponse.error());
    const error = (await caught(withdraw())) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.refused).toBe(false);
  });
});

describe('secrets stay out of errors', () => {
  const secrets = (hashes: string[]) => [PROVIDER.secretKey, PROVIDER.credentialKey, ...hashes];

  test('the secret key, the hash and the credential key are redacted when the service echoes them', async () => {
    const seen = capture('post', WITHDRAW_URL, (_attempt, request) =>
      HttpResponse.json(
        {
          success: false,
          error: 'Invalid hash',
          message: `expected ${request.headers.get('x-hash') ?? ''} for ${request.headers.get('x-credential-key') ?? ''} with ${PROVIDER.secretKey}`,
        },
        { status: 401 },
      ),
    );
    const error = (await caught(withdraw())) as AuthenticationError;
    const hash = seen[0]!.headers.get('x-hash') ?? '';

    expect(error.message).toBe('Invalid hash: expected [redacted] for [redacted] with [redacted] (HTTP 401, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect((error.body as { message: string }).message).toBe('expected [redacted] for [redacted] with [redacted]');
  });

  test('the credential key of a card payment body is redacted when the service echoes it', async () => {
    capture('post', CARD_URL, (_attempt, request) => ({
      success: false,
      message: `Invalid credential key: ${(JSON.parse(request.body) as { credential_key: string }).credential_key}`,
    }));
    const error = (await caught(payByCard())) as APIError;
    expect(error.message).toBe('Invalid credential key: [redacted] (HTTP 200, POST /api/provider/credit-card/payment). The service refused it: nothing was created.');
  });

  test('a credential key given in the body of a card payment, or in a raw request, is redacted when echoed', async () => {
    capture('post', CARD_URL, (_attempt, request) => ({
      success: false,
      message: `Invalid credential key: ${(JSON.parse(request.body) as { credential_key: string }).credential_key}`,
    }));
    const own = await caught(provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150, credential_key: 'site_cred_given_in_body' }));
    expect((own as APIError).message).toBe('Invalid credential key: [redacted] (HTTP 200, POST /api/provider/credit-card/payment). The service refused it: nothing was created.');
    const raw = await caught(provider.request({ method: 'POST', path: '/credit-card/payment', hash: 'basic', body: { credential_key: PROVIDER.credentialKey } }));
    expect((raw as APIError).message).toBe('Invalid credential key: [redacted] (HTTP 200, POST /api/provider/credit-card/payment). The service refused it: nothing was created.');
  });

  test('no error of any kind carries a secret in its message, stack or inspected form', async () => {
    const hashes: string[] = [];
    const record = (request: { headers: Headers }) => hashes.push(request.headers.get('x-hash') ?? '');
    const errors: unknown[] = [];

    capture('post', WITHDRAW_URL, (_attempt, request) => (record(request), HttpResponse.json({ success: false, error: 'Invalid hash' }, { status: 401 })));
    errors.push(await caught(withdraw()));
    capture('post', WITHDRAW_URL, (_attempt, request) => (record(request), new HttpResponse('<html>502</html>', { status: 502 })));
    errors.push(await caught(withdraw()));
    capture('post', WITHDRAW_URL, (_attempt, request) => (record(request), { success: true, data: {} }));
    errors.push(await caught(withdraw()));
    capture('post', WITHDRAW_URL, (_attempt, request) => (record(request), HttpResponse.error()));
    errors.push(await caught(withdraw()));
    hang(WITHDRAW_URL, record);
    errors.push(await caught(provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }, { timeout: 20 })));
    errors.push(await caught(provider.manual.startWithdrawal({ ...customer, iban: 'short', amount: 100 })));
    errors.push(await caught(new ProviderClient({ baseUrl: BASE_URL, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey }).manual.startWithdrawal({ ...customer, iban, amount: 1 })));

    expect(errors.map((error) => (error as Error).name)).toEqual([
      'AuthenticationError',
      'InternalServerError',
      'ResponseValidationError',
      'ConnectionError',
      'TimeoutError',
      'RequestValidationError',
      'RequestValidationError',
    ]);
    expect(hashes).toHaveLength(5);
    for (const error of errors) {
      const text = [(error as Error).message, (error as Error).stack ?? '', inspect(error, { depth: 10 })].join('\n');
      for (const secret of secrets(hashes)) expect(text, (error as Error).name).not.toContain(secret);
    }
  });

  test('the message of a refusal names the field and the rule, not the value', async () => {
    const tooLong = PROVIDER.secretKey + PROVIDER.credentialKey;
    const error = (await caught(provider.manual.startWithdrawal({ ...customer, iban: tooLong, amount: 100 }))) as RequestValidationError;
    expect(error.message).toBe('Invalid request to manual.startWithdrawal: iban: must be 15 to 34 characters');
  });
});
