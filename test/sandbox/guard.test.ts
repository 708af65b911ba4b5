import { afterEach, describe, expect, test } from 'vitest';
import { ProviderClient, RequestValidationError } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../src/tools/sandbox/index.js';
import { customer, providerOf, rawRequest } from '../helpers/sandbox.js';
import { sha256 } from '../helpers/wire.js';

/** Spec 5.1's headers, hashed in the test. */
function signedHeaders(apiKey: string, secretKey: string, between = ''): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return { 'Content-Type': 'application/json', 'X-Api-Key': apiKey, 'X-Timestamp': timestamp, 'X-Hash': sha256(apiKey, secretKey, between, timestamp) };
}

/*
 * The controls answer only to the sandbox's own users. Every request here goes over
 * a real socket with the headers an attacker's page would make a browser send.
 */

let running: RunningSandbox | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(sandbox: Sandbox, options: { host?: string } = {}): Promise<string> {
  running = await sandbox.listen({ port: 0, ...options });
  return running.url;
}

const json = { 'Content-Type': 'application/json' };

async function startDeposit(sandbox: Sandbox): Promise<string> {
  const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 250 });
  return data.tracking_code;
}

describe('the Host header (DNS rebinding)', () => {
  test('a control addressed to a foreign host name is refused 403, naming the allowed names, and reveals nothing', async () => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const port = new URL(url).port;
    const forged = await rawRequest(url, '/__sandbox/accounts', { headers: { Host: `rebind.attacker.example:${port}` } });
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.text)).toEqual({ success: false, error: 'Forbidden', message: expect.stringContaining('not to Host "rebind.attacker.example:') as unknown });
    expect(forged.text).not.toContain(sandbox.accounts.provider.secretKey);
  });

  test.each([
    ['a user-info trick', 'attacker.example@127.0.0.1'],
    ['a private address', '10.0.0.5'],
    ['a look-alike', '127.0.0.1.attacker.example'],
    ['a path in the Host', '127.0.0.1/x'],
  ])('%s is refused', async (_, host) => {
    const url = await serve(createSandbox());
    expect((await rawRequest(url, '/__sandbox/accounts', { headers: { Host: host } })).status).toBe(403);
  });

  test.each(['127.0.0.1', 'localhost', 'sandbox.localhost', '127.0.0.2'])('a loopback name (%s) is served', async (name) => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const answer = await rawRequest(url, '/__sandbox/accounts', { headers: { Host: `${name}:${new URL(url).port}` } });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ accounts: { provider: { apiKey: sandbox.accounts.provider.apiKey } } });
  });

  test("publicUrl's host is served; a foreign host still is not", async () => {
    const url = await serve(createSandbox({ publicUrl: 'https://pay-sandbox.example.test' }));
    expect((await rawRequest(url, '/__sandbox/clock', { headers: { Host: 'pay-sandbox.example.test' } })).status).toBe(200);
    expect((await rawRequest(url, '/__sandbox/clock', { headers: { Host: 'other.example.test' } })).status).toBe(403);
  });

  test('the API endpoints answer any Host: they need the signature, which the controls keep from foreign pages', async () => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const { apiKey, secretKey } = sandbox.accounts.provider;
    const answer = await rawRequest(url, '/api/provider/welcome', { method: 'POST', headers: { ...signedHeaders(apiKey, secretKey), Host: 'api.example.test' } });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ success: true });
  });

  test('an absolute-form request target cannot replace the origin: 400', async () => {
    const url = await serve(createSandbox());
    expect((await rawRequest(url, 'http://attacker.example/__sandbox/accounts')).status).toBe(400);
  });
});

describe('the content type (cross-site form posts)', () => {
  test.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['text/plain;charset=UTF-8 (fetch with a string body)', { 'Content-Type': 'text/plain;charset=UTF-8' }],
    ['a form', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['multipart', { 'Content-Type': 'multipart/form-data; boundary=x' }],
    ['no content type (a no-cors fetch without a body)', {}],
    ['a JSON look-alike', { 'Content-Type': 'text/plain; application/json' }],
  ])('POST /__sandbox/settle with %s is refused 415 and settles nothing', async (_, headers) => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const id = await startDeposit(sandbox);
    const answer = await rawRequest(url, '/__sandbox/settle', { method: 'POST', headers, body: JSON.stringify({ id, status: 'completed' }) });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject({ error: 'Unsupported Media Type', message: expect.stringContaining('application/json') as unknown });
    expect(sandbox.record(id)?.status).toBe('showing');
  });

  test('every state-changing control refuses a text/plain body: clock, callback URLs, redeliver', async () => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const before = sandbox.clock.now().getTime();
    const text = { 'Content-Type': 'text/plain' };
    expect((await rawRequest(url, '/__sandbox/clock', { method: 'POST', headers: text, body: '{"advanceSeconds":86400}' })).status).toBe(415);
    expect((await rawRequest(url, '/__sandbox/callback-urls', { method: 'PUT', headers: text, body: '{"deposit":"http://attacker.example/"}' })).status).toBe(415);
    expect((await rawRequest(url, '/__sandbox/deliveries/dlv_1/redeliver', { method: 'POST', headers: text, body: '{}' })).status).toBe(415);
    expect(sandbox.clock.now().getTime() - before).toBeLessThan(60_000);
  });

  test('the same control with application/json works', async () => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const id = await startDeposit(sandbox);
    const answer = await rawRequest(url, '/__sandbox/settle', { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: JSON.stringify({ id, status: 'completed' }) });
    expect(answer.status).toBe(200);
    expect(sandbox.record(id)?.status).toBe('completed');
  });
});

