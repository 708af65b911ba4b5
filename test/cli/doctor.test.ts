import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { refusedPort, json, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import { expectNoSecret, jsonOf, listeningSandbox, payorch } from './run.js';
import type { Run } from './run.js';

closeLoopbackServers();

interface Check {
  account: string;
  name: string;
  outcome: string;
  detail: string;
  fix?: string;
}
const checksOf = (run: Run) => (jsonOf(run) as { ok: boolean; checks: Check[] }).checks;
const check = (run: Run, account: string, name: string) => checksOf(run).find((entry) => entry.account === account && entry.name === name);

async function doctor(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return payorch(['doctor', '--json', ...args], env);
}

describe('payorch doctor', { timeout: 30_000 }, () => {
  test('against a healthy service every check passes for the provider and the dealer: exit 0', async () => {
    const sandbox = await listeningSandbox();
    try {
      const run = await payorch(['doctor'], sandbox.env);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ok +provider authentication signed request accepted/m);
      expect(run.stdout).toMatch(/^ok +dealer +authentication signed request accepted/m);
      expect(run.stdout).toMatch(/^ok +provider clock +in step with the service/m);
      expect(run.stdout).toMatch(/All checks passed\.\n$/);
      expectNoSecret(run, sandbox.env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '', sandbox.env['PAYORCH_DEALER_SECRET_KEY'] ?? '');
    } finally {
      await sandbox.close();
    }
  });

  test.each([
    ['a wrong secret key', {}, { PAYORCH_PROVIDER_SECRET_KEY: 'wrong_secret_value' }, 'invalid_hash', /check PAYORCH_PROVIDER_SECRET_KEY/],
    ['an unknown API key', {}, { PAYORCH_PROVIDER_API_KEY: 'prov_api_unknown' }, 'invalid_api_key', /check PAYORCH_PROVIDER_API_KEY/],
    ['an inactive account', { provider: { active: false } }, {}, 'provider_inactive', /ask the service operator to activate it/],
    ['an IP address outside the whitelist', { provider: { ipWhitelist: ['10.9.9.9'] } }, {}, 'ip_not_allowed', /whitelist/],
  ] as const)('%s: the refusal of spec 7.1 with its likely fix, exit 1', async (_name, options, override, reason, fix) => {
    const sandbox = await listeningSandbox(options);
    try {
      const run = await doctor({ ...sandbox.env, ...override });
      expect(run.code).toBe(1);
      const auth = check(run, 'provider', 'authentication');
      expect(auth?.outcome).toBe('fail');
      expect(auth?.detail).toContain(`(${reason})`);
      expect(auth?.fix).toMatch(fix);
      expect(check(run, 'provider', 'reachability')?.outcome).toBe('ok');
      // The dealer's keys are fine: its checks pass.
      expect(check(run, 'dealer', 'authentication')?.outcome).toBe('ok');
      expectNoSecret(run, 'wrong_secret_value', sandbox.env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '');
    } finally {
      await sandbox.close();
    }
  });

  test('a clock ten minutes off: the offset from the Date header, and the expired timestamp it causes', async () => {
    const server = await startServer((_request, response) => json(response, 401, { success: false, error: 'Request timestamp expired', message: 'X-Timestamp is too old' }, { date: new Date(Date.now() + 600_000).toUTCString() }));
    const run = await doctor({ PAYORCH_BASE_URL: server.url, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(run.code).toBe(1);
    const clock = check(run, 'provider', 'clock');
    expect(clock?.outcome).toBe('fail');
    expect(clock?.detail).toMatch(/this machine is (59\d|60\d) s behind the service/);
    expect(check(run, 'provider', 'authentication')).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('(timestamp_expired)') as unknown, fix: expect.stringContaining('synchronise') as unknown });
    // Without dealer keys the dealer is skipped, and says which variables would enable it.
    expect(check(run, 'dealer', 'authentication')).toMatchObject({ outcome: 'skip', detail: expect.stringContaining('PAYORCH_DEALER_API_KEY') as unknown });
  });

  test('a receiver clock ten minutes fast, which callbacks alone never show, fails the clock check', async () => {
    const server = await startServer((_request, response) => json(response, 200, { success: true, provider: { id: 1, name: 'P', is_active: true } }, { date: new Date(Date.now() - 600_000).toUTCString() }));
    const run = await doctor({ PAYORCH_BASE_URL: server.url, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(run.code).toBe(1);
    expect(check(run, 'provider', 'clock')).toMatchObject({ outcome: 'fail', detail: expect.stringMatching(/this machine is (59\d|60\d) s ahead of the service/) as unknown });
  });

  test('a host that accepts and never answers: both accounts are checked at once, each bounded by --timeout, so the run takes one timeout, not the sum', async () => {
    const timeoutMs = 2000;
    const arrivals: number[] = [];
    const server = await startServer(() => {
      arrivals.push(Date.now());
      // Never answers.
    });
    const started = Date.now();
    const run = await doctor({ PAYORCH_BASE_URL: server.url, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b', PAYORCH_DEALER_API_KEY: 'c', PAYORCH_DEALER_SECRET_KEY: 'd' }, '--timeout', String(timeoutMs));
    const elapsed = Date.now() - started;
    expect(run.code).toBe(1);
    for (const account of ['provider', 'dealer']) {
      expect(check(run, account, 'reachability')).toMatchObject({ outcome: 'fail', detail: `no answer from ${server.url} within ${timeoutMs} ms` });
    }
    // Both requests were in flight together: the second did not wait for the first to time out.
    expect(arrivals).toHaveLength(2);
    expect(Math.abs((arrivals[1] ?? 0) - (arrivals[0] ?? 0))).toBeLessThan(timeoutMs / 2);
    // A generous bound: one timeout plus start-up, well short of the two a sequential run takes.
    expect(elapsed).toBeLessThan(1.75 * timeoutMs);
  });

  test('a service that echoes the hash and the secret key in its 200: the greeting is printed with both redacted', async () => {
    const secretKey = 'echoed_secret_key_value';
    const server = await startServer((request, response) => {
      json(response, 200, { success: true, message: `you sent hash ${String(request.headers['x-hash'])} with secret ${secretKey}`, provider: {} });
    });
    for (const args of [['--json'], []]) {
      const run = await payorch(['doctor', ...args], { PAYORCH_BASE_URL: server.url, PAYORCH_PROVIDER_API_KEY: 'echo_api_key', PAYORCH_PROVIDER_SECRET_KEY: secretKey });
      expect(run.stdout).toContain('signed request accepted: you sent hash [redacted] with secret [redacted]');
      expectNoSecret(run, secretKey, ...server.seen.map((seen) => String(seen.headers['x-hash'])));
    }
  });

  test('a 502 from a proxy fails authentication with the status, and no advice for a payment: the probe only reads', async () => {
    const server = await startServer((_request, response) => {
      json(response, 502, { error: 'bad gateway' });
    });
    const run = await doctor({ PAYORCH_BASE_URL: server.url, PAYORCH_PROVIDER_API_KEY: 'a_key', PAYORCH_PROVIDER_SECRET_KEY: 'a_secret' });
    expect(run.code).toBe(1);
    const detail = check(run, 'provider', 'authentication')?.detail ?? '';
    expect(detail).toMatch(/^InternalServerError: .*\(HTTP 502, POST \/api\/provider\/welcome\)\. The service may have processed it; receiving it twice moves no money, so it is safe to retry\.$/);
    expect(detail).not.toContain('payment');
  });

  test('nothing listening: reachability fails with the cause and a fix', async () => {
    const run = await doctor({ PAYORCH_BASE_URL: `http://127.0.0.1:${await refusedPort()}`, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(run.code).toBe(1);
    expect(check(run, 'provider', 'reachability')).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('ECONNREFUSED') as unknown, fix: expect.stringContaining('nothing listens there') as unknown });
  });

  test('a certificate that is not trusted: TLS fails with the code and a fix', async () => {
    const cert = readFileSync(new URL('../fixtures/loopback-cert.pem', import.meta.url));
    const key = readFileSync(new URL('../fixtures/loopback-key.pem', import.meta.url));
    const server = createServer({ cert, key }, (_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const run = await doctor({ PAYORCH_BASE_URL: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
      expect(run.code).toBe(1);
      expect(check(run, 'provider', 'tls')).toMatchObject({ outcome: 'fail', detail: expect.stringMatching(/SELF_SIGNED|CERT/) as unknown, fix: expect.stringContaining('NODE_EXTRA_CA_CERTS') as unknown });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('a base URL ending in /api, a path the clients append themselves, fails with the root to use instead', async () => {
    const sandbox = await listeningSandbox();
    try {
      for (const suffix of ['/api', '/api/provider/']) {
        const run = await payorch(['doctor'], { ...sandbox.env, PAYORCH_BASE_URL: `${sandbox.url}${suffix}` });
        expect(run.code).toBe(1);
        expect(run.stdout).toContain("the base URL must be the service's root: payorch appends /api/provider and /api/dealer itself");
        expect(run.stdout).toContain(`fix: set PAYORCH_BASE_URL (or --base-url) to ${sandbox.url}/\n`);
        expect(run.stdout).not.toContain('All checks passed');
      }
    } finally {
      await sandbox.close();
    }
  });

  test("a reverse proxy's path prefix is the service's root: doctor probes below it, at the URL the clients call", async () => {
    const paths: string[] = [];
    const server = await startServer((request, response) => {
      paths.push(request.url ?? '');
      if (request.url === '/gateway/api/provider/welcome') json(response, 200, { success: true, message: 'Welcome' });
      else json(response, 404, { success: false, error: 'Not found' });
    });
    const run = await doctor({ PAYORCH_BASE_URL: `${server.url}/gateway/`, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(paths).toEqual(['/gateway/api/provider/welcome']);
    expect(check(run, 'provider', 'authentication')).toMatchObject({ outcome: 'ok', detail: 'signed request accepted: Welcome' });
  });

  test('a base URL that is not http(s) fails; missing keys are bad usage', async () => {
    const bad = await doctor({ PAYORCH_BASE_URL: 'pay.example.com', PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(bad.code).toBe(1);
    expect(check(bad, 'provider', 'reachability')?.detail).toBe('not an http(s) URL: pay.example.com');
    const missing = await payorch(['doctor'], { PAYORCH_BASE_URL: 'http://127.0.0.1:1' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--api-key is required (or set PAYORCH_PROVIDER_API_KEY)');
  });
});
