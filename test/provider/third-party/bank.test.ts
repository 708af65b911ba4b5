import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../../src/index.js';
import { expectProviderRequest } from '../../helpers/provider.js';
import { BASE_URL, PROVIDER, capture } from '../../helpers/wire.js';
import { useMsw } from '../../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';
const signing = { hash: 'credential', credentialKey: PROVIDER.credentialKey } as const;
const URL_OF = (path: string) => `${BASE_URL}/api/provider/third-party/bank${path}`;

describe('provider.thirdParty.bank.startDeposit', () => {
  const answer = {
    success: true,
    message: 'Deposit started',
    data: {
      tracking_code: 'TPBD-c7Wn3-1763812000',
      payment_url: 'https://pay.example/tp/TPBD-c7Wn3-1763812000',
      type: 'third_party_bank_deposit',
      payment_method: 'bank',
      site: { id: 7, name: 'Shop' },
      customer,
      amount: 300,
      status: 'showing',
      expires_at: '2026-11-22 10:30:00',
      created_at: '2026-11-22 10:00:00',
    },
    timestamp: '2026-11-22 10:00:00',
  };

  test('POSTs the exact body to /start-deposit with the credential hash and returns the record', async () => {
    const seen = capture('post', URL_OF('/start-deposit'), answer);
    const result = await provider.thirdParty.bank.startDeposit({ ...customer, amount: 300 });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/third-party/bank/start-deposit',
      signing,
      body: '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":300}',
    });
    expect(result).toEqual(answer);
  });

  test('refuses an amount below 1 and sends nothing', async () => {
    const seen = capture('post', URL_OF('/start-deposit'), answer);
    const error = await provider.thirdParty.bank.startDeposit({ ...customer, amount: 0.5 }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be at least 1' }]);
    expect(seen).toHaveLength(0);
  });
});

describe('provider.thirdParty.bank.gateways.list', () => {
  const answer = {
    success: true,
    data: {
      gateways: [
        {
          id: 1,
          name: 'Havale Express',
          code: 'havale_express',
          min_amount: 100,
          max_amount: 50000,
          required_fields: ['iban', 'account_holder'],
          description: 'Same-day bank transfers',
        },
      ],
      count: 1,
    },
  };

  test('POSTs no body to /gateways with the basic hash and returns the gateways', async () => {
    const seen = capture('post', URL_OF('/gateways'), answer);
    const result = await provider.thirdParty.bank.gateways.list();

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, { path: '/third-party/bank/gateways', signing: { hash: 'basic' }, body: '' });
    expect(result).toEqual(answer);
  });

  test('normalises bounds sent as numeric strings', async () => {
    const gateway = { ...answer.data.gateways[0], id: '1', min_amount: '100.00', max_amount: '50000' };
    capture('post', URL_OF('/gateways'), { success: true, data: { gateways: [gateway], count: '1' } });
    const { data } = await provider.thirdParty.bank.gateways.list();
    expect(data.gateways[0]).toMatchObject({ id: 1, min_amount: 100, max_amount: 50000 });
    expect(data.count).toBe(1);
  });
});

describe('provider.thirdParty.bank.startWithdrawal', () => {
  const answer = {
    success: true,
    message: 'Withdrawal started',
    data: {
      tracking_code: 'TPBW-h2Rk5-1763812000',
      type: 'third_party_bank_withdrawal',
      payment_method: 'bank',
      site: { id: 7, name: 'Shop' },
      customer,
      amount: 300,
      status: 'showing',
      expires_at: '2026-11-22 10:30:00',
      created_at: '2026-11-22 10:00:00',
    },
    timestamp: '2026-11-22 10:00:00',
  };

  test('POSTs the exact body to /start-withdrawal with the credential hash and returns the record', async () => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    const result = await provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 300, gateway_id: 1, iban });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, {
      path: '/third-party/bank/start-withdrawal',
      signing,
      body: `{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":300,"gateway_id":1,"iban":"${iban}"}`,
    });
    expect(result).toEqual(answer);
  });

  // Spec 2.5 names account_holder among a bank gateway's required fields; 4.10 does not list it.
  test('sends account_holder when the gateway requires it', async () => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    await provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 300, gateway_id: 1, iban, account_holder: 'Ada Yılmaz' });
    expect(seen[0]!.body).toBe(
      `{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":300,"gateway_id":1,"iban":"${iban}","account_holder":"Ada Yılmaz"}`,
    );
  });

  test('accepts a lean answer without type, payment_method and the echoed fields', async () => {
    const lean = { success: true, data: { tracking_code: 'TPBW-h2Rk5-1763812000', amount: '300.00', status: 'showing' } };
    capture('post', URL_OF('/start-withdrawal'), lean);
    const result = await provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 300, gateway_id: 1, iban });
    expect(result).toEqual({ success: true, data: { tracking_code: 'TPBW-h2Rk5-1763812000', amount: 300, status: 'showing' } });
  });

  test.each([
    ['a fractional gateway_id', { gateway_id: 1.5 }, [['gateway_id', 'invalid_type']]],
    ['a gateway_id of 0', { gateway_id: 0 }, [['gateway_id', 'too_small']]],
    ['a gateway_id sent as text', { gateway_id: '1' }, [['gateway_id', 'invalid_type']]],
    ['a short IBAN', { iban: 'TR33' }, [['iban', 'too_small']]],
    ['an amount below 1', { amount: 0.5 }, [['amount', 'too_small']]],
  ])('refuses %s and sends nothing', async (_label, change, issues) => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    const error = await provider.thirdParty.bank
      // @ts-expect-error some cases break the parameter type on purpose
      .startWithdrawal({ ...customer, amount: 300, gateway_id: 1, iban, ...change })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual(issues);
    expect(seen).toHaveLength(0);
  });

  // Spec 8: the per-gateway bounds are the service's to enforce; the SDK cannot know them without a list call.
  test('sends an amount above the gateway maximum and leaves the bound to the service', async () => {
    const seen = capture('post', URL_OF('/start-withdrawal'), answer);
    await provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 9_999_999, gateway_id: 1, iban });
    expect(seen).toHaveLength(1);
  });
});
