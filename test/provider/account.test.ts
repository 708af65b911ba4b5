import { describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../src/index.js';
import { expectProviderRequest } from '../helpers/provider.js';
import { BASE_URL, PROVIDER, capture } from '../helpers/wire.js';
import { useMsw } from '../mocks/server.js';

useMsw();

const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const X_KEY = 'xkey_77Hq';

describe('provider.welcome', () => {
  const answer = {
    success: true,
    message: 'Welcome, Acme Payments',
    info: 'Your API credentials are valid',
    next_step: 'Create a site and use its credential key',
    provider: { id: 12, name: 'Acme Payments', is_active: true },
    timestamp: '2026-11-22 10:00:00',
  };

  test('POSTs no body to /api/provider/welcome with the basic hash and returns the answer', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/welcome`, answer);
    const result = await provider.welcome();

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, { path: '/welcome', signing: { hash: 'basic' }, body: '' });
    expect(result).toEqual(answer);
  });

  test('never sends the client credential key, not even when one is set', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/welcome`, answer);
    await provider.withSite(PROVIDER.credentialKey).welcome({ credentialKey: 'per_call_key' });
    expectProviderRequest(seen[0]!, { path: '/welcome', signing: { hash: 'basic' }, body: '' });
  });

  test('normalises a provider id sent as text and is_active sent as 1', async () => {
    capture('post', `${BASE_URL}/api/provider/welcome`, { ...answer, provider: { id: '12', name: 'Acme Payments', is_active: 1 } });
    const result = await provider.welcome();
    expect(result.provider).toEqual({ id: 12, name: 'Acme Payments', is_active: true });
  });
});

describe('provider.sites.list', () => {
  const answer = {
    success: true,
    provider: { id: 12, name: 'Acme Payments' },
    total_sites: 2,
    sites: [
      { id: 7, name: 'Shop', is_active: true, created_at: '2026-01-05 09:00:00' },
      { id: 8, name: 'Casino', is_active: false, created_at: '2026-02-10 12:30:00' },
    ],
    timestamp: '2026-11-22 10:00:00',
  };

  test('POSTs no body to /api/provider/sites with the key hash and the X-Key header', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/sites`, answer);
    const result = await provider.sites.list({ key: X_KEY });

    expect(seen).toHaveLength(1);
    expectProviderRequest(seen[0]!, { path: '/sites', signing: { hash: 'key', key: X_KEY }, body: '' });
    expect(result).toEqual(answer);
  });

  test('signs with the key even when a credential key is set on the client', async () => {
    const seen = capture('post', `${BASE_URL}/api/provider/sites`, answer);
    await provider.withSite(PROVIDER.credentialKey).sites.list({ key: X_KEY });
    expectProviderRequest(seen[0]!, { path: '/sites', signing: { hash: 'key', key: X_KEY }, body: '' });
  });

  test.each([
    ['a blank key', { key: ' ' }, [['key', 'invalid_format']]],
    ['a missing key', {}, [['key', 'invalid_type']]],
    ['an unknown parameter', { key: X_KEY, page: 2 }, [['page', 'unrecognized_keys']]],
  ])('refuses %s and sends nothing', async (_label, params, issues) => {
    const seen = capture('post', `${BASE_URL}/api/provider/sites`, answer);
    // @ts-expect-error each case breaks the parameter type on purpose
    const error = await provider.sites.list(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual(issues);
    expect(seen).toHaveLength(0);
  });
});
