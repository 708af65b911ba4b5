import { describe, expect, test } from 'vitest';
import { APIError, AuthenticationError, InternalServerError, PayorchError, PermissionDeniedError, UnprocessableEntityError } from '../../src/index.js';
import type { APIErrorInit } from '../../src/errors/api-error.js';

const request = { method: 'POST', url: 'https://api.payorch.test/api/provider/start-manual-withdraw?x=1' };
/** Asserts the class and returns the error typed as it. */
function as<T>(error: unknown, type: abstract new (...args: never[]) => T): T {
  expect(error).toBeInstanceOf(type);
  return error as T;
}
const init = (status: number, body: unknown, extra: Partial<APIErrorInit> = {}): APIErrorInit => ({ status, headers: {}, body, request, ...extra });

describe('APIError.generate', () => {
  test.each([
    ['Missing required headers', 401, AuthenticationError, 'missing_headers'],
    ['Invalid API key', 401, AuthenticationError, 'invalid_api_key'],
    ['Request timestamp expired', 401, AuthenticationError, 'timestamp_expired'],
    ['Invalid hash', 401, AuthenticationError, 'invalid_hash'],
    ['Provider account is inactive', 403, PermissionDeniedError, 'provider_inactive'],
    ['IP address not allowed', 403, PermissionDeniedError, 'ip_not_allowed'],
  ] as const)('maps "%s" to its class and reason from the error field, the message field, or another case', (text, status, type, reason) => {
    for (const body of [{ success: false, error: text }, { success: false, message: text }, { success: false, error: text.toUpperCase() }]) {
      expect(as(APIError.generate(init(status, body)), type).reason).toBe(reason);
    }
  });

  test('recognises a 7.1 text even when the status is not 401 or 403', () => {
    expect(APIError.generate(init(200, { success: false, error: 'Invalid hash' }))).toBeInstanceOf(AuthenticationError);
    expect(as(APIError.generate(init(400, { success: false, error: 'IP address not allowed' })), PermissionDeniedError).reason).toBe('ip_not_allowed');
  });

  test.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
  ] as const)('gives reason "unknown" to a %i with a text the spec does not list', (status, type) => {
    expect(as(APIError.generate(init(status, { success: false, error: 'Token revoked' })), type).reason).toBe('unknown');
  });

  test.each([
    { success: false, error: 'Yetkisiz Credential Key', message: 'Credential key bu sağlayıcıya ait değil' },
    { success: false, message: 'Invalid credential key' },
  ])('maps a refused credential key to PermissionDeniedError (%o)', (body) => {
    expect(as(APIError.generate(init(400, body)), PermissionDeniedError).reason).toBe('credential_key_refused');
  });

  test('maps a messages list to UnprocessableEntityError and joins it into the message', () => {
    const body = { success: false, error: 'Doğrulama hatası', messages: ['IBAN zorunludur', 'Tutar zorunludur'] };
    const error = as(APIError.generate(init(422, body)), UnprocessableEntityError);
    expect(error.messages).toEqual(body.messages);
    expect(error.error).toBe('Doğrulama hatası');
    expect(error.message).toBe('Doğrulama hatası: IBAN zorunludur; Tutar zorunludur (HTTP 422, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.');
  });

  test('keeps any other failure a plain APIError with every field read from the body', () => {
    const body = { success: false, error: 'Site inactive', message: 'The site is disabled', extra: [1] };
    const error = APIError.generate(init(410, body, { headers: { 'x-request-id': 'r1' } }));
    expect(error.constructor).toBe(APIError);
    expect(error).toBeInstanceOf(PayorchError);
    expect(error.name).toBe('APIError');
    expect(error).toMatchObject({ status: 410, error: 'Site inactive', messages: undefined, code: undefined, body, request });
    expect(error.headers).toEqual({ 'x-request-id': 'r1' });
    expect(error.message).toBe('Site inactive: The site is disabled (HTTP 410, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.');
  });

  test('does not repeat a message equal to the error text', () => {
    expect(APIError.generate(init(400, { success: false, error: 'Bad', message: 'Bad' })).message).toBe('Bad (HTTP 400, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.');
  });

  test.each([
    [{ success: false, code: 'WALLET_NOT_ASSIGNED', message: 'x' }, 'WALLET_NOT_ASSIGNED'],
    [{ success: false, error_code: 'INSUFFICIENT_BALANCE' }, 'INSUFFICIENT_BALANCE'],
    [{ success: false, error: 'MIN_AMOUNT_ERROR' }, 'MIN_AMOUNT_ERROR'],
    [{ success: false, error: 'Invalid data' }, undefined],
  ])('reads the code of %o', (body, code) => {
    expect(APIError.generate(init(400, body)).code).toBe(code);
  });

  test.each([
    ['<html>502 Bad Gateway</html>', 'The service answered with a body that is not JSON'],
    ['', 'The service answered with an empty body'],
    [{ success: false }, 'The service reported a failure'],
    [[1, 2], 'The service reported a failure'],
  ])('describes a body without texts (%j)', (body, text) => {
    const error = APIError.generate(init(502, body));
    expect(error.constructor).toBe(InternalServerError);
    expect(error.body).toEqual(body);
    expect(error.message).toBe(`${text} (HTTP 502, POST /api/provider/start-manual-withdraw). The service may have processed it: a payment may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).`);
  });

  test.each([
    ['with its Location, not its query', { location: 'https://evil.example/take?wallet_id=w-1' }, 'The service answered with a redirect to https://evil.example/take, not followed (check baseUrl)'],
    ['without one', {}, 'The service answered with a redirect, not followed (check baseUrl)'],
  ])('says a 3xx is a redirect, %s, whatever its body', (_case, headers, text) => {
    for (const body of ['', '<html>Moved</html>']) {
      expect(APIError.generate(init(302, body, { headers })).message).toBe(`${text} (HTTP 302, POST /api/provider/start-manual-withdraw). The service may have processed it: a payment may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).`);
    }
  });

  test("escapes the control characters of the service's words: a message reaches logs and terminals", () => {
    const error = APIError.generate(init(400, { success: false, error: '\u001b[31mred\u001b[0m\r\nInjected: line' }));
    expect(error.message).toMatch(/^\\u001b\[31mred\\u001b\[0m\\r\\nInjected: line \(HTTP 400/);
    // The body keeps what was sent.
    expect(error.body).toEqual({ success: false, error: '\u001b[31mred\u001b[0m\r\nInjected: line' });
  });

  test('never puts the query string of the URL into the message', () => {
    expect(APIError.generate(init(500, '')).message).not.toContain('x=1');
  });

  test('redacts the given values from the message and the body, and keeps the rest of the body as sent', () => {
    const body = { success: false, error: 'Invalid hash', message: 'got abcd1234 for key SECRETVALUE', extra: [1, { abcd1234: true }] };
    const error = APIError.generate(init(401, body, { redact: ['abcd1234', 'SECRETVALUE', ''] }));
    expect(error.message).toBe('Invalid hash: got [redacted] for key [redacted] (HTTP 401, POST /api/provider/start-manual-withdraw). The service refused it: nothing was created.');
    expect(error.body).toEqual({ success: false, error: 'Invalid hash', message: 'got [redacted] for key [redacted]', extra: [1, { '[redacted]': true }] });
  });

  test('leaves values shorter than four characters alone rather than garble the message', () => {
    expect(APIError.generate(init(400, { success: false, error: 'Amount 1 is low' }, { redact: ['1'] })).message).toContain('Amount 1 is low');
  });
});