describe('payment URLs', () => {
  test('come from the listening address, whatever Host the creating request carried', async () => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const { apiKey, secretKey, sites } = sandbox.accounts.provider;
    const credentialKey = sites[0].credentialKey;
    const answer = await rawRequest(url, '/api/provider/start-manual-deposit', {
      method: 'POST',
      headers: { ...signedHeaders(apiKey, secretKey, credentialKey), 'X-Credential-Key': credentialKey, Host: 'attacker.example' },
      body: JSON.stringify({ ...customer, amount: 100 }),
    });
    const { data } = JSON.parse(answer.text) as { data: { tracking_code: string; payment_url: string } };
    expect(data.payment_url).toBe(`${url}/__sandbox/records/${encodeURIComponent(data.tracking_code)}`);
  });

  test('come from publicUrl when one is set', async () => {
    const sandbox = createSandbox({ publicUrl: 'https://pay-sandbox.example.test/ignored/path' });
    const url = await serve(sandbox);
    const { apiKey, secretKey, sites } = sandbox.accounts.provider;
    const provider = new ProviderClient({ baseUrl: url, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 });
    const { data } = await provider.manual.startDeposit({ ...customer, amount: 100 });
    expect(data.payment_url).toBe(`https://pay-sandbox.example.test/__sandbox/records/${encodeURIComponent(data.tracking_code)}`);
  });
});

