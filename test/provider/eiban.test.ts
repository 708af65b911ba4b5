import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../src/index.js';
import { expectProviderRequest } from '../helpers/provider.js';
import { BASE_URL, PROVIDER, capture } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';
const signing = { hash: 'credential', credentialKey: PROVIDER.credentialKey } as const;

describe('provider.eiban.startDeposit', () => {
  const answer = {
    success: true,
    message: 'E-IBAN deposit started',
    data: {
      tracking_code: 'EIBAN-p3Lx8-1763812000',
      payment_url: 'https://pay.example/eiban/EIBAN-p3Lx8-1763812000',
      site: { id: 7, name: 'Shop' },
      customer,
      amount: 500,
      status: 'showing',
      expires_at: '2026-11-22 10:30:00',
    },
  };

  test('POSTs the exact body to /api/provider/start-eiban-deposit with the credential hash and returns the record', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-eiban-deposit`, answer);
    const result = await provider.eiban.startDeposit({ user_id: 'u-1', username: 'ada', fullname: 'Ada Yılmaz', amount: 500 });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/start-eiban-deposit',
      signing,
      body: '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":500}',
    });
    expect(result).toEqual(answer);
  });

  test('sends a decimal amount as the JSON number it is', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-eiban-deposit`, answer);
    await provider.eiban.startDeposit({ ...customer, amount: 1.5 });
    expect(seen[0]!.body).toBe('{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":1.5}');
  });

  test('refuses an amount below 1 and sends nothing', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-eiban-deposit`, answer);
    const error = await provider.eiban.startDeposit({ ...customer, amount: 0 }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be at least 1' }]);
    expect(seen).toHaveLength(0);
  });
});

describe('provider.eiban.startWithdrawal', () => {
  const answer = {
    success: true,
    message: 'E-IBAN withdrawal created',
    data: { tracking_code: 'EIBAN-WIT-r8Tq2-1763812000', site: { id: 7, name: 'Shop' }, customer, iban, amount: 100, status: 'pending' },
  };

  test('POSTs the exact body to /api/provider/start-eiban-withdraw with the credential hash and returns the pending record', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-eiban-withdraw`, answer);
    const result = await provider.eiban.startWithdrawal({ ...customer, iban, amount: 100 });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/start-eiban-withdraw',
      signing,
      body: `{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":100,"iban":"${iban}"}`,
    });
    expect(result).toEqual(answer);
    expect(result.data.status).toBe('pending');
  });

  // Spec 4.7 gives no length for the E-IBAN recipient IBAN; the manual rule (15 to 34) is applied.
  test.each([
    ['14 characters', 'TR330006100519', 'too_small'],
    ['35 characters', 'TR3300061005197864578413261234567890', 'too_big'],
  ])('refuses an IBAN of %s and sends nothing', async (_label, badIban, rule) => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-eiban-withdraw`, answer);
    const error = await provider.eiban.startWithdrawal({ ...customer, iban: badIban, amount: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'iban', rule, message: 'must be 15 to 34 characters' }]);
    expect(seen).toHaveLength(0);
  });

  test.each([
    ['15 characters', 'NO9386011117947'],
    ['34 characters', 'MT84MALT011000012345MTLCAST001S123'],
  ])('accepts an IBAN of %s', async (_label, edgeIban) => {
    const seen = capture('post', `${BASE_URL}/api/provider/start-eiban-withdraw`, answer);
    await provider.eiban.startWithdrawal({ ...customer, iban: edgeIban, amount: 100 });
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ iban: edgeIban });
  });
});
