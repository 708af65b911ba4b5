import { HttpResponse } from 'msw';
import { describe, expect, test } from 'vitest';
import { endpointPath } from '../../src/tools/registry/index.js';
import { PROVIDER_CALLS } from '../helpers/api-calls.js';
import { APIError, ProviderClient, RequestValidationError } from '../../src/index.js';
import { expectProviderRequest } from '../helpers/provider.js';
import { BASE_URL, PROVIDER, capture, sha256 } from '../helpers/wire.js';
import type { WireRequest } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const keys = { baseUrl: BASE_URL, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, maxRetries: 0 };
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const deposit = {
  success: true,
  data: { tracking_code: 'MAN-a8Xk29Qp-1763812000', payment_url: 'https://pay.example/t', amount: 10, status: 'showing' },
};
const welcome = { success: true, provider: { id: 12, name: 'Acme Payments', is_active: true } };
const DEPOSIT_URL = `${BASE_URL}/api/provider/start-manual-deposit`;

const seconds = (request: WireRequest) => Number(request.headers.get('x-timestamp'));

describe('provider.withSite', () => {
  test('signs with the new site key and leaves the original client on its own', async () => {
    const seen = capture('post', DEPOSIT_URL, deposit);
    const provider = new ProviderClient({ ...keys, credentialKey: PROVIDER.credentialKey });

    await provider.withSite('site_cred_shop').manual.startDeposit({ ...customer, amount: 10 });
    await provider.manual.startDeposit({ ...customer, amount: 10 });

    const signing = (credentialKey: string) => ({ hash: 'credential', credentialKey }) as const;
    const body = '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":10}';
    expectProviderRequest(seen[0]!, { path: '/start-manual-deposit', signing: signing('site_cred_shop'), body });
    expectProviderRequest(seen[1]!, { path: '/start-manual-deposit', signing: signing(PROVIDER.credentialKey), body });
  });

  test('shares the transport: a clock offset the parent learns later is used by the site client', async () => {
    const provider = new ProviderClient(keys);
    const site = provider.withSite('site_cred_shop');
    const serverNow = Date.now() + 600_000;
    capture('post', `${BASE_URL}/api/provider/welcome`, (attempt) =>
      attempt === 1
        ? HttpResponse.json({ success: false, error: 'Request timestamp expired' }, { status: 401, headers: { Date: new Date(serverNow).toUTCString() } })
        : welcome,
    );
    await provider.welcome();

    const seen = capture('post', DEPOSIT_URL, deposit);
    await site.manual.startDeposit({ ...customer, amount: 10 });
    await new ProviderClient({ ...keys, credentialKey: 'site_cred_shop' }).manual.startDeposit({ ...customer, amount: 10 });

    const [shared, fresh] = [seen[0]!, seen[1]!];
    expect(Math.abs(seconds(shared) - serverNow / 1000)).toBeLessThan(5);
    expect(Math.abs(seconds(fresh) - Date.now() / 1000)).toBeLessThan(5);
    const timestamp = shared.headers.get('x-timestamp') ?? '';
    expect(shared.headers.get('x-hash')).toBe(sha256(PROVIDER.apiKey, PROVIDER.secretKey, 'site_cred_shop', timestamp));
  });

  test('chains: a site client can hand over to another site', async () => {
    const seen = capture('post', DEPOSIT_URL, deposit);
    await new ProviderClient(keys).withSite('site_a').withSite('site_b').manual.startDeposit({ ...customer, amount: 10 });
    expect(seen[0]!.headers.get('x-credential-key')).toBe('site_b');
  });
});

