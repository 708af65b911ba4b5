import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../src/index.js';
import { expectProviderRequest } from '../helpers/provider.js';
import { BASE_URL, PROVIDER, capture } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const payer = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz' };
const PAYMENT_URL = `${BASE_URL}/api/provider/credit-card/payment`;
const STATUS_URL = `${BASE_URL}/api/provider/credit-card/status`;

describe('provider.creditCard.createPayment', () => {
  const answer = {
    success: true,
    message: 'Payment created',
    data: {
      tracking_code: 'CC-m4Zt7-1763812000',
      payment_url: 'https://pay.example/cc/CC-m4Zt7-1763812000',
      order_id: 'ORD-99812',
      amount: 150,
      currency: 'TRY',
    },
  };

  test('POSTs the body with the client credential key in credential_key, signed with the basic hash and no X-Credential-Key', async () => {
    const seen = capture('post', PAYMENT_URL, answer);
    const result = await provider.creditCard.createPayment({ ...payer, amount: 150 });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/credit-card/payment',
      signing: { hash: 'basic' },
      body: `{"credential_key":"${PROVIDER.credentialKey}","username":"ada","user_id":"u-1","firstname":"Ada","lastname":"Yılmaz","amount":150}`,
    });
    expect(result).toEqual(answer);
  });

  test('sends the optional fields in the order of spec 4.8', async () => {
    const seen = capture('post', PAYMENT_URL, answer);
    await provider.creditCard.createPayment({ description: 'Order 42', phone: '+905551112233', email: 'ada@example.com', amount: 150, ...payer });
    expect(seen[0]!.body).toBe(
      `{"credential_key":"${PROVIDER.credentialKey}","username":"ada","user_id":"u-1","firstname":"Ada","lastname":"Yılmaz",` +
        '"email":"ada@example.com","phone":"+905551112233","amount":150,"description":"Order 42"}',
    );
  });

  test('takes the per-call credentialKey over the client one', async () => {
    const seen = capture('post', PAYMENT_URL, answer);
    await provider.creditCard.createPayment({ ...payer, amount: 150 }, { credentialKey: 'site_cred_other' });
    expectProviderRequest(seen[0]!, {
      path: '/credit-card/payment',
      signing: { hash: 'basic' },
      body: '{"credential_key":"site_cred_other","username":"ada","user_id":"u-1","firstname":"Ada","lastname":"Yılmaz","amount":150}',
    });
  });

  test('keeps a credential_key given in the body over the per-call and client ones', async () => {
    const seen = capture('post', PAYMENT_URL, answer);
    await provider.creditCard.createPayment({ credential_key: 'site_cred_body', ...payer, amount: 150 }, { credentialKey: 'site_cred_other' });
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ credential_key: 'site_cred_body' });
    expect(seen[0]!.headers.has('x-credential-key')).toBe(false);
  });

  test('uses the site of withSite()', async () => {
    const seen = capture('post', PAYMENT_URL, answer);
    await new ProviderClient({ baseUrl: BASE_URL, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey })
      .withSite('site_cred_shop')
      .creditCard.createPayment({ ...payer, amount: 150 });
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ credential_key: 'site_cred_shop' });
  });

  test('fails before sending when no credential key is known', async () => {
    const seen = capture('post', PAYMENT_URL, answer);
    const bare = new ProviderClient({ baseUrl: BASE_URL, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey });
    const error = await bare.creditCard.createPayment({ ...payer, amount: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([['credentialKey', 'required']]);
    expect(seen).toHaveLength(0);
  });

  test.each([
    ['an amount below 1', { ...payer, amount: 0.99 }, [['amount', 'too_small']]],
    ['a missing lastname', { username: 'ada', user_id: 'u-1', firstname: 'Ada', amount: 150 }, [['lastname', 'invalid_type']]],
    ['a blank firstname', { ...payer, firstname: '', amount: 150 }, [['firstname', 'invalid_format']]],
    ['a field the spec does not have', { ...payer, amount: 150, currency: 'TRY' }, [['currency', 'unrecognized_keys']]],
  ])('refuses %s and sends nothing', async (_label, params, issues) => {
    const seen = capture('post', PAYMENT_URL, answer);
    // @ts-expect-error some cases break the parameter type on purpose
    const error = await provider.creditCard.createPayment(params).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual(issues);
    expect(seen).toHaveLength(0);
  });

  test('accepts a created payment without order_id and currency', async () => {
    const lean = { success: true, data: { tracking_code: 'CC-m4Zt7-1763812000', payment_url: 'https://pay.example/cc/1', amount: 150 } };
    capture('post', PAYMENT_URL, lean);
    await expect(provider.creditCard.createPayment({ ...payer, amount: 150 })).resolves.toEqual(lean);
  });

  test('keeps a numeric order id as text', async () => {
    capture('post', PAYMENT_URL, { ...answer, data: { ...answer.data, order_id: 99812 } });
    const result = await provider.creditCard.createPayment({ ...payer, amount: 150 });
    expect(result.data.order_id).toBe('99812');
  });
});

describe('provider.creditCard.getStatus', () => {
  const answer = {
    success: true,
    data: {
      tracking_code: 'CC-m4Zt7-1763812000',
      order_id: 'ORD-99812',
      status: 'success',
      amount: 150,
      currency: 'TRY',
      username: 'ada',
      user_id: 'u-1',
      created_at: '2026-11-22T10:00:00+00:00',
      updated_at: '2026-11-22T10:02:13+00:00',
    },
  };

  // Spec 5.1 rule 5: the hash of the status endpoint is not shown; the basic hash is assumed.
  test('POSTs the tracking code to /api/provider/credit-card/status with the basic hash and returns the status', async () => {
    const seen = capture('post', STATUS_URL, answer);
    const result = await provider.creditCard.getStatus({ tracking_code: 'CC-m4Zt7-1763812000' });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, { path: '/credit-card/status', signing: { hash: 'basic' }, body: '{"tracking_code":"CC-m4Zt7-1763812000"}' });
    expect(result).toEqual(answer);
  });

  test.each(['pending', 'failed', 'cancelled', 'refunded', 'partially_refunded'])('accepts the status %s, a new one included', async (status) => {
    capture('post', STATUS_URL, { ...answer, data: { ...answer.data, status } });
    const result = await provider.creditCard.getStatus({ tracking_code: 'CC-m4Zt7-1763812000' });
    expect(result.data.status).toBe(status);
  });

  test('refuses a missing tracking code and sends nothing', async () => {
    const seen = capture('post', STATUS_URL, answer);
    // @ts-expect-error tracking_code is required
    const error = await provider.creditCard.getStatus({}).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([['tracking_code', 'invalid_type']]);
    expect(seen).toHaveLength(0);
  });
});
