import { describe, expect, test } from 'vitest';
import { APIError, DealerClient, RequestValidationError } from '../../src/index.js';
import { DEALER_URL, IBAN, manualDepositAnswer, manualWithdrawAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });

describe('dealer.manualIban.startDeposit', () => {
  test('POSTs the exact body, with the wire name userid, to /api/dealer/manual-iban/deposit', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/deposit`, manualDepositAnswer);
    const result = await dealer.manualIban.startDeposit({ amount: 1500, fullname: 'Ada Yılmaz', userid: 'u-1', username: 'ada' });

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.href).toBe(`${DEALER_URL}/manual-iban/deposit`);
    expectSigned(request, DEALER);
    expect(request.body).toBe('{"username":"ada","userid":"u-1","fullname":"Ada Yılmaz","amount":1500}');
    expect(result).toEqual(manualDepositAnswer);
  });

  test('sends a decimal amount as a JSON number', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/deposit`, manualDepositAnswer);
    await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 1500.75 });
    expect(seen[0]!.body).toBe('{"username":"ada","userid":"u-1","fullname":"Ada Yılmaz","amount":1500.75}');
  });

  test('hands the offered amount over as a number when the service sends a decimal string', async () => {
    capture('post', `${DEALER_URL}/manual-iban/deposit`, { ...manualDepositAnswer, data: { ...manualDepositAnswer.data, amount: '1500.00' } });
    const { data } = await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 1500 });
    expect(data.amount).toBe(1500);
    expect(data.formatted_iban).toBe('TR33 0006 1005 1978 6457 8413 26');
  });

  test('refuses user_id in place of userid, and sends nothing', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/deposit`, manualDepositAnswer);
    const error = await dealer.manualIban
      // @ts-expect-error the dealer API spells it userid
      .startDeposit({ username: 'ada', user_id: 'u-1', fullname: 'Ada Yılmaz', amount: 1500 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([
      ['userid', 'invalid_type'],
      ['user_id', 'unrecognized_keys'],
    ]);
    expect(seen).toHaveLength(0);
  });

  test.each([
    ['zero', 0],
    ['a negative amount', -5],
  ])('refuses %s: the minimum is not shown, so any positive amount is sent', async (_label, amount) => {
    const error = await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be greater than 0' }]);
  });

  test('sends an amount as small as 0.01, leaving the unshown minimum to the service', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/deposit`, manualDepositAnswer);
    await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 0.01 });
    expect(seen).toHaveLength(1);
  });

  test('is sent once only when the service answers 503: an IBAN may have been reserved', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/deposit`, () => Response.json({ success: false }, { status: 503 }));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 2 });
    const error = await retrying.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 10 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(seen).toHaveLength(1);
  });

  test('refuses an amount given as a string', async () => {
    const error = await dealer.manualIban
      // @ts-expect-error amounts are JSON numbers in requests (spec 4.1)
      .startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: '1500.00' })
      .catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([['amount', 'invalid_type']]);
  });
});

describe('dealer.manualIban.startWithdrawal', () => {
  const body = { username: 'ada', userid: 'u-1', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: IBAN };

  test('POSTs the exact body to /api/dealer/manual-iban/withdraw and returns the pending request', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/withdraw`, manualWithdrawAnswer);
    const result = await dealer.manualIban.startWithdrawal({ recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 750, userid: 'u-1', username: 'ada' });

    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.href).toBe(`${DEALER_URL}/manual-iban/withdraw`);
    expectSigned(request, DEALER);
    expect(request.body).toBe(`{"username":"ada","userid":"u-1","amount":750,"recipient_name":"Ada Yılmaz","recipient_iban":"${IBAN}"}`);
    expect(result).toEqual(manualWithdrawAnswer);
    expect(result.data.status).toBe('pending');
  });

  test.each([
    ['14 characters', 'TR330006100519'],
    ['35 characters', 'TR3300061005197864578413261234567890'],
  ])('refuses a recipient IBAN of %s and sends nothing', async (_label, recipientIban) => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/withdraw`, manualWithdrawAnswer);
    const error = await dealer.manualIban.startWithdrawal({ ...body, recipient_iban: recipientIban }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([
      { field: 'recipient_iban', rule: expect.stringMatching(/too_(small|big)/), message: 'must be 15 to 34 characters' },
    ]);
    expect(seen).toHaveLength(0);
  });

  test('is sent once only when the service answers 503: the withdrawal may have been recorded', async () => {
    const seen = capture('post', `${DEALER_URL}/manual-iban/withdraw`, () => Response.json({ success: false }, { status: 503 }));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 2 });
    const error = await retrying.manualIban.startWithdrawal(body).catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  test('refuses a blank recipient name', async () => {
    const error = await dealer.manualIban.startWithdrawal({ ...body, recipient_name: '  ' }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'recipient_name', rule: 'invalid_format', message: 'is required' }]);
  });
});
