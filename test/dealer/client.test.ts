import { delay, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { AuthenticationError, DealerClient, PayorchError, PermissionDeniedError, TimeoutError } from '../../src/index.js';
import type { AuthFailureReason } from '../../src/index.js';
import { DEALER_URL, IBAN, settingsAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import { server, useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });

describe('new DealerClient', () => {
  test('puts /api/dealer after a base URL with a path and a trailing slash', async () => {
    const seen = capture('get', `${BASE_URL}/gateway/api/dealer/settings`, settingsAnswer);
    await new DealerClient({ baseUrl: `${BASE_URL}/gateway/`, ...DEALER }).settings.get();
    expect(seen[0]!.url.pathname).toBe('/gateway/api/dealer/settings');
    expectSigned(seen[0]!, DEALER);
  });

  test('sends through the fetch it is given', async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls.push(input instanceof Request ? input.url : String(input));
      return globalThis.fetch(input, init);
    };
    capture('get', `${DEALER_URL}/settings`, settingsAnswer);
    await new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch }).settings.get();
    expect(calls).toEqual([`${DEALER_URL}/settings`]);
  });

  test('refuses a plain-http base URL that is not loopback', () => {
    expect(() => new DealerClient({ baseUrl: 'http://pay.example.com', ...DEALER })).toThrow(PayorchError);
  });

  test('stops a call at its per-call timeout with TimeoutError', async () => {
    server.use(http.get(`${DEALER_URL}/eibans`, () => delay('infinite')));
    const error = await dealer.eibans.list({ timeout: 50 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
  });
});

// Spec 7 does not show dealer authentication failures; they are read as the provider's (7.1).
describe('dealer authentication failures', () => {
  test.each<[string, number, unknown, typeof AuthenticationError | typeof PermissionDeniedError, AuthFailureReason]>([
    ['Invalid hash in error', 401, { success: false, error: 'Invalid hash', message: 'Hash doğrulanamadı' }, AuthenticationError, 'invalid_hash'],
    ['Invalid API key in message', 401, { success: false, message: 'Invalid API key' }, AuthenticationError, 'invalid_api_key'],
    ['Request timestamp expired without a Date header', 401, { success: false, error: 'Request timestamp expired' }, AuthenticationError, 'timestamp_expired'],
    ['Missing required headers', 401, { success: false, error: 'Missing required headers' }, AuthenticationError, 'missing_headers'],
    ['a text the spec does not list', 401, { success: false, message: 'Unauthenticated.' }, AuthenticationError, 'unknown'],
    ['a body that is not JSON', 401, 'Unauthorized', AuthenticationError, 'unknown'],
    ['an inactive account', 403, { success: false, error: 'Dealer account is inactive' }, PermissionDeniedError, 'provider_inactive'],
    ['Invalid API key under HTTP 200', 200, { success: false, error: 'Invalid API key' }, AuthenticationError, 'invalid_api_key'],
  ])('maps %s (HTTP %i) to the 7.1 error class and reason', async (_label, status, body, errorClass, reason) => {
    capture('get', `${DEALER_URL}/settings`, () => (typeof body === 'string' ? new Response(body, { status }) : Response.json(body, { status })));
    const error = await dealer.settings.get().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as AuthenticationError).reason).toBe(reason);
    expect((error as AuthenticationError).status).toBe(status);
    expect((error as AuthenticationError).body).toEqual(body);
  });

  test('sends a refused transfer once and puts neither the secret nor the hash into the error', async () => {
    const seen = capture('post', `${DEALER_URL}/send-money`, () => Response.json({ success: false, error: 'Invalid hash' }, { status: 401 }));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 2 });
    const error = await retrying.transfers
      .send({ wallet_id: 'WLT-A1', recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 50 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(seen).toHaveLength(1);
    const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack ?? ''}`;
    expect(text).not.toContain(DEALER.secretKey);
    expect(text).not.toContain(seen[0]!.headers.get('x-hash'));
  });
});
