import { describe, expect, test } from 'vitest';
import { AuthenticationError, PermissionDeniedError, ProviderClient } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { SANDBOX_BASE_URL, customer, handSigned, providerOf, read } from '../helpers/sandbox.js';

const sandbox = createSandbox();
const { provider, dealer } = sandbox.accounts;
const [site] = provider.sites;
const welcome = `${SANDBOX_BASE_URL}/api/provider/welcome`;
const sites = `${SANDBOX_BASE_URL}/api/provider/sites`;
const deposit = `${SANDBOX_BASE_URL}/api/provider/start-manual-deposit`;
const settings = `${SANDBOX_BASE_URL}/api/dealer/settings`;
const now = () => Math.floor(Date.now() / 1000);

const refusal = (status: number, error: string) => ({ status, body: { success: false, error, message: expect.any(String) } });

describe('provider authentication (spec 5.1, 7.1)', () => {
  test('a request signed by hand with the basic hash is accepted', async () => {
    const { status, body } = await read(await sandbox.fetch(handSigned(welcome, provider)));
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, provider: { name: 'Sandbox Provider', is_active: true } });
  });

  test.each(['X-Api-Key', 'X-Hash', 'X-Timestamp'] as const)('a missing %s is 401 "Missing required headers"', async (header) => {
    expect(await read(await sandbox.fetch(handSigned(welcome, { ...provider, omit: [header] })))).toEqual(refusal(401, 'Missing required headers'));
  });

  test('an unknown API key is 401 "Invalid API key"', async () => {
    expect(await read(await sandbox.fetch(handSigned(welcome, { ...provider, apiKey: 'prov_api_unknown' })))).toEqual(refusal(401, 'Invalid API key'));
  });

  test('the dealer API key is not a provider key', async () => {
    expect(await read(await sandbox.fetch(handSigned(welcome, dealer)))).toEqual(refusal(401, 'Invalid API key'));
  });

  test.each([
    ['301 seconds old', -301],
    ['301 seconds ahead', 301],
  ])('a timestamp %s is 401 "Request timestamp expired"', async (_label, shift) => {
    expect(await read(await sandbox.fetch(handSigned(welcome, { ...provider, timestamp: now() + shift })))).toEqual(refusal(401, 'Request timestamp expired'));
  });

  test('a timestamp 290 seconds old is still accepted', async () => {
    expect((await sandbox.fetch(handSigned(welcome, { ...provider, timestamp: now() - 290 }))).status).toBe(200);
  });

  test('a timestamp in milliseconds is 401 "Request timestamp expired"', async () => {
    expect(await read(await sandbox.fetch(handSigned(welcome, { ...provider, timestamp: Date.now() })))).toEqual(refusal(401, 'Request timestamp expired'));
  });

  test('a hash made with another secret is 401 "Invalid hash"', async () => {
    expect(await read(await sandbox.fetch(handSigned(welcome, { ...provider, secretKey: 'not-the-secret' })))).toEqual(refusal(401, 'Invalid hash'));
  });

  test('a hash for another timestamp is 401 "Invalid hash"', async () => {
    const request = handSigned(welcome, { ...provider, headers: { 'X-Timestamp': String(now() - 1) } });
    expect(await read(await sandbox.fetch(request))).toEqual(refusal(401, 'Invalid hash'));
  });

  test('Content-Type is not required: the body is read as JSON whatever it says', async () => {
    const request = handSigned(deposit, { ...provider, between: site.credentialKey, headers: { 'X-Credential-Key': site.credentialKey, 'Content-Type': 'text/plain' }, body: JSON.stringify({ ...customer, amount: 5 }) });
    expect((await sandbox.fetch(request)).status).toBe(200);
  });

  test('moving the record clock does not move the time signatures are checked against', async () => {
    const local = createSandbox();
    await local.clock.advance(86_400_000);
    expect((await local.fetch(handSigned(welcome, local.accounts.provider))).status).toBe(200);
    expect((await local.fetch(handSigned(welcome, { ...local.accounts.provider, timestamp: now() + 86_400 }))).status).toBe(401);
  });

  test('every answer carries a Date header, from which the SDK learns a clock skew', async () => {
    const response = await sandbox.fetch(handSigned(welcome, { ...provider, timestamp: now() - 3600 }));
    expect(Math.abs(Date.parse(response.headers.get('date') ?? '') - Date.now())).toBeLessThan(5000);
  });

  test('the SDK maps the refusal to AuthenticationError with its reason', async () => {
    const client = new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey: provider.apiKey, secretKey: 'not-the-secret', fetch: sandbox.fetch, maxRetries: 0 });
    const error = await client.welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).reason).toBe('invalid_hash');
  });
});

describe('the key hash of the site list', () => {
  test('accepts X-Key with the key hash', async () => {
    const { status, body } = await read(await sandbox.fetch(handSigned(sites, { ...provider, between: provider.key, headers: { 'X-Key': provider.key } })));
    expect(status).toBe(200);
    expect(body['total_sites']).toBe(2);
  });

  test('a missing X-Key is 401 "Missing required headers"', async () => {
    expect(await read(await sandbox.fetch(handSigned(sites, { ...provider, between: provider.key })))).toEqual(refusal(401, 'Missing required headers'));
  });

  test('another X-Key, even hashed consistently, is 401 "Invalid hash"', async () => {
    const request = handSigned(sites, { ...provider, between: 'other-key', headers: { 'X-Key': 'other-key' } });
    expect(await read(await sandbox.fetch(request))).toEqual(refusal(401, 'Invalid hash'));
  });

  test('the basic hash is refused where the key hash is required', async () => {
    expect(await read(await sandbox.fetch(handSigned(sites, { ...provider, headers: { 'X-Key': provider.key } })))).toEqual(refusal(401, 'Invalid hash'));
  });
});