describe('per-call credentialKey', () => {
  test('beats the client key for one call only', async () => {
    const seen = capture('post', DEPOSIT_URL, deposit);
    const provider = new ProviderClient({ ...keys, credentialKey: PROVIDER.credentialKey });
    await provider.manual.startDeposit({ ...customer, amount: 10 }, { credentialKey: 'site_cred_once' });
    await provider.manual.startDeposit({ ...customer, amount: 10 });
    expect(seen.map((request) => request.headers.get('x-credential-key'))).toEqual(['site_cred_once', PROVIDER.credentialKey]);
  });

  // JavaScript, or a cast, can hand anything over: it would have gone out as "42" or "null".
  test.each([
    ['empty', ''],
    ['a number', 42],
    ['null', null],
  ])('a client site key that is %s is refused at construction, and through withSite, naming credentialKey', (_name, value) => {
    const where = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error;
      }
      throw new Error('accepted');
    };
    for (const [make, owner] of [[() => new ProviderClient({ ...keys, credentialKey: value as string }), 'new ProviderClient'], [() => new ProviderClient(keys).withSite(value as string), 'new ProviderClient']] as const) {
      const error = where(make);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).message).toMatch(new RegExp(`^Invalid option for ${owner}: credentialKey: must be a non-empty string \\(for example from PAYORCH_CREDENTIAL_KEY\\); got `));
    }
  });

  test.each([
    ['a boolean', true],
    ['empty', ''],
  ])('a site key on the call that is %s is refused before sending, for a basic-hash call too', async (_name, value) => {
    const seen = capture('post', DEPOSIT_URL, deposit);
    const welcomes = capture('post', `${BASE_URL}/api/provider/welcome`, { success: true });
    const provider = new ProviderClient({ ...keys, credentialKey: PROVIDER.credentialKey });
    const options = { credentialKey: value as string };
    for (const sending of [() => provider.manual.startDeposit({ ...customer, amount: 10 }, options), () => provider.welcome(options)]) {
      const error = await sending().catch((caught: unknown) => caught);
      // A credential-hash call needs the key before the options are read: either refusal names it.
      expect(error).toMatchObject({ name: 'RequestValidationError', outcome: 'not_sent', issues: [{ field: 'credentialKey' }] });
    }
    expect([seen, welcomes].map((requests) => requests.length)).toEqual([0, 0]);
  });

  test("a raw request's key or site key that is not text is refused before sending, never signed as \"42\"", async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/future-endpoint`, { success: true });
    const provider = new ProviderClient({ ...keys, credentialKey: PROVIDER.credentialKey });
    for (const params of [{ hash: 'key', key: 42 }, { hash: 'credential', credentialKey: 42 }, { hash: 'key' }]) {
      const error = await provider.request({ method: 'POST', path: '/future-endpoint', ...params } as never).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'RequestValidationError', outcome: 'not_sent' });
    }
    expect(seen).toHaveLength(0);
  });
});

describe('provider.request', () => {
  const provider = new ProviderClient({ ...keys, credentialKey: PROVIDER.credentialKey });
  const FUTURE_URL = `${BASE_URL}/api/provider/future-endpoint`;

  test('signs a POST with the basic hash and returns the parsed JSON', async () => {
    const seen = capture('post', FUTURE_URL, { success: true, data: { n: 1 } });
    const result = await provider.request({ method: 'POST', path: '/future-endpoint', hash: 'basic', body: { b: 2, a: 'x' } });
    expectProviderRequest(seen[0]!, { path: '/future-endpoint', signing: { hash: 'basic' }, body: '{"b":2,"a":"x"}' });
    expect(result).toEqual({ success: true, data: { n: 1 } });
  });

  test('signs with the key hash and sends X-Key', async () => {
    const seen = capture('post', FUTURE_URL, { success: true });
    await provider.request({ method: 'POST', path: '/future-endpoint', hash: 'key', key: 'xkey_1' });
    expectProviderRequest(seen[0]!, { path: '/future-endpoint', signing: { hash: 'key', key: 'xkey_1' }, body: '' });
  });

  test.each([
    ['the client key', {}, {}, PROVIDER.credentialKey],
    ['the per-call key', {}, { credentialKey: 'site_cred_call' }, 'site_cred_call'],
    ['the key of the request over the per-call one', { credentialKey: 'site_cred_req' }, { credentialKey: 'site_cred_call' }, 'site_cred_req'],
  ])('signs with the credential hash and %s', async (_label, request, options, credentialKey) => {
    const seen = capture('post', FUTURE_URL, { success: true });
    await provider.request({ method: 'POST', path: '/future-endpoint', hash: 'credential', ...request }, options);
    expectProviderRequest(seen[0]!, { path: '/future-endpoint', signing: { hash: 'credential', credentialKey }, body: '' });
  });

  test('sends a GET with its query string and no body, leaving out undefined values', async () => {
    const seen = capture('get', FUTURE_URL, { success: true });
    await provider.request({ method: 'GET', path: '/future-endpoint', hash: 'basic', query: { page: 2, q: 'a b&c', skip: undefined } });
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.url.search).toBe('?page=2&q=a+b%26c');
    expect(seen[0]!.body).toBe('');
  });

  test('refuses a GET with a body and sends nothing', async () => {
    const seen = capture('get', FUTURE_URL, { success: true });
    const error = await provider.request({ method: 'GET', path: '/future-endpoint', hash: 'basic', body: {} }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([['body', 'not_allowed']]);
    expect(seen).toHaveLength(0);
  });

  test('adds extra headers but never lets them replace a signing header', async () => {
    const seen = capture('post', FUTURE_URL, { success: true });
    await provider.request({
      method: 'POST',
      path: '/future-endpoint',
      hash: 'basic',
      headers: { 'X-Request-Id': 'req-1', 'X-Api-Key': 'forged', 'X-Hash': 'forged', 'X-Timestamp': '1' },
    });
    expect(seen[0]!.headers.get('x-request-id')).toBe('req-1');
    expectProviderRequest(seen[0]!, { path: '/future-endpoint', signing: { hash: 'basic' }, body: '' });
  });

  test('fails before sending when the credential hash has no key', async () => {
    const seen = capture('post', FUTURE_URL, { success: true });
    const error = await new ProviderClient(keys).request({ method: 'POST', path: '/future-endpoint', hash: 'credential' }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues[0]!.field).toBe('credentialKey');
    expect(seen).toHaveLength(0);
  });

  test('turns success: false into an APIError like any other call', async () => {
    capture('post', FUTURE_URL, { success: false, error: 'Not supported', message: 'No such operation' });
    const error = await provider.request({ method: 'POST', path: '/future-endpoint', hash: 'basic' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toBe('Not supported');
  });

  test('is sent at most once unless resendable is set: sent once on a 500, retried when resendable', async () => {
    const retrying = new ProviderClient({ ...keys, maxRetries: 1 });
    const answer = (attempt: number) => (attempt === 1 ? HttpResponse.json({ error: 'boom' }, { status: 500 }) : { success: true });
    const once = capture('post', FUTURE_URL, answer);
    await expect(retrying.request({ method: 'POST', path: '/future-endpoint', hash: 'basic' })).rejects.toBeInstanceOf(APIError);
    expect(once).toHaveLength(1);

    const twice = capture('post', FUTURE_URL, answer);
    await expect(retrying.request({ method: 'POST', path: '/future-endpoint', hash: 'basic', resendable: true })).resolves.toEqual({ success: true });
    expect(twice).toHaveLength(2);
  });
});

describe('every provider call', () => {
  const provider = new ProviderClient({ ...keys, credentialKey: PROVIDER.credentialKey, maxRetries: 1 });
  const resendable = PROVIDER_CALLS.filter((call) => call.endpoint.resendable);
  const moneyMoving = PROVIDER_CALLS.filter((call) => !call.endpoint.resendable);

  test.each(resendable.map((call) => [call.id, call] as const))('%s is resendable: retried after a 500', async (_id, call) => {
    const seen = capture('post', `${BASE_URL}${endpointPath(call.row)}`, (attempt) => (attempt === 1 ? HttpResponse.json({}, { status: 500 }) : (call.row.example.answer as object)));
    await call.invoke(provider, call.valid as never);
    expect(seen).toHaveLength(2);
  });

  test.each(moneyMoving.map((call) => [call.id, call] as const))('%s is not resendable: sent once on a 500, never again', async (id, call) => {
    const seen = capture('post', `${BASE_URL}${endpointPath(call.row)}`, () => HttpResponse.json({}, { status: 500 }));
    const error = await call.invoke(provider, call.valid as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(500);
    expect(seen, id).toHaveLength(1);
  });
});
