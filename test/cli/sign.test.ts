import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { closeLoopbackServers } from '../helpers/loopback.js';
import { expectNoSecret, jsonOf, useListeningSandbox, payorch, expectUsageError } from './run.js';

closeLoopbackServers();

const sandbox = useListeningSandbox();

/** The `-H Name:value` words of the output as headers. */
function headersOf(stdout: string): Record<string, string> {
  const words = stdout.trim().split(' ');
  const headers: Record<string, string> = {};
  for (let i = 0; i < words.length; i += 2) {
    expect(words[i]).toBe('-H');
    const [name = '', ...value] = (words[i + 1] ?? '').split(':');
    headers[name] = value.join(':');
  }
  return headers;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('payorch sign', { timeout: 30_000 }, () => {
  test('basic: X-Api-Key, X-Timestamp and X-Hash = SHA-256(api_key + secret_key + timestamp), accepted by the service', async () => {
    const run = await payorch(['sign', 'basic'], sandbox.env);
    expect(run.code).toBe(0);
    const headers = headersOf(run.stdout);
    const { PAYORCH_PROVIDER_API_KEY: apiKey = '', PAYORCH_PROVIDER_SECRET_KEY: secretKey = '' } = sandbox.env;
    expect(Object.keys(headers)).toEqual(['X-Api-Key', 'X-Timestamp', 'X-Hash', 'Content-Type']);
    expect(headers['X-Hash']).toBe(sha256(`${apiKey}${secretKey}${headers['X-Timestamp']}`));
    expectNoSecret(run, secretKey);
    const answer = await fetch(`${sandbox.url}/api/provider/welcome`, { method: 'POST', headers });
    expect(answer.status).toBe(200);
  });

  test('key: adds X-Key from PAYORCH_SITES_KEY and hashes it between the secret and the timestamp; the site list accepts it', async () => {
    const run = await payorch(['sign', 'key'], sandbox.env);
    const headers = headersOf(run.stdout);
    expect(headers['X-Key']).toBe(sandbox.env['PAYORCH_SITES_KEY']);
    expect(headers['X-Hash']).toBe(sha256(`${sandbox.env['PAYORCH_PROVIDER_API_KEY']}${sandbox.env['PAYORCH_PROVIDER_SECRET_KEY']}${headers['X-Key']}${headers['X-Timestamp']}`));
    expect((await fetch(`${sandbox.url}/api/provider/sites`, { method: 'POST', headers })).status).toBe(200);
  });

  test('credential --credential-key: adds X-Credential-Key; a manual deposit is accepted with it', async () => {
    const credentialKey = sandbox.sandbox.accounts.provider.sites[1]!.credentialKey;
    const run = await payorch(['sign', 'credential', '--credential-key', credentialKey, '--json'], sandbox.env);
    expect(run.code).toBe(0);
    const headers = jsonOf(run) as Record<string, string>;
    expect(headers['X-Credential-Key']).toBe(credentialKey);
    const answer = await fetch(`${sandbox.url}/api/provider/start-manual-deposit`, { method: 'POST', headers, body: JSON.stringify({ fullname: 'Ada', username: 'ada', user_id: 'u-1', amount: 250 }) });
    expect(answer.status).toBe(200);
  });

  test.each([
    ['an API key from a file with Windows line endings', ['basic'], { PAYORCH_PROVIDER_API_KEY: 'prov_api_1\r\n' }, 'X-Api-Key (from --api-key or PAYORCH_PROVIDER_API_KEY)'],
    ['a dealer API key with a line feed', ['basic', '--dealer'], { PAYORCH_DEALER_API_KEY: 'dealer_api\nX-Injected: 1' }, 'X-Api-Key (from --api-key or PAYORCH_DEALER_API_KEY)'],
    ['a sites key with a carriage return', ['key'], { PAYORCH_SITES_KEY: 'sites\rkey' }, 'X-Key (from --key or PAYORCH_SITES_KEY)'],
    ['a credential key with a line feed', ['credential', '--credential-key', 'cred\nkey'], {}, 'X-Credential-Key (from --credential-key or PAYORCH_CREDENTIAL_KEY)'],
  ])('%s: refused as the clients refuse it, naming the header and where it came from; nothing printed', async (_case, args, env, named) => {
    await expectUsageError(['sign', ...args], { ...sandbox.env, ...env }, new RegExp(`${named.replace(/[()]/g, '\\$&')} contains a carriage return, line feed or other control character, which an HTTP header cannot carry`));
  });

  test('--dealer signs with the dealer keys; the Dealer API accepts it', async () => {
    const run = await payorch(['sign', 'basic', '--dealer'], sandbox.env);
    const headers = headersOf(run.stdout);
    expect(headers['X-Api-Key']).toBe(sandbox.env['PAYORCH_DEALER_API_KEY']);
    expectNoSecret(run, sandbox.env['PAYORCH_DEALER_SECRET_KEY'] ?? '');
    expect((await fetch(`${sandbox.url}/api/dealer/settings`, { headers })).status).toBe(200);
  });

  test.each([
    [['sign'], /name the hash: basic, key, credential/],
    [['sign', 'sha1'], /name the hash: basic, key, credential \(not sha1\)/],
    [['sign', 'basic', '--key', 'k'], /the basic hash covers no extra key/],
    [['sign', 'key', '--credential-key', 'c'], /--credential-key belongs to the credential hash/],
    [['sign', 'credential', '--dealer'], /the Dealer API signs every request with the basic hash/],
  ])('payorch %j is bad usage: exit 2', async (args, message) => {
    await expectUsageError(args, sandbox.env, message);
  });

  test('missing keys name the flag and the environment variable', async () => {
    const run = await payorch(['sign', 'credential'], { PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--credential-key is required (or set PAYORCH_CREDENTIAL_KEY)');
  });
});
