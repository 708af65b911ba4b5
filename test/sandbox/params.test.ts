import { describe, expect, test } from 'vitest';
import { UnprocessableEntityError } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL, customer, handSigned, providerOf, read } from '../helpers/sandbox.js';

const sandbox = createSandbox();
const { provider, dealer } = sandbox.accounts;
const [site] = provider.sites;

/** POSTs `body` (an object, or raw text) to a credential-hash provider endpoint, signed by hand. */
async function post(path: string, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const request = handSigned(`${SANDBOX_BASE_URL}/api/provider${path}`, { ...provider, between: site.credentialKey, headers: { 'X-Credential-Key': site.credentialKey }, body: text });
  return read(await sandbox.fetch(request));
}

/** GETs a dealer endpoint with a raw query string, signed by hand. */
async function get(pathAndQuery: string) {
  return read(await sandbox.fetch(handSigned(`${SANDBOX_BASE_URL}/api/dealer${pathAndQuery}`, { ...dealer, method: 'GET' })));
}

const invalid = (...messages: string[]) => ({ status: 422, body: { success: false, error: 'Doğrulama hatası', messages } });
const withdrawal = { ...customer, iban: IBAN, amount: 100 };

describe('request validation with the rows of the SDK (spec 7.2, 7.3)', () => {
  test.each(['fullname', 'username', 'user_id', 'iban', 'amount'])('a missing %s is named in the Turkish validation error', async (field) => {
    const body = Object.fromEntries(Object.entries(withdrawal).filter(([name]) => name !== field));
    expect(await post('/start-manual-withdraw', body)).toEqual(invalid(`${field} is required`));
  });

  test('a blank string is a missing value', async () => {
    expect(await post('/start-manual-withdraw', { ...withdrawal, fullname: '  ' })).toEqual(invalid('fullname is required'));
  });

  test('an amount below 1 is refused', async () => {
    expect(await post('/start-manual-deposit', { ...customer, amount: 0.99 })).toEqual(invalid('amount must be at least 1'));
  });

  test('an amount sent as a string is refused, not converted', async () => {
    expect(await post('/start-manual-deposit', { ...customer, amount: '100' })).toEqual(invalid('amount must be a number'));
  });

  test.each([
    ['14', 'TR3300061005197'.slice(0, 14)],
    ['35', `${IBAN}123456789`],
  ])('an IBAN of %s characters is refused', async (_length, iban) => {
    expect(await post('/start-manual-withdraw', { ...withdrawal, iban })).toEqual(invalid('iban must be 15 to 34 characters'));
  });

  test('a field the spec does not have is refused', async () => {
    expect(await post('/start-eiban-deposit', { ...customer, amount: 10, coupon: 'X' })).toEqual(invalid('coupon is not a field of this request'));
  });

  test('every failed rule has its own message', async () => {
    const answer = await post('/start-manual-withdraw', { fullname: 'Ada', amount: 0 });
    expect(answer.body['messages']).toEqual(['username is required', 'user_id is required', 'amount must be at least 1', 'iban is required']);
  });

  test.each([
    [1.5, 'gateway_id must be an integer'],
    [0, 'gateway_id must be positive'],
  ])('gateway_id %s is refused', async (gatewayId, message) => {
    expect(await post('/third-party/bank/start-withdrawal', { ...withdrawal, gateway_id: gatewayId })).toEqual(invalid(message));
  });

  test('a body that is not JSON is 400 "Invalid JSON"', async () => {
    expect(await post('/start-manual-deposit', '{"amount": 1')).toEqual({ status: 400, body: { success: false, error: 'Invalid JSON', message: 'The request body is not valid JSON' } });
  });

  test('an array body has the wrong shape', async () => {
    expect(await post('/start-manual-deposit', [])).toEqual(invalid('the request body has the wrong shape for this endpoint'));
  });

  test('an endpoint without parameters takes no body, or {}', async () => {
    const welcome = (body?: string) => handSigned(`${SANDBOX_BASE_URL}/api/provider/welcome`, { ...provider, ...(body === undefined ? {} : { body }) });
    expect((await sandbox.fetch(welcome())).status).toBe(200);
    expect((await sandbox.fetch(welcome('{}'))).status).toBe(200);
    expect(await read(await sandbox.fetch(welcome('{"verbose":true}')))).toEqual(invalid('the request body has the wrong shape for this endpoint'));
  });

  test('the SDK raises UnprocessableEntityError with the messages when its own checks are bypassed', async () => {
    const error = await providerOf(sandbox)
      .request({ method: 'POST', path: '/start-manual-withdraw', hash: 'credential', body: { ...withdrawal, iban: 'TR12' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).messages).toEqual(['iban must be 15 to 34 characters']);
  });
});

describe('query parameters of GET endpoints', () => {
  test('numbers in the query reach the schema as numbers', async () => {
    const { eibans } = (await get('/eibans')).body as { eibans: { wallet_id: string }[] };
    const wallet = eibans[0]?.wallet_id ?? '';
    const day = new Date().toISOString().slice(0, 10);
    const answer = await get(`/transactions?wallet_id=${wallet}&start_date=${day}&end_date=${day}&page=2`);
    expect(answer.status).toBe(200);
    expect(answer.body['pagination']).toMatchObject({ current_page: 2 });
  });

  test.each([
    ['page=0', 'page must be at least 1'],
    ['page=abc', 'page must be a number'],
  ])('%s is refused', async (query, message) => {
    const day = new Date().toISOString().slice(0, 10);
    expect(await get(`/transactions?wallet_id=w&start_date=${day}&end_date=${day}&${query}`)).toEqual(invalid(message));
  });

  test('a date that is not YYYY-MM-DD is refused', async () => {
    expect(await get('/transactions?wallet_id=w&start_date=2026-1-5&end_date=2026-01-06')).toEqual(invalid('start_date must be a calendar date YYYY-MM-DD'));
  });

  test('a missing query parameter is named', async () => {
    expect(await get('/transfer-status')).toEqual(invalid('transfer_id is required'));
    expect(await get('/transfer-status?transfer=TRF-1')).toEqual(invalid('transfer_id is required', 'transfer is not a field of this request'));
  });
});