describe('the credential hash and credential-key ownership (spec 5.1 rule 3, 7.3)', () => {
  const body = JSON.stringify({ ...customer, amount: 100 });

  test('accepts either site credential key, and the record belongs to that site', async () => {
    for (const each of provider.sites) {
      const request = handSigned(deposit, { ...provider, between: each.credentialKey, headers: { 'X-Credential-Key': each.credentialKey }, body });
      const answer = await read(await sandbox.fetch(request));
      expect(answer.status).toBe(200);
      expect(answer.body['data']).toMatchObject({ site: { id: each.id, name: each.name } });
    }
  });

  test('a missing X-Credential-Key is 401 "Missing required headers"', async () => {
    const request = handSigned(deposit, { ...provider, between: site.credentialKey, body });
    expect(await read(await sandbox.fetch(request))).toEqual(refusal(401, 'Missing required headers'));
  });

  test('a credential key of no site of the provider is 403 "Yetkisiz Credential Key"', async () => {
    const request = handSigned(deposit, { ...provider, between: 'site_cred_foreign', headers: { 'X-Credential-Key': 'site_cred_foreign' }, body });
    expect(await read(await sandbox.fetch(request))).toEqual(refusal(403, 'Yetkisiz Credential Key'));
  });

  test('a hash over another credential key than the header is 401 "Invalid hash"', async () => {
    const request = handSigned(deposit, { ...provider, between: provider.sites[1]?.credentialKey ?? '', headers: { 'X-Credential-Key': site.credentialKey }, body });
    expect(await read(await sandbox.fetch(request))).toEqual(refusal(401, 'Invalid hash'));
  });

  test("an inactive site's credential key is still accepted: the spec gives no rule for it", async () => {
    const local = createSandbox({ provider: { sites: [{ id: 1, name: 'Closed', credentialKey: 'cred-closed', active: false }] } });
    const request = handSigned(deposit, { ...local.accounts.provider, between: 'cred-closed', headers: { 'X-Credential-Key': 'cred-closed' }, body });
    expect((await local.fetch(request)).status).toBe(200);
  });

  test('nothing is created by a refused request', async () => {
    const local = createSandbox();
    const request = handSigned(deposit, { ...local.accounts.provider, between: 'site_cred_foreign', headers: { 'X-Credential-Key': 'site_cred_foreign' }, body });
    await local.fetch(request);
    expect(local.records()).toEqual([]);
  });
});

describe('the account checks of spec 5.1 rule 4', () => {
  test('an inactive provider is 403 "Provider account is inactive", reported by the SDK as PermissionDeniedError', async () => {
    const inactive = createSandbox({ provider: { active: false } });
    expect(await read(await inactive.fetch(handSigned(welcome, inactive.accounts.provider)))).toEqual(refusal(403, 'Provider account is inactive'));
    const error = await providerOf(inactive).welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).reason).toBe('provider_inactive');
  });

  test('a caller outside the whitelist is 403 "IP address not allowed"', async () => {
    const answer = await sandbox.handle(handSigned(welcome, provider), { clientAddress: '203.0.113.7' });
    expect(await read(answer)).toEqual(refusal(403, 'IP address not allowed'));
  });

  test('a whitelist without loopback refuses in-process calls', async () => {
    const remote = createSandbox({ provider: { ipWhitelist: ['203.0.113.7'] } });
    expect((await remote.fetch(handSigned(welcome, remote.accounts.provider))).status).toBe(403);
    expect((await remote.handle(handSigned(welcome, remote.accounts.provider), { clientAddress: '203.0.113.7' })).status).toBe(200);
  });

  test('an IPv4 address in IPv6 form matches its IPv4 whitelist entry', async () => {
    expect((await sandbox.handle(handSigned(welcome, provider), { clientAddress: '::ffff:127.0.0.1' })).status).toBe(200);
  });

  test('a bad signature is reported before the account checks', async () => {
    const answer = await sandbox.handle(handSigned(welcome, { ...provider, secretKey: 'wrong' }), { clientAddress: '203.0.113.7' });
    expect(await read(answer)).toEqual(refusal(401, 'Invalid hash'));
  });
});

describe('dealer authentication (spec 5.2)', () => {
  test('a request signed by hand with the basic hash is accepted', async () => {
    const { status, body } = await read(await sandbox.fetch(handSigned(settings, { ...dealer, method: 'GET' })));
    expect(status).toBe(200);
    expect(body['dealer_name']).toBe('Sandbox Dealer');
  });

  test.each([
    ['a missing X-Hash', { omit: ['X-Hash'] as const }, 'Missing required headers'],
    ['the provider API key', { apiKey: provider.apiKey }, 'Invalid API key'],
    ['an old timestamp', { timestamp: now() - 600 }, 'Request timestamp expired'],
    ['another secret', { secretKey: 'wrong' }, 'Invalid hash'],
  ])('%s is refused with the 7.1 answer', async (_label, change, error) => {
    expect(await read(await sandbox.fetch(handSigned(settings, { ...dealer, method: 'GET', ...change })))).toEqual(refusal(401, error));
  });

  test('the provider whitelist and active flag do not apply to the dealer', async () => {
    const closed = createSandbox({ provider: { active: false, ipWhitelist: [] } });
    const answer = await closed.handle(handSigned(settings, { ...closed.accounts.dealer, method: 'GET' }), { clientAddress: '203.0.113.7' });
    expect(answer.status).toBe(200);
  });
});
