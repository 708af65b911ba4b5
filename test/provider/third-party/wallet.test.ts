import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../../src/index.js';
import { exampleAnswer } from '../../helpers/api-calls.js';
import { expectProviderRequest } from '../../helpers/provider.js';
import { BASE_URL, PROVIDER, capture } from '../../helpers/wire.js';
import { useMsw } from '../../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
// Spec 5.1 rule 6: headers and hash of wallet deposits and withdrawals are not shown; the credential hash is assumed.
const signing = { hash: 'credential', credentialKey: PROVIDER.credentialKey } as const;
const URL_OF = (path: string) => `${BASE_URL}/api/provider/third-party/wallet${path}`;

describe('provider.thirdParty.wallet.startDeposit', () => {
  // Spec 4.12: no site, customer or expires_at in wallet deposits.
  const answer = {
    success: true,
    message: 'Deposit started',
    data: {
      tracking_code: 'TPWD-s5Gm8-1763812000',
      payment_url: 'https://pay.example/tp/TPWD-s5Gm8-1763812000',
      type: 'third_party_wallet_deposit',
      payment_method: 'wallet',
      amount: 75,
      status: 'showing',
    },
  };

  // Spec 4.1: the wallet deposit body is not shown; the bank deposit's fields are assumed.
  test('POSTs the bank-shaped body to /start-deposit with the credential hash and returns the record', async () => {
    const seen = capture('post', URL_OF('/start-deposit'), answer);
    const result = await provider.thirdParty.wallet.startDeposit({ ...customer, amount: 75 });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/third-party/wallet/start-deposit',
      signing,
      body: '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":75}',
    });
    expect(result).toEqual(answer);
  });
});

describe('provider.thirdParty.wallet.gateways.list', () => {
  // The registry's example: what the service answers, with the spec's types.
  const answer = exampleAnswer('provider.thirdParty.wallet.gateways.list');

  test('POSTs no body to /gateways with the basic hash and returns the gateways', async () => {
    const seen = capture('post', URL_OF('/gateways'), answer);
    const result = await provider.thirdParty.wallet.gateways.list();

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, { path: '/third-party/wallet/gateways', signing: { hash: 'basic' }, body: '' });
    expect(result).toEqual(answer);
  });
});

describe('provider.thirdParty.wallet.startWithdrawal', () => {
  const answer = {
    success: true,
    message: 'Withdrawal started',
    data: { tracking_code: 'TPWW-n6Pc4-1763812000', type: 'third_party_wallet_withdrawal', payment_method: 'wallet', amount: 75, status: 'showing' },
  };
  const body = { ...customer, amount: 75, gateway_id: 9, wallet_number: '1234567890' };

  test('POSTs the exact body to /start-withdrawal with the credential hash and returns the record', async () => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    const result = await provider.thirdParty.wallet.startWithdrawal(body);

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/third-party/wallet/start-withdrawal',
      signing,
      body: '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":75,"gateway_id":9,"wallet_number":"1234567890"}',
    });
    expect(result).toEqual(answer);
  });

  test('sends account_holder for a gateway that requires it', async () => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    await provider.thirdParty.wallet.startWithdrawal({ ...body, gateway_id: 10, account_holder: 'Ada Yılmaz' });
    expect(seen[0]!.body).toBe(
      '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":75,"gateway_id":10,"wallet_number":"1234567890","account_holder":"Ada Yılmaz"}',
    );
  });

  test.each([
    ['a missing wallet_number', { wallet_number: undefined }, [['wallet_number', 'invalid_type']]],
    ['a blank account_holder', { account_holder: '' }, [['account_holder', 'invalid_format']]],
    ['an amount of 0', { amount: 0 }, [['amount', 'too_small']]],
    ['a gateway_id that is not a number', { gateway_id: null }, [['gateway_id', 'invalid_type']]],
  ])('refuses %s and sends nothing', async (_label, change, issues) => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    // @ts-expect-error some cases break the parameter type on purpose
    const error = await provider.thirdParty.wallet.startWithdrawal({ ...body, ...change }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual(issues);
    expect(seen).toHaveLength(0);
  });
});
