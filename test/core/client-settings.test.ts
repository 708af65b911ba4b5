import { afterEach, describe, expect, test, vi } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError } from '../../src/index.js';
import type { Logger } from '../../src/index.js';
import { CUSTOMER, closeLoopbackServers, json, noBackoff, providerFor, startServer, WELCOME } from '../helpers/loopback.js';
import { DEALER, PROVIDER } from '../helpers/wire.js';

/*
 * withOptions(): a client with other settings and the same identity; and logging that works with
 * no code: a console logger at `warn`, `logLevel`, PAYORCH_LOG.
 */

closeLoopbackServers();
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const DEPOSIT = { ...CUSTOMER, amount: 250 };

describe('withOptions', () => {
  test('changes the settings, keeps the keys and the site key withSite gave, and leaves the original as it was', async () => {
    noBackoff();
    const server = await startServer((_request, response) => json(response, 503, { success: false, error: 'down' }));
    const base = providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 0, logLevel: 'off' });
    const site = base.withSite('site_cred_second_77');
    const patient = site.withOptions({ maxRetries: 2 });
    await patient.welcome().catch(() => undefined);
    expect(server.seen).toHaveLength(3);
    await patient.manual.startDeposit(DEPOSIT).catch(() => undefined);
    expect(server.seen.at(-1)?.headers['x-credential-key']).toBe('site_cred_second_77');
    await site.welcome().catch(() => undefined);
    expect(server.seen).toHaveLength(5);
  });

  test('uses the fetch and hooks it is given', async () => {
    const seen: string[] = [];
    const dealer = new DealerClient({ baseUrl: 'https://pay.example.com', ...DEALER, maxRetries: 0 });
    const stubbed = dealer.withOptions({ fetch: (input) => { seen.push((input as Request).url); return Promise.resolve(Response.json({ success: true, dealer_name: 'D', payment_methods: {} })); } });
    await stubbed.settings.get().catch(() => undefined);
    expect(seen).toEqual(['https://pay.example.com/api/dealer/settings']);
  });

  test.each([
    ['apiKey', { apiKey: 'other' }],
    ['secretKey', { secretKey: 'other' }],
    ['baseUrl', { baseUrl: 'https://other.example.com' }],
    ['allowInsecureHttp', { allowInsecureHttp: true }],
    ['credentialKey', { credentialKey: 'other' }],
  ])('refuses %s, naming it: it makes another client', (name, settings) => {
    const provider = new ProviderClient({ baseUrl: 'https://pay.example.com', ...PROVIDER });
    const refusal = (() => {
      try {
        provider.withOptions(settings as never);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(RequestValidationError);
    expect((refusal as RequestValidationError).issues).toEqual([expect.objectContaining({ field: name, rule: 'invalid_option' })]);
    expect((refusal as Error).message).toMatch(new RegExp(`^Invalid option for provider.withOptions: ${name}: cannot be changed by withOptions\\(\\)`));
  });

  test('checks the settings as the constructor does', () => {
    const dealer = new DealerClient({ baseUrl: 'https://pay.example.com', ...DEALER });
    expect(() => dealer.withOptions({ timeout: -1 })).toThrow(RequestValidationError);
    expect(() => dealer.withOptions({ logLevel: 'verbose' as never })).toThrow(/logLevel/);
  });
});

describe('logging with no code', () => {
  const failing = async () => {
    noBackoff();
    return startServer((_request, response) => json(response, 503, { success: false, error: 'down for Ada' }));
  };

  test('writes retries to the console at warn by default, naming the call but no body; the failed call is its caller\'s to report (info)', async () => {
    const server = await failing();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    await providerFor(server, { maxRetries: 1 }).welcome().catch(() => undefined);
    expect(debug).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
    expect(warn.mock.calls).toEqual([['payorch ↻ POST /api/provider/welcome (provider.welcome): InternalServerError, HTTP 503; attempt 2 in 0 ms']]);
  });

  test('at info, the failed call too', async () => {
    const server = await failing();
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await providerFor(server, { maxRetries: 1, logLevel: 'info' }).welcome().catch(() => undefined);
    expect(info.mock.calls).toEqual([[expect.stringMatching(/^payorch ✗ POST \/api\/provider\/welcome \(provider\.welcome\) failed after 2 attempts in \d+ ms: InternalServerError, HTTP 503, outcome unknown$/)]]);
  });

  test.each([
    ['PAYORCH_LOG=debug', { env: 'debug' }, ['debug', 'warn', 'info']],
    ['PAYORCH_LOG=off', { env: 'off' }, []],
    ["logLevel 'error'", { option: 'error' }, []],
    ["logLevel 'off' over PAYORCH_LOG=debug", { env: 'debug', option: 'off' }, []],
    ['PAYORCH_LOG naming no level: the default', { env: 'loud' }, ['warn']],
  ] as const)('%s', async (_name, given, levels) => {
    const server = await failing();
    if ('env' in given) vi.stubEnv('PAYORCH_LOG', given.env);
    const written = new Set<string>();
    for (const level of ['debug', 'info', 'warn', 'error'] as const) vi.spyOn(console, level).mockImplementation(() => written.add(level));
    await providerFor(server, { maxRetries: 1, ...('option' in given ? { logLevel: given.option } : {}) }).welcome().catch(() => undefined);
    expect([...written].sort()).toEqual([...levels].sort());
  });

  test('a logger gets nothing below its level', async () => {
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    const built: string[] = [];
    const logger: Logger = { debug: () => built.push('debug'), info: () => built.push('info'), warn: () => built.push('warn'), error: () => built.push('error') };
    await providerFor(server, { logger, logLevel: 'warn' }).welcome();
    expect(built).toEqual([]);
  });
});
