import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError, UnprocessableEntityError } from '../../src/index.js';
import { BASE_URL, PROVIDER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };

const depositAnswer = {
  success: true,
  message: 'Deposit started',
  data: {
    tracking_code: 'MAN-a8Xk29Qp-1763812000',
    payment_url: 'https://pay.example/track/MAN-a8Xk29Qp-1763812000',
    site: { id: 7, name: 'Shop' },
    customer,
    amount: 250,
    status: 'showing',
    expires_at: '2026-11-22 10:30:00',
    created_at: '2026-11-22 10:00:00',
    extra_field_from_a_newer_server: 'kept',
  },
  timestamp: '2026-11-22 10:00:00',
};

describe('provider.manual.startDeposit', () => {
  test('POSTs the exact body to /api/provider/start-manual-deposit with the credential hash', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-manual-deposit`, depositAnswer);
    const result = await provider.manual.startDeposit({ ...customer, amount: 250 }, { credentialKey: PROVIDER.credentialKey });

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.search).toBe('');
    expectSigned(request, PROVIDER, PROVIDER.credentialKey);
    expect(request.headers.get('x-credential-key')).toBe(PROVIDER.credentialKey);
    expect(request.headers.has('x-key')).toBe(false);
    expect(request.body).toBe('{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}');
    expect(result).toEqual(depositAnswer);
  });

  test('sends the keys in schema order whatever order the caller used', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-manual-deposit`, depositAnswer);
    await provider.manual.startDeposit({ amount: 250, user_id: 'u-1', username: 'ada', fullname: 'Ada Yılmaz' }, { credentialKey: 'k' });
    expect(seen[0]!.body).toBe('{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}');
  });

  test('uses the client credential key when the call names none', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-manual-deposit`, depositAnswer);
    await new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER }).manual.startDeposit({ ...customer, amount: 1 });
    expect(seen[0]!.headers.get('x-credential-key')).toBe(PROVIDER.credentialKey);
  });

  test('refuses an amount below 1 and sends nothing', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-manual-deposit`, depositAnswer);
    const error = await provider.manual.startDeposit({ ...customer, amount: 0.5 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be at least 1' }]);
    expect(seen).toHaveLength(0);
  });

  test('refuses a missing field and a field the spec does not have', async () => {
    const error = await provider.manual
      // @ts-expect-error user_id is missing and coupon is unknown
      .startDeposit({ fullname: 'Ada', username: 'ada', amount: 10, coupon: 'X' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([
      ['user_id', 'invalid_type'],
      ['coupon', 'unrecognized_keys'],
    ]);
  });

  test('fails before sending when no credential key is known', async () => {
    const bare = new ProviderClient({ baseUrl: BASE_URL, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey });
    const error = await bare.manual.startDeposit({ ...customer, amount: 10 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]!.field).toBe('credentialKey');
  });
});

describe('provider.manual.startWithdrawal', () => {
  const iban = 'TR330006100519786457841326';
  const answer = {
    success: true,
    message: 'Withdrawal created',
    data: { tracking_code: 'WIT-Q2w9-1763812000', site: { id: 7, name: 'Shop' }, customer, iban, amount: 100, status: 'pending', created_at: '2026-11-22 10:00:00' },
    timestamp: '2026-11-22 10:00:00',
  };

  test('POSTs the exact body to /api/provider/start-manual-withdraw and returns the pending record', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-manual-withdraw`, answer);
    const result = await provider.withSite(PROVIDER.credentialKey).manual.startWithdrawal({ ...customer, iban, amount: 100 });
    expectSigned(seen[0]!, PROVIDER, PROVIDER.credentialKey);
    expect(seen[0]!.body).toBe(`{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":100,"iban":"${iban}"}`);
    expect(result.data.status).toBe('pending');
    expect(result.data.iban).toBe(iban);
  });

  test.each([
    ['14 characters', 'TR330006100519'],
    ['35 characters', 'TR3300061005197864578413261234567890'],
  ])('refuses an IBAN of %s', async (_label, badIban) => {
    const error = await provider.manual
      .startWithdrawal({ ...customer, iban: badIban, amount: 100 }, { credentialKey: 'k' })
      .catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'iban', rule: expect.stringMatching(/too_(small|big)/), message: 'must be 15 to 34 characters' }]);
  });

  test('turns the service validation error of spec 7.3 into UnprocessableEntityError with its messages', async () => {
    const body = { success: false, error: 'Doğrulama hatası', messages: ['Alıcı IBAN zorunludur', 'Tutar zorunludur'] };
    capture('post', `${BASE_URL}/api/provider/start-manual-withdraw`, () => Response.json(body, { status: 422 }));
    const error = await provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }, { credentialKey: 'k' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const validation = error as UnprocessableEntityError;
    expect(validation.status).toBe(422);
    expect(validation.error).toBe('Doğrulama hatası');
    expect(validation.messages).toEqual(body.messages);
    expect(validation.body).toEqual(body);
  });
});
