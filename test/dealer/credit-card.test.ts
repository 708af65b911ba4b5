import { describe, expect, test } from 'vitest';
import { APIError, ConnectionError, DealerClient } from '../../src/index.js';
import type { RequestValidationError } from '../../src/index.js';
import { DEALER_URL, cardPaymentAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });
const body = { username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.com', phone: '+905551112233', amount: 450 };

describe('dealer.creditCard.createPayment', () => {
  test('POSTs the exact body to /api/dealer/credit-card/payment and returns the payment page', async () => {
    const seen = capture('post', `${DEALER_URL}/credit-card/payment`, cardPaymentAnswer);
    const result = await dealer.creditCard.createPayment({ ...body, description: 'Sipariş 42' });

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.href).toBe(`${DEALER_URL}/credit-card/payment`);
    expectSigned(request, DEALER);
    expect(request.headers.has('x-credential-key')).toBe(false);
    expect(request.body).toBe(
      '{"username":"ada","firstname":"Ada","lastname":"Yılmaz","email":"ada@example.com","phone":"+905551112233","amount":450,"description":"Sipariş 42"}',
    );
    expect(result).toEqual(cardPaymentAnswer);
  });

  test('hands amount over as a number and order_id as a string whatever the service sends', async () => {
    capture('post', `${DEALER_URL}/credit-card/payment`, { ...cardPaymentAnswer, data: { ...cardPaymentAnswer.data, amount: '450.00', order_id: 99812 } });
    const { data } = await dealer.creditCard.createPayment(body);
    expect(data.amount).toBe(450);
    expect(data.order_id).toBe('99812');
  });

  test('sends exactly 200, the minimum, and refuses 199.99 before sending', async () => {
    const seen = capture('post', `${DEALER_URL}/credit-card/payment`, cardPaymentAnswer);
    await dealer.creditCard.createPayment({ ...body, amount: 200 });
    const error = await dealer.creditCard.createPayment({ ...body, amount: 199.99 }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be at least 200' }]);
    expect(seen).toHaveLength(1);
  });

  test('refuses a missing email and phone: both are required for dealers', async () => {
    const error = await dealer.creditCard
      // @ts-expect-error email and phone are required
      .createPayment({ username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', amount: 450 })
      .catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([
      ['email', 'invalid_type'],
      ['phone', 'invalid_type'],
    ]);
  });

  test('surfaces the card error body of spec 7.2 as an APIError with its message', async () => {
    const answer = { success: false, message: 'Credit card payment is not enabled for this dealer' };
    capture('post', `${DEALER_URL}/credit-card/payment`, () => Response.json(answer, { status: 403 }));
    const error = await dealer.creditCard.createPayment(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('Credit card payment is not enabled for this dealer');
    expect((error as APIError).body).toEqual(answer);
  });

  test('is not sent again after a dropped connection: the payment may exist', async () => {
    const seen = capture('post', `${DEALER_URL}/credit-card/payment`, () => Response.error());
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 2 });
    const error = await retrying.creditCard.createPayment(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).refused).toBe(false);
    expect(seen).toHaveLength(1);
  });
});
