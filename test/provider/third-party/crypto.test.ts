import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../../src/index.js';
import { exampleAnswer } from '../../helpers/api-calls.js';
import { expectProviderRequest } from '../../helpers/provider.js';
import { BASE_URL, PROVIDER, capture } from '../../helpers/wire.js';
import { useMsw } from '../../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const wallet_address = 'TQ5NuDqZ5yPqVuWJ9W5jH8oHr1Ue3GcKsT';
// Spec 5.1 rule 6: headers and hash of crypto deposits and withdrawals are not shown; the credential hash is assumed.
const signing = { hash: 'credential', credentialKey: PROVIDER.credentialKey } as const;
const URL_OF = (path: string) => `${BASE_URL}/api/provider/third-party/crypto${path}`;

describe('provider.thirdParty.crypto.startDeposit', () => {
  // Spec 4.11: no site or customer in crypto records.
  const answer = {
    success: true,
    message: 'Deposit started',
    data: {
      tracking_code: 'TPCD-v9Bq1-1763812000',
      payment_url: 'https://pay.example/tp/TPCD-v9Bq1-1763812000',
      type: 'third_party_crypto_deposit',
      payment_method: 'crypto',
      amount: 1000,
      status: 'showing',
      expires_at: '2026-11-22 10:30:00',
    },
  };

  // Spec 4.1: the crypto deposit body is not shown; the bank deposit's fields are assumed.
  test('POSTs the bank-shaped body to /start-deposit with the credential hash and returns the record', async () => {
    const seen = capture('post', URL_OF('/start-deposit'), answer);
    const result = await provider.thirdParty.crypto.startDeposit({ ...customer, amount: 1000 });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/third-party/crypto/start-deposit',
      signing,
      body: '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":1000}',
    });
    expect(result).toEqual(answer);
  });

  // Spec 8: no minimum is stated for crypto; any positive amount goes to the service.
  test('sends an amount below 1 and refuses 0', async () => {
    const seen = capture('post', URL_OF('/start-deposit'), answer);
    await provider.thirdParty.crypto.startDeposit({ ...customer, amount: 0.25 });
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ amount: 0.25 });

    const error = await provider.thirdParty.crypto.startDeposit({ ...customer, amount: 0 }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be greater than 0' }]);
    expect(seen).toHaveLength(1);
  });
});

describe('provider.thirdParty.crypto.gateways.list', () => {
  // The registry's example: what the service answers, with the spec's types.
  const answer = exampleAnswer('provider.thirdParty.crypto.gateways.list');

  test('POSTs no body to /gateways with the basic hash and returns the gateways with their coins', async () => {
    const seen = capture('post', URL_OF('/gateways'), answer);
    const result = await provider.thirdParty.crypto.gateways.list();

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, { path: '/third-party/crypto/gateways', signing: { hash: 'basic' }, body: '' });
    expect(result).toEqual(answer);
    expect(result.data.gateways[0]!.supported_crypto_types).toContain('USDT (TRC20)');
  });
});

describe('provider.thirdParty.crypto.startWithdrawal', () => {
  const answer = {
    success: true,
    message: 'Withdrawal started',
    data: { tracking_code: 'TPCW-k1Dz6-1763812000', type: 'third_party_crypto_withdrawal', payment_method: 'crypto', amount: 1000, status: 'showing' },
  };
  const body = { ...customer, amount: 1000, gateway_id: 4, crypto_type: 'USDT (TRC20)', wallet_address };

  test('POSTs the exact body to /start-withdrawal with the credential hash and returns the record', async () => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    const result = await provider.thirdParty.crypto.startWithdrawal(body);

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/third-party/crypto/start-withdrawal',
      signing,
      body: `{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":1000,"gateway_id":4,"crypto_type":"USDT (TRC20)","wallet_address":"${wallet_address}"}`,
    });
    expect(result).toEqual(answer);
  });

  test.each([
    ['a missing crypto_type', { crypto_type: undefined }, [['crypto_type', 'invalid_type']]],
    ['a blank wallet_address', { wallet_address: '  ' }, [['wallet_address', 'invalid_format']]],
    ['a negative gateway_id', { gateway_id: -4 }, [['gateway_id', 'too_small']]],
    ['an iban, which crypto does not take', { iban: 'TR330006100519786457841326' }, [['iban', 'unrecognized_keys']]],
  ])('refuses %s and sends nothing', async (_label, change, issues) => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    // @ts-expect-error some cases break the parameter type on purpose
    const error = await provider.thirdParty.crypto.startWithdrawal({ ...body, ...change }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual(issues);
    expect(seen).toHaveLength(0);
  });
});
