import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DealerClient, UnprocessableEntityError } from '../../src/index.js';
import { CUSTOMER, providerFor, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import { DEALER, PROVIDER } from '../helpers/wire.js';

/*
 * Answers a service built on another stack plausibly sends, written by hand
 * (test/fixtures/answers), served as bytes on a real socket and read through the whole client.
 */

closeLoopbackServers();

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/answers/${name}`, import.meta.url), 'utf8');

/** Serves `bytes` with `contentType` and `status` to every request. */
async function serving(bytes: Uint8Array | string, contentType: string, status = 200) {
  return startServer((_request, response) => {
    response.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(bytes)) });
    response.end(bytes);
  });
}

/** "Doğrulama hatası" and "Ayşe Yılmaz" as a latin5 (ISO-8859-9) stack writes them: ğ 0xF0, ı 0xFD, ş 0xFE. */
const latin5 = (...parts: (string | number)[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => (typeof part === 'number' ? [part] : [...Buffer.from(part, 'ascii')])));

describe('answers from other stacks', () => {
  test('a created deposit with "success": "true" and a numeric username reaches the caller with its payment_url', async () => {
    const server = await serving(fixture('provider--start-manual-deposit.variants.json'), 'application/json');
    const result = await providerFor(server, { credentialKey: PROVIDER.credentialKey }).manual.startDeposit({ ...CUSTOMER, amount: 250 });
    expect(result.success).toBe(true);
    expect(result.data.payment_url).toBe('https://pay.example.com/deposit/MAN-q7Wr3Zt1-1763812300');
    expect(result.data.customer).toEqual({ fullname: 'Ada Yılmaz', username: '48213', user_id: '48213' });
  });

  test('a transfer answered with "success": 1 and a numeric recipient_name reaches the caller', async () => {
    const server = await serving(fixture('dealer--send-money.variants.json'), 'application/json');
    const dealer = new DealerClient({ baseUrl: server.url, ...DEALER });
    const result = await dealer.transfers.send({ wallet_id: 'WLT-1', recipient_iban: 'TR330006100519786457841326', recipient_name: '1905', amount: 250 });
    expect(result).toMatchObject({ success: true, transfer: { transfer_id: 'TRF-9gL3rR', recipient_name: '1905', amount: '250' } });
  });

  test('a card status with "success": "true" and a numeric username reads them as text', async () => {
    const server = await serving(fixture('provider--credit-card-status.variants.json'), 'application/json');
    const result = await providerFor(server).creditCard.getStatus({ tracking_code: 'CC-p4Lm8-1763812100' });
    expect(result).toMatchObject({ success: true, data: { username: '31337', user_id: '31337', order_id: '55', amount: 150 } });
  });
});

describe('the declared charset of an answer', () => {
  const refusal = ['{"success":false,"error":"Do', 0xf0, 'rulama hatas', 0xfd, '","messages":["iban ge', 0xe7, 'ersiz"]}'] as const;

  test.each([
    ['application/json; charset=ISO-8859-9'],
    ['application/json; charset="iso-8859-9"'],
    ['application/json;charset=latin5'],
    ['application/json; charset=windows-1254'],
  ])('a refusal declared %s reads its Turkish text unharmed', async (contentType) => {
    const server = await serving(latin5(...refusal), contentType, 422);
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey }).manual.startWithdrawal({ ...CUSTOMER, iban: 'TR330006100519786457841326', amount: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).error).toBe('Doğrulama hatası');
    expect((error as UnprocessableEntityError).messages).toEqual(['iban geçersiz']);
    expect((error as UnprocessableEntityError).outcome).toBe('refused');
  });

  test('a success answer declared latin5 reads its names unharmed', async () => {
    const body = latin5('{"success":true,"message":"ok","data":{"tracking_code":"MAN-a8Xk29Qp-1763812000","payment_url":"https://pay.example/t","amount":250,"status":"showing","customer":{"fullname":"Ay', 0xfe, 'e Y', 0xfd, 'lmaz","username":"ayse","user_id":"u-2"}}}');
    const server = await serving(body, 'application/json; charset=ISO-8859-9');
    const result = await providerFor(server, { credentialKey: PROVIDER.credentialKey }).manual.startDeposit({ ...CUSTOMER, amount: 250 });
    expect(result.data.customer?.fullname).toBe('Ayşe Yılmaz');
  });

  test.each([
    ['application/json; charset=utf-8'],
    ['application/json'],
    ['application/json; charset=no-such-charset'],
  ])('an answer declared %s is read as UTF-8', async (contentType) => {
    const server = await serving('{"success":false,"error":"Doğrulama hatası","messages":["iban geçersiz"]}', contentType, 422);
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey }).manual.startWithdrawal({ ...CUSTOMER, iban: 'TR330006100519786457841326', amount: 100 }).catch((caught: unknown) => caught);
    expect((error as UnprocessableEntityError).error).toBe('Doğrulama hatası');
  });
});
