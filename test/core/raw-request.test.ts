import { describe, expect, test, vi } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError } from '../../src/index.js';
import type { RawRequest } from '../../src/index.js';
import { refusalOf } from '../helpers/refusal.js';
import { BASE_URL, DEALER, PROVIDER, capture, expectSigned } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

// Spies that must stay uncalled: a refused request sends nothing.
function clients() {
  const fetch = vi.fn<typeof globalThis.fetch>(() => Promise.reject(new Error('nothing may be sent')));
  const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch });
  const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch });
  return {
    fetch,
    send: [(params: RawRequest) => provider.request({ ...params, hash: 'basic' }), (params: RawRequest) => dealer.request(params)],
  };
}

describe('request() of both clients', () => {
  test.each([
    ['a .. segment', '/../provider/welcome'],
    ['a .. segment in the middle', '/settings/../../dealer/settings'],
    ['a . segment', '/./settings'],
    ['a percent-encoded .. segment', '/%2e%2e/admin'],
    ['a mixed-case percent-encoded .. segment', '/%2E./admin'],
    ['a percent-encoded slash', '/a%2F..%2Fadmin'],
    ['a double slash', '//evil.example/steal'],
    ['an empty segment', '/settings//x'],
    ['an absolute URL', 'https://evil.example/steal'],
    ['a path without a leading slash', 'settings'],
    ['a query in the path', '/settings?page=2'],
    ['a fragment in the path', '/settings#top'],
    ['a backslash', '/..\\admin'],
    ['a space', '/set tings'],
    ['a line break', '/settings\r\nX-Injected: 1'],
    ['an empty path', ''],
  ])('refuses a path with %s as a RequestValidationError, with nothing sent', async (_name, path) => {
    const { fetch, send } = clients();
    for (const call of send) {
      const error = await refusalOf(() => call({ method: 'POST', path }));
      expect(error.issues.map((issue) => issue.field)).toEqual(['path']);
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  test.each([
    ['a space', 'X Request'],
    ['a colon', 'X-Id:'],
    ['a line break', 'X-Id\r\nX-Injected'],
    ['a non-ASCII letter', 'X-Kimlik-Ş'],
    ['nothing', ''],
  ])('refuses a header name with %s, before fetch could fail as a "maybe sent" ConnectionError', async (_name, header) => {
    const { fetch, send } = clients();
    for (const call of send) {
      const error = await refusalOf(() => call({ method: 'POST', path: '/future', headers: { [header]: 'v' } }));
      expect(error.issues[0]).toMatchObject({ field: `headers.${header}`, rule: 'header_name' });
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  const circular: Record<string, unknown> = { amount: 250 };
  circular['self'] = circular;
  test.each([
    ['a cycle', circular, /^cannot be sent as JSON: Converting circular structure to JSON/],
    ['a BigInt', { amount: 250n }, /^cannot be sent as JSON: Do not know how to serialize a BigInt/],
    ['a toJSON that throws', { toJSON: () => { throw new Error('no'); } }, /^cannot be sent as JSON: no$/],
    ['a function', () => 250, /^cannot be sent as JSON \(a function\)$/],
  ])('refuses a body with %s before sending: it read as a failed connection that may have moved money', async (_name, body, message) => {
    const { fetch, send } = clients();
    for (const call of send) {
      const error = await refusalOf(() => call({ method: 'POST', path: '/start-manual-deposit', body }));
      expect(error.outcome).toBe('not_sent');
      expect(error.issues).toEqual([{ field: 'body', rule: 'invalid_value', message: expect.stringMatching(message) as unknown }]);
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  test.each([
    ['an object', { a: { b: 1 } }, 'object'],
    ['null', { a: null }, 'null'],
    ['NaN', { a: Number.NaN }, 'number'],
  ])('refuses a query value that is %s: it went out as "[object Object]" or "null"', async (_name, query, got) => {
    const { fetch, send } = clients();
    for (const call of send) {
      const error = await refusalOf(() => call({ method: 'GET', path: '/future', query } as never));
      expect(error.issues).toEqual([{ field: 'query.a', rule: 'invalid_value', message: `must be a string or a finite number; got ${got}` }]);
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  test('refuses a call without its parameters, naming them, instead of a TypeError', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(() => Promise.reject(new Error('nothing may be sent')));
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch });
    const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch });
    for (const call of [() => provider.request(undefined as never), () => dealer.request(undefined as never)]) {
      expect((await refusalOf(call)).issues).toEqual([{ field: '(params)', rule: 'invalid_argument', message: 'must be an object: { method, path, body?, query?, headers? }' }]);
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  test("refuses a provider hash other than the spec's three: it was signed as basic without a word", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(() => Promise.reject(new Error('nothing may be sent')));
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch });
    const error = await refusalOf(() => provider.request({ method: 'POST', path: '/future', hash: 'nope' } as never));
    expect(error.issues).toEqual([{ field: 'hash', rule: 'invalid_value', message: `must be 'basic', 'credential' or 'key' (spec 5.1); got "nope"` }]);
    expect(fetch).not.toHaveBeenCalled();
  });

  test('accepts ordinary paths with percent escapes and a trailing slash', async () => {
    const { send } = clients();
    for (const call of send) {
      // Refused only by the spy: the path itself passed.
      const error: unknown = await call({ method: 'GET', path: '/third-party/bank/gateways/%C5%9Fube-1/' }).catch((caught: unknown) => caught);
      expect(error).not.toBeInstanceOf(RequestValidationError);
    }
  });
});

describe('dealer.request', () => {
  const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER });
  const FUTURE_URL = `${BASE_URL}/api/dealer/future-endpoint`;

  test('signs a POST with the basic hash below /api/dealer and returns the parsed JSON', async () => {
    const seen = capture('post', FUTURE_URL, { success: true, data: { n: 1 } });
    const result = await dealer.request({ method: 'POST', path: '/future-endpoint', body: { b: 2, a: 'x' } });
    expect(seen).toHaveLength(1);
    expectSigned(seen[0]!, DEALER);
    expect(seen[0]!.body).toBe('{"b":2,"a":"x"}');
    expect(result).toEqual({ success: true, data: { n: 1 } });
  });

  test('sends a GET with its query string and no body', async () => {
    const seen = capture('get', FUTURE_URL, { success: true });
    await dealer.request({ method: 'GET', path: '/future-endpoint', query: { page: 2, skip: undefined } });
    expect(seen[0]!.url.search).toBe('?page=2');
    expect(seen[0]!.body).toBe('');
  });

  test('refuses a GET with a body and sends nothing', async () => {
    const seen = capture('get', FUTURE_URL, { success: true });
    const error = await refusalOf(() => dealer.request({ method: 'GET', path: '/future-endpoint', body: {} }));
    expect(error.issues.map((issue) => [issue.field, issue.rule])).toEqual([['body', 'not_allowed']]);
    expect(seen).toHaveLength(0);
  });

  test('is sent at most once unless resendable is set: sent once on a 500, retried when resendable', async () => {
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 1 });
    const answer = (attempt: number) => (attempt === 1 ? Response.json({ error: 'boom' }, { status: 500 }) : { success: true });
    const once = capture('post', FUTURE_URL, answer);
    await expect(retrying.request({ method: 'POST', path: '/future-endpoint' })).rejects.toThrow();
    expect(once).toHaveLength(1);
    const twice = capture('post', FUTURE_URL, answer);
    await expect(retrying.request({ method: 'POST', path: '/future-endpoint', resendable: true })).resolves.toEqual({ success: true });
    expect(twice).toHaveLength(2);
  });
});

describe('escape hatches for what the spec does not show', () => {
  test('provider.request reaches an endpoint the spec does not show (site creation) at /api/provider, with no version segment', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/sites`, { success: true, data: { id: 9 } });
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER });
    await expect(provider.request({ method: 'POST', path: '/sites', hash: 'key', key: 'xkey_0123456789', body: { name: 'Shop' } })).resolves.toEqual({ success: true, data: { id: 9 } });
    expect(seen[0]!.url.pathname).toBe('/api/provider/sites');
    expectSigned(seen[0]!, PROVIDER, 'xkey_0123456789');
  });

  test('dealer.request overrides a method the spec leaves open: /settings read with POST', async () => {
    const seen = capture('post', `${BASE_URL}/api/dealer/settings`, { success: true, dealer_name: 'D' });
    const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER });
    await dealer.request({ method: 'POST', path: '/settings', resendable: true });
    expect(seen[0]!.method).toBe('POST');
    expectSigned(seen[0]!, DEALER);
  });
});
