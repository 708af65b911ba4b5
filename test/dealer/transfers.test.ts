import { describe, expect, test } from 'vitest';
import { APIError, AuthenticationError, DealerClient, RequestValidationError } from '../../src/index.js';
import type { DealerErrorCode } from '../../src/index.js';
import { DEALER_URL, IBAN, transferAnswer, transferStatusAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });
const body = { wallet_id: 'WLT-A1', recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 250 };

describe('dealer.transfers.send', () => {
  test('POSTs the exact body to /api/dealer/send-money and returns the pending transfer', async () => {
    const seen = capture('post', `${DEALER_URL}/send-money`, transferAnswer);
    const result = await dealer.transfers.send({ description: 'Kira', amount: 250, recipient_name: 'Ada Yılmaz', recipient_iban: IBAN, wallet_id: 'WLT-A1' });

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.href).toBe(`${DEALER_URL}/send-money`);
    expectSigned(request, DEALER);
    expect(request.body).toBe(`{"wallet_id":"WLT-A1","recipient_iban":"${IBAN}","recipient_name":"Ada Yılmaz","amount":250,"description":"Kira"}`);
    expect(result).toEqual(transferAnswer);
    expect(result.transfer.amount).toBe('250.00');
  });

  test('leaves description out of the body when the caller gives none', async () => {
    const seen = capture('post', `${DEALER_URL}/send-money`, transferAnswer);
    await dealer.transfers.send(body);
    expect(seen[0]!.body).toBe(`{"wallet_id":"WLT-A1","recipient_iban":"${IBAN}","recipient_name":"Ada Yılmaz","amount":250}`);
  });

  test('sends exactly 10.00, the minimum', async () => {
    const seen = capture('post', `${DEALER_URL}/send-money`, transferAnswer);
    await dealer.transfers.send({ ...body, amount: 10 });
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ amount: 10 });
  });

  test('refuses 9.99, below the 10.00 minimum, and sends nothing', async () => {
    const seen = capture('post', `${DEALER_URL}/send-money`, transferAnswer);
    const error = await dealer.transfers.send({ ...body, amount: 9.99 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'amount', rule: 'too_small', message: 'must be at least 10' }]);
    expect(seen).toHaveLength(0);
  });

  test('refuses a short recipient IBAN and a missing wallet_id', async () => {
    // @ts-expect-error wallet_id is required
    const error = await dealer.transfers.send({ recipient_iban: 'TR12', recipient_name: 'Ada Yılmaz', amount: 250 }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([
      ['wallet_id', 'invalid_type'],
      ['recipient_iban', 'too_small'],
    ]);
  });

  test('hands the amount over as a decimal string when the service sends a number', async () => {
    capture('post', `${DEALER_URL}/send-money`, { ...transferAnswer, transfer: { ...transferAnswer.transfer, amount: 250 } });
    const { transfer } = await dealer.transfers.send(body);
    expect(transfer.amount).toBe('250');
  });

  test('is sent once only when the service answers 503: the transfer may have been made', async () => {
    const seen = capture('post', `${DEALER_URL}/send-money`, () => Response.json({ success: false, message: 'busy' }, { status: 503 }));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 2 });
    const error = await retrying.transfers.send(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  // Spec 7.4 names the codes but not the field or the HTTP status: each code is tried in each field
  // the SDK reads, under statuses a service might use.
  test.each<[DealerErrorCode, 'code' | 'error_code' | 'error', number]>([
    ['WALLET_NOT_ASSIGNED', 'error', 403],
    ['INSUFFICIENT_BALANCE', 'code', 400],
    ['INSUFFICIENT_BALANCE', 'error_code', 422],
    ['INVALID_IBAN', 'error', 400],
    ['INVALID_IBAN', 'error_code', 200],
    ['MIN_AMOUNT_ERROR', 'code', 422],
    ['MIN_AMOUNT_ERROR', 'error', 200],
  ])('surfaces %s from the %s field (HTTP %i) as an APIError with that code', async (code, field, status) => {
    const answer = { success: false, [field]: code, message: `Transfer refused: ${code}` };
    capture('post', `${DEALER_URL}/send-money`, () => Response.json(answer, { status }));
    const error = await dealer.transfers.send(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(AuthenticationError);
    const failure = error as APIError;
    expect(failure.code).toBe(code);
    expect(failure.status).toBe(status);
    expect(failure.body).toEqual(answer);
    expect(failure.message).toContain(`Transfer refused: ${code}`);
  });

  test('reads no code from an error text that is not code-shaped', async () => {
    capture('post', `${DEALER_URL}/send-money`, () => Response.json({ success: false, error: 'Insufficient balance', message: 'Bakiye yetersiz' }, { status: 400 }));
    const error = (await dealer.transfers.send(body).catch((caught: unknown) => caught)) as APIError;
    expect(error.code).toBeUndefined();
    expect(error.error).toBe('Insufficient balance');
  });
});

describe('dealer.transfers.getStatus', () => {
  test('GETs /api/dealer/transfer-status?transfer_id=... with no body and returns the transfer', async () => {
    const seen = capture('get', `${DEALER_URL}/transfer-status`, transferStatusAnswer);
    const result = await dealer.transfers.getStatus({ transfer_id: 'TRF-8fK2pQ' });

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('GET');
    expect(request.url.pathname).toBe('/api/dealer/transfer-status');
    expect(request.url.search).toBe('?transfer_id=TRF-8fK2pQ');
    expectSigned(request, DEALER);
    expect(request.body).toBe('');
    expect(result).toEqual(transferStatusAnswer);
    expect(result.transfer.status).toBe('completed');
  });

  test('encodes the transfer id in the query string', async () => {
    const seen = capture('get', `${DEALER_URL}/transfer-status`, transferStatusAnswer);
    await dealer.transfers.getStatus({ transfer_id: 'TRF-a&b=c d' });
    expect(seen[0]!.url.search).toBe('?transfer_id=TRF-a%26b%3Dc+d');
  });

  test('accepts a pending transfer whose completed_at and description are null, and reads them as absent', async () => {
    const pending = { ...transferStatusAnswer.transfer, status: 'pending', description: null, completed_at: null };
    capture('get', `${DEALER_URL}/transfer-status`, { ...transferStatusAnswer, transfer: pending });
    const { transfer } = await dealer.transfers.getStatus({ transfer_id: 'TRF-8fK2pQ' });
    expect(transfer.status).toBe('pending');
    expect(transfer.completed_at).toBeUndefined();
    expect(transfer.description).toBeUndefined();
  });

  test('refuses an empty transfer_id and sends nothing', async () => {
    const seen = capture('get', `${DEALER_URL}/transfer-status`, transferStatusAnswer);
    const error = await dealer.transfers.getStatus({ transfer_id: '' }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'transfer_id', rule: 'invalid_format', message: 'is required' }]);
    expect(seen).toHaveLength(0);
  });

  test('is retried after a 503, since reading a status twice moves no money', async () => {
    const seen = capture('get', `${DEALER_URL}/transfer-status`, (attempt) => (attempt === 1 ? Response.json({ success: false }, { status: 503 }) : transferStatusAnswer));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 1 });
    const result = await retrying.transfers.getStatus({ transfer_id: 'TRF-8fK2pQ' });
    expect(result.transfer.status).toBe('completed');
    expect(seen).toHaveLength(2);
  });
});
