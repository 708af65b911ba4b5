import { describe, expect, test } from 'vitest';
import { APIPromise, AuthenticationError, DealerClient, ProviderClient } from '../../src/index.js';
import { SANDBOX_BASE_URL, createSandbox } from '../../src/tools/sandbox/index.js';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';
import { DEALER_CALLS, PROVIDER_CALLS } from '../helpers/api-calls.js';
import { BASE_URL, DEALER, PROVIDER } from '../helpers/wire.js';

/*
 * The HTTP answer next to the parsed result, as openai's SDK gives it: `withResponse()` and
 * `asResponse()` on every call that returns a promise, and `pages()` for the transaction
 * iterator. The answer is the response, never the request: no signing header of the request is
 * in it, and a value of them the service echoes is redacted.
 */

const sandbox = createSandbox();
const { provider: providerAccount, dealer: dealerAccount } = sandbox.accounts;
const credentialKey = providerAccount.sites[0].credentialKey;

/** The sandbox, with two headers of its own on each answer: an id, and the request's X-Hash and X-Api-Key echoed back. */
const echoing: typeof fetch = async (input, init) => {
  const request = input instanceof Request && init === undefined ? input : new Request(input, init);
  const answer = await sandbox.fetch(request);
  const headers = new Headers(answer.headers);
  headers.set('x-request-id', 'req-42');
  headers.set('x-echo', `${request.headers.get('x-hash') ?? ''} ${request.headers.get('x-credential-key') ?? ''}`);
  return new Response(await answer.text(), { status: answer.status, statusText: answer.statusText, headers });
};

const provider = new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey: providerAccount.apiKey, secretKey: providerAccount.secretKey, credentialKey, fetch: echoing, maxRetries: 0 });
const dealer = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...dealerAccount, fetch: echoing, maxRetries: 0 });

describe('withResponse() and asResponse()', () => {
  test('give the parsed result and the answer it came from: status, headers, URL and the body as read', async () => {
    const { body, response } = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 }).withResponse();
    expect(body.success).toBe(true);
    // The whole answer, as awaiting gives it: its own `data` is body.data.
    expect(body.data.tracking_code).toMatch(/^MAN-/);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req-42');
    expect(response.url).toBe(`${SANDBOX_BASE_URL}/api/provider/start-manual-deposit`);
    expect(JSON.parse(await response.text())).toEqual(body);
    const plain = await dealer.settings.get().asResponse();
    expect(plain.status).toBe(200);
    expect(JSON.parse(await plain.text())).toMatchObject({ success: true });
  });

  test('hold no signing header of the request, and redact the hash and the site key when the service echoes them', async () => {
    const { response } = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 }).withResponse();
    for (const name of ['x-api-key', 'x-hash', 'x-timestamp', 'x-credential-key', 'x-key']) expect(response.headers.has(name), name).toBe(false);
    expect(response.headers.get('x-echo')).toBe('[redacted] [redacted]');
    const text = await response.text();
    expect(text).not.toContain(credentialKey);
    expect(text).not.toContain(providerAccount.secretKey);
  });

  test('a call is sent once however it is read', async () => {
    let sent = 0;
    const counting = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...dealerAccount, maxRetries: 0, fetch: (input, init) => { sent++; return sandbox.fetch(input, init); } });
    const call = counting.eibans.list();
    const [awaited, { body, response }, raw] = await Promise.all([call, call.withResponse(), call.asResponse()]);
    expect(sent).toBe(1);
    expect(awaited.success).toBe(true);
    expect(body).toEqual(awaited);
    expect(response.status).toBe(200);
    expect(raw.status).toBe(200);
  });

  test('pages() gives each page of a range with its answer', async () => {
    const { eibans } = await dealer.eibans.list();
    const today = new Date().toISOString().slice(0, 10);
    const pages = [];
    for await (const page of dealer.transactions.iterate({ wallet_id: eibans[0]?.wallet_id ?? '', start_date: today, end_date: today }).pages()) pages.push(page);
    expect(pages.length).toBeGreaterThan(0);
    for (const { body, response } of pages) {
      expect(response.status).toBe(200);
      expect(new URL(response.url).searchParams.get('page')).toBe(String(body.pagination.current_page));
    }
  });

  // A stub that refuses every request: each call of the registry then rejects the same way, however read.
  const refusing: typeof fetch = () => Promise.resolve(Response.json({ success: false, error: 'Invalid hash' }, { status: 401 }));
  const refusedProvider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch: refusing, maxRetries: 0 });
  const refusedDealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch: refusing, maxRetries: 0 });
  const calls = [
    ...PROVIDER_CALLS.map((call) => ({ id: call.id, make: () => call.invoke(refusedProvider, call.valid as never) })),
    ...DEALER_CALLS.map((call) => ({ id: call.id, make: () => call.invoke(refusedDealer, call.valid as never) })),
  ];

  test('are on every call of the registry, and a failure rejects each reading with the same typed error', async () => {
    expect(calls).toHaveLength(API_ENDPOINTS.length);
    for (const { id, make } of calls) {
      const call = make();
      expect(call, id).toBeInstanceOf(APIPromise);
      await expect(call, id).rejects.toBeInstanceOf(AuthenticationError);
      await expect(make().withResponse(), id).rejects.toBeInstanceOf(AuthenticationError);
      await expect(make().asResponse(), id).rejects.toBeInstanceOf(AuthenticationError);
    }
  });

  test('a refusal before sending rejects too, rather than throwing where the call is made', async () => {
    const call = provider.manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: 'u-1', amount: -1 });
    await expect(call.withResponse()).rejects.toMatchObject({ name: 'RequestValidationError', outcome: 'not_sent' });
    const unsigned = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, credentialKey: undefined, fetch: refusing });
    await expect(unsigned.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 }).asResponse()).rejects.toMatchObject({ name: 'RequestValidationError' });
  });
});
