import { describe, expect, test } from 'vitest';
import { DealerClient, ResponseValidationError } from '../../src/index.js';
import { DEALER_URL, eibansAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });

describe('dealer.eibans.list', () => {
  test('GETs /api/dealer/eibans with no query and no body, and returns the accounts', async () => {
    const seen = capture('get', `${DEALER_URL}/eibans`, eibansAnswer);
    const result = await dealer.eibans.list();

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('GET');
    expect(request.url.href).toBe(`${DEALER_URL}/eibans`);
    expectSigned(request, DEALER);
    expect(request.body).toBe('');
    expect(result).toEqual(eibansAnswer);
    expect(result.eibans.map((account) => [account.wallet_id, account.available_balance])).toEqual([
      ['WLT-A1', '12500.50'],
      ['WLT-B2', '0.00'],
    ]);
  });

  test('hands balances over as decimal strings when the service sends numbers, and ids as numbers', async () => {
    const account = { ...eibansAnswer.eibans[0]!, id: '1', balance: 15000, available_balance: 12500.5 };
    capture('get', `${DEALER_URL}/eibans`, { ...eibansAnswer, total_eibans: '1', eibans: [account] });
    const { eibans, total_eibans } = await dealer.eibans.list();
    expect(total_eibans).toBe(1);
    expect(eibans[0]).toMatchObject({ id: 1, balance: '15000', available_balance: '12500.5' });
  });

  test('fails with ResponseValidationError naming the field when a balance is not numeric', async () => {
    const account = { ...eibansAnswer.eibans[0]!, balance: '15.000,00' };
    capture('get', `${DEALER_URL}/eibans`, { ...eibansAnswer, eibans: [account] });
    const error = await dealer.eibans.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.field)).toEqual(['eibans.0.balance']);
  });

  test('is retried after a 503, since reading twice moves no money', async () => {
    const seen = capture('get', `${DEALER_URL}/eibans`, (attempt) => (attempt === 1 ? Response.json({ success: false }, { status: 503 }) : eibansAnswer));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 1 });
    await expect(retrying.eibans.list()).resolves.toEqual(eibansAnswer);
    expect(seen).toHaveLength(2);
  });
});
