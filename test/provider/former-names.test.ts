/* eslint-disable @typescript-eslint/no-deprecated -- the deprecated names and their identity are what this file tests */
import { describe, expect, test } from 'vitest';
import type { ProviderManual } from '../../src/index.js';
import { CardPaymentStatusParams, CardStatusParams, EibanWithdrawParams, EibanWithdrawalParams, ManualWithdrawParams, ManualWithdrawalParams, ProviderClient, RequestValidationError } from '../../src/index.js';
import { BASE_URL, PROVIDER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, credentialKey: PROVIDER.credentialKey, maxRetries: 0 });
/** What both resources share under the two names. */
type Withdrawals = Pick<ProviderManual, 'startWithdraw' | 'startWithdrawal'>;
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';
const answer = {
  success: true,
  data: { tracking_code: 'WIT-Q2w9-1763812000', site: { id: 7, name: 'Shop' }, customer, iban, amount: 100, status: 'pending', created_at: '2026-11-22 10:00:00' },
  timestamp: '2026-11-22 10:00:00',
};

// The names deprecated in 0.2 and removed in 0.3 (CHANGELOG.md): until then each is the new one.
describe.each([
  { former: 'manual.startWithdraw', current: 'manual.startWithdrawal', path: '/start-manual-withdraw', resource: (client: ProviderClient): Withdrawals => client.manual },
  { former: 'eiban.startWithdraw', current: 'eiban.startWithdrawal', path: '/start-eiban-withdraw', resource: (client: ProviderClient): Withdrawals => client.eiban },
])('provider.$former', ({ current, path, resource }) => {
  test('is the same function as the new name, on every client', () => {
    expect(resource(provider).startWithdraw).toBe(resource(provider).startWithdrawal);
    const site = provider.withSite('another-site');
    expect(resource(site).startWithdraw).toBe(resource(site).startWithdrawal);
  });

  test('still sends the signed request and returns the record', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider${path}`, answer);
    const result = await resource(provider).startWithdraw({ ...customer, iban, amount: 100 });
    expect(seen).toHaveLength(1);
    expectSigned(seen[0]!, PROVIDER, PROVIDER.credentialKey);
    expect(seen[0]!.body).toBe(`{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":100,"iban":"${iban}"}`);
    expect(result.data.status).toBe('pending');
  });

  test('names the call by its new name in a refusal', async () => {
    const error = await resource(provider).startWithdraw({ ...customer, iban: 'TR12', amount: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).message).toBe(`Invalid request to ${current}: iban: must be 15 to 34 characters`);
  });
});

test('the former params schemas are the new ones', () => {
  expect(ManualWithdrawParams).toBe(ManualWithdrawalParams);
  expect(EibanWithdrawParams).toBe(EibanWithdrawalParams);
  expect(CardStatusParams).toBe(CardPaymentStatusParams);
});