describe('bounded inputs', () => {
  async function clock(url: string, body: unknown) {
    const answer = await rawRequest(url, '/__sandbox/clock', { method: 'POST', headers: json, body: JSON.stringify(body) });
    return { status: answer.status, body: JSON.parse(answer.text) as { messages?: string[]; message?: string } };
  }

  test.each([
    ['1e308 seconds', { advanceSeconds: 1e308 }],
    ['a negative advance', { advanceSeconds: -60 }],
    ['a string', { advanceSeconds: '60' }],
    ['a year past 9999', { set: '+010000-01-01T00:00:00Z' }],
    ['a time before 1970', { set: '1969-12-31T23:59:59Z' }],
    ['not a time', { set: 'tomorrow' }],
  ])('POST /__sandbox/clock with %s is refused 422 with a message, and the clock still works', async (_, body) => {
    const sandbox = createSandbox({ startTime: Date.UTC(2026, 0, 15, 9) });
    const url = await serve(sandbox);
    const answer = await clock(url, body);
    expect(answer.status).toBe(422);
    expect(answer.body.messages?.join(' ') ?? '').not.toBe('');
    expect(sandbox.clock.now().toISOString()).toBe('2026-01-15T09:00:00.000Z');
    expect((await clock(url, { advanceSeconds: 60 })).status).toBe(200);
    expect(sandbox.clock.now().toISOString()).toBe('2026-01-15T09:01:00.000Z');
  });

  test.each([
    ['advance', Number.NaN, 'milliseconds', 'must be a finite number of milliseconds from 0 to'],
    ['advance', Infinity, 'milliseconds', 'got Infinity'],
    ['advance', -1, 'milliseconds', 'got -1'],
    ['advance', 1e300, 'milliseconds', 'the record clock ends at 9999-12-31'],
    ['set', new Date(Number.NaN), 'time', 'must be a Date or milliseconds since 1970, from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.000Z; got an invalid Date'],
    ['set', Date.UTC(10_000, 0, 1), 'time', 'got 253402300800000'],
  ] as const)('clock.%s(%s) is refused at once as an option out of range (invalid_option, naming %s and the range)', async (method, value, field, expected) => {
    const sandbox = createSandbox({ startTime: Date.UTC(2026, 0, 15, 9) });
    let caught: unknown;
    try {
      void sandbox.clock[method](value as number);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestValidationError);
    const error = caught as RequestValidationError;
    expect(error.outcome).toBe('not_sent');
    expect(error.issues).toEqual([{ field, rule: 'invalid_option', message: expect.stringContaining(expected) as string }]);
    expect(error.message).toMatch(new RegExp(`^Invalid option for sandbox\\.clock\\.${method}: ${field}: must be `));
    await sandbox.clock.advance(1000);
    expect(sandbox.clock.now().toISOString()).toBe('2026-01-15T09:00:01.000Z');
  });

  /** Bad settle options: both ways in refuse them by the same check. */
  const BAD_SETTLES = [
    ['amount too large', { amount: 1e300 }],
    ['amount zero', { amount: 0 }],
    ['resign not a boolean', { resign: 'no' }],
    ['an unknown field', { amountt: 10 }],
    ['also that is not a list', { also: 'failed' }],
  ] as const;

  test.each(BAD_SETTLES)('sandbox.settle() with %s is refused and settles nothing', async (_, extra) => {
    const sandbox = createSandbox();
    const id = await startDeposit(sandbox);
    await expect(sandbox.settle(id, 'completed', extra as never)).rejects.toThrow(/amount|resign|amountt|also/);
    expect(sandbox.record(id)?.status).toBe('showing');
  });

  test.each(BAD_SETTLES)('POST /__sandbox/settle with %s is refused 422 and settles nothing', async (_, extra) => {
    const sandbox = createSandbox();
    const url = await serve(sandbox);
    const id = await startDeposit(sandbox);
    const answer = await rawRequest(url, '/__sandbox/settle', { method: 'POST', headers: json, body: JSON.stringify({ id, status: 'completed', ...extra }) });
    expect(answer.status).toBe(422);
    expect(sandbox.record(id)?.status).toBe('showing');
  });

  test('callback URLs must be http or https', async () => {
    const url = await serve(createSandbox());
    for (const target of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url']) {
      const answer = await rawRequest(url, '/__sandbox/callback-urls', { method: 'PUT', headers: json, body: JSON.stringify({ deposit: target }) });
      expect(answer.status).toBe(422);
    }
  });

  test('a malformed percent-encoding in a path is an unknown id, not a crash', async () => {
    const url = await serve(createSandbox());
    expect((await rawRequest(url, '/__sandbox/records/%E0%A4%A')).status).toBe(404);
  });

  test.each([
    [{ callbackRetry: { attempts: 0 } }, /callbackRetry\.attempts: must be an integer from 1 to 20; got 0/],
    [{ callbackRetry: { timeoutMs: 2 ** 31 } }, /callbackRetry\.timeoutMs/],
    [{ callbackRetry: { backoffMs: Number.NaN } }, /callbackRetry\.backoffMs/],
    [{ maxRecords: 0 }, /maxRecords/],
    [{ maxDeliveries: 1.5 }, /maxDeliveries/],
    [{ lifetimeSeconds: Infinity }, /lifetimeSeconds/],
    [{ publicUrl: 'ftp://example.test' }, /publicUrl: must be an absolute http or https URL; got "ftp:\/\/example.test"/],
    [{ startTime: new Date(Number.NaN) }, /startTime: .*got an invalid Date/],
  ])('createSandbox(%o) is refused with a RequestValidationError naming the option', (options, message) => {
    expect(() => createSandbox(options)).toThrow(message);
    expect(() => createSandbox(options)).toThrow(RequestValidationError);
  });
});

describe('memory over a long run', () => {
  test('past maxRecords the oldest records are forgotten', async () => {
    const sandbox = createSandbox({ maxRecords: 3 });
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push(await startDeposit(sandbox));
    expect(sandbox.records().map((record) => record.id)).toEqual(ids.slice(2));
    expect(sandbox.record(ids[0] ?? '')).toBeUndefined();
  });

  test('past maxDeliveries the oldest deliveries are forgotten, and cannot be redelivered', async () => {
    const sandbox = createSandbox({ maxDeliveries: 2, callbackUrls: { deposit: 'http://127.0.0.1:9/unreachable' }, callbackRetry: { attempts: 1, timeoutMs: 2000 } });
    const results = [];
    for (let index = 0; index < 3; index++) results.push((await sandbox.settle(await startDeposit(sandbox), 'canceled')).callback);
    expect(sandbox.deliveries().map((attempt) => attempt.deliveryId)).toEqual([results[1]?.id, results[2]?.id]);
    await expect(sandbox.redeliver(results[0]?.id ?? '')).rejects.toMatchObject({ name: 'SandboxError', code: 'unknown_delivery' });
  });
});
