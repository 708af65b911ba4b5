import { afterEach, describe, expect, test, vi } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError, createCallbackReceiver } from '../../src/index.js';
import { environmentVariable } from '../../src/core/environment.js';
import { NOW_SECONDS, now, sign, unsigned } from '../helpers/callbacks.js';
import { WELCOME, json, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import { sha256 } from '../helpers/wire.js';

/*
 * A client or receiver built without keys reads them from the environment variables the CLI and
 * the examples use, as openai-node reads OPENAI_API_KEY; a key given always wins.
 */

closeLoopbackServers();
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

const PROVIDER_ENV = { PAYORCH_PROVIDER_API_KEY: 'prov_api_from_env', PAYORCH_PROVIDER_SECRET_KEY: 'prov_secret_from_env' };
const DEALER_ENV = { PAYORCH_DEALER_API_KEY: 'dealer_api_from_env', PAYORCH_DEALER_SECRET_KEY: 'dealer_secret_from_env' };
const DEALER_ENV_KEYS = { apiKey: 'dealer_api_given', secretKey: 'dealer_secret_given' };

function setEnvironment(values: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
}

function refusalOf(run: () => unknown): RequestValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestValidationError) return error;
    throw error;
  }
  throw new Error('accepted what should have been refused');
}

describe('the clients', () => {
  test('a ProviderClient built without keys signs with PAYORCH_PROVIDER_API_KEY and PAYORCH_PROVIDER_SECRET_KEY', async () => {
    setEnvironment({ ...PROVIDER_ENV, ...DEALER_ENV });
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    await new ProviderClient({ baseUrl: server.url }).welcome();
    const { headers } = server.seen[0]!;
    expect(headers['x-api-key']).toBe('prov_api_from_env');
    expect(headers['x-hash']).toBe(sha256('prov_api_from_env', 'prov_secret_from_env', String(headers['x-timestamp'])));
  });

  test('a DealerClient reads the dealer names, and its withOptions() client keeps the keys read', async () => {
    setEnvironment({ ...PROVIDER_ENV, ...DEALER_ENV });
    const server = await startServer((_request, response) => json(response, 200, { success: true, dealer_name: 'D', payment_methods: { credit_card: 'on', eiban: 'on', manual_iban: 'on' } }));
    const dealer = new DealerClient({ baseUrl: server.url });
    vi.unstubAllEnvs();
    await dealer.withOptions({ timeout: 5_000 }).settings.get();
    const { headers } = server.seen[0]!;
    expect(headers['x-api-key']).toBe('dealer_api_from_env');
    expect(headers['x-hash']).toBe(sha256('dealer_api_from_env', 'dealer_secret_from_env', String(headers['x-timestamp'])));
  });

  test('a client built with no argument reads the address and the keys from the environment, as one built with {} does', async () => {
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    setEnvironment({ ...PROVIDER_ENV, ...DEALER_ENV, PAYORCH_BASE_URL: server.url });
    await new ProviderClient().welcome();
    const { headers } = server.seen[0]!;
    expect(headers['x-api-key']).toBe('prov_api_from_env');
    expect(headers['x-hash']).toBe(sha256('prov_api_from_env', 'prov_secret_from_env', String(headers['x-timestamp'])));
    const dealerServer = await startServer((_request, response) => json(response, 200, { success: true, dealer_name: 'D', payment_methods: { credit_card: 'on', eiban: 'on', manual_iban: 'on' } }));
    setEnvironment({ PAYORCH_BASE_URL: dealerServer.url });
    await new DealerClient().settings.get();
    expect(dealerServer.seen.map((seen) => [seen.url, seen.headers['x-api-key']])).toEqual([['/api/dealer/settings', 'dealer_api_from_env']]);
  });

  test.each([
    ['ProviderClient', () => new ProviderClient(), 'new ProviderClient', 'PAYORCH_PROVIDER'],
    ['DealerClient', () => new DealerClient(), 'new DealerClient', 'PAYORCH_DEALER'],
  ])('a %s built with no argument and an empty environment is refused, naming each option and its variable', (_name, make, where, prefix) => {
    setEnvironment({ [`${prefix}_API_KEY`]: undefined, [`${prefix}_SECRET_KEY`]: undefined, PAYORCH_BASE_URL: undefined });
    const error = refusalOf(make);
    expect(error.outcome).toBe('not_sent');
    expect(error.issues.map((issue) => issue.field)).toEqual(['baseUrl', 'apiKey', 'secretKey']);
    expect(error.message).toMatch(new RegExp(`^Invalid option for ${where}: baseUrl: is missing: give the baseUrl option, or set PAYORCH_BASE_URL `));
    expect(error.message).toContain(`apiKey: is missing: give the apiKey option, or set ${prefix}_API_KEY `);
    expect(error.message).toContain(`secretKey: is missing: give the secretKey option, or set ${prefix}_SECRET_KEY `);
  });

  test('a key given wins over the environment, each key on its own', async () => {
    setEnvironment(PROVIDER_ENV);
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    await new ProviderClient({ baseUrl: server.url, apiKey: 'given_api' }).welcome();
    const { headers } = server.seen[0]!;
    expect(headers['x-api-key']).toBe('given_api');
    expect(headers['x-hash']).toBe(sha256('given_api', 'prov_secret_from_env', String(headers['x-timestamp'])));
  });

  test('a key given empty is refused, not replaced by the environment', () => {
    setEnvironment(PROVIDER_ENV);
    const error = refusalOf(() => new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: '' }));
    expect(error.issues).toEqual([{ field: 'apiKey', rule: 'invalid_option', message: expect.stringMatching(/^must be a non-empty string/) }]);
  });

  test.each([
    ['ProviderClient', () => new ProviderClient({ baseUrl: 'https://pay.example.com' }), 'new ProviderClient', 'PAYORCH_PROVIDER'],
    ['DealerClient', () => new DealerClient({ baseUrl: 'https://pay.example.com' }), 'new DealerClient', 'PAYORCH_DEALER'],
  ])('a %s whose keys are in neither place is refused, naming each option and its variable', (_name, make, where, prefix) => {
    setEnvironment({ [`${prefix}_API_KEY`]: undefined, [`${prefix}_SECRET_KEY`]: '' });
    const error = refusalOf(make);
    expect(error.outcome).toBe('not_sent');
    expect(error.issues.map((issue) => [issue.field, issue.rule])).toEqual([['apiKey', 'invalid_option'], ['secretKey', 'invalid_option']]);
    expect(error.message).toBe(
      `Invalid option for ${where}: apiKey: is missing: give the apiKey option, or set ${prefix}_API_KEY where the runtime has environment variables (Node, Bun, Deno with --allow-env); ` +
        `secretKey: is missing: give the secretKey option, or set ${prefix}_SECRET_KEY where the runtime has environment variables (Node, Bun, Deno with --allow-env)`,
    );
  });

  test('a client built without baseUrl calls PAYORCH_BASE_URL; one given wins; in neither place it is refused, naming both', async () => {
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    setEnvironment({ ...PROVIDER_ENV, PAYORCH_BASE_URL: server.url });
    await new ProviderClient({}).withOptions({ timeout: 5_000 }).welcome();
    expect(server.seen.map((seen) => seen.url)).toEqual(['/api/provider/welcome']);
    const given = await startServer((_request, response) => json(response, 200, WELCOME));
    await new ProviderClient({ baseUrl: given.url }).welcome();
    expect([server.seen.length, given.seen.length]).toEqual([1, 1]);
    setEnvironment({ PAYORCH_BASE_URL: undefined });
    for (const [make, where] of [[() => new ProviderClient({}), 'new ProviderClient'], [() => new DealerClient({ ...DEALER_ENV_KEYS }), 'new DealerClient']] as const) {
      expect(refusalOf(make).message).toBe(`Invalid option for ${where}: baseUrl: is missing: give the baseUrl option, or set PAYORCH_BASE_URL where the runtime has environment variables (Node, Bun, Deno with --allow-env)`);
    }
  });

  test('a misspelt name is refused as not an option, not told as the option missing from both places', () => {
    setEnvironment({ PAYORCH_BASE_URL: undefined });
    for (const [make, where] of [[() => new ProviderClient({ baseURL: 'https://pay.example.com' } as object), 'new ProviderClient'], [() => new DealerClient({ ...DEALER_ENV_KEYS, baseURL: 'https://pay.example.com' } as object), 'new DealerClient']] as const) {
      expect(refusalOf(make).message).toMatch(new RegExp(`^Invalid option for ${where}: baseURL: is not an option of ${where} \\(misspelt, or removed\\?\\); its options are apiKey, secretKey, timeout, maxRetries, .*baseUrl`));
    }
  });
});

describe('createCallbackReceiver', () => {
  const deliver = async (receiver: ReturnType<typeof createCallbackReceiver>, fields: Parameters<typeof sign>[0], keys: { apiKey: string; secretKey: string }) => {
    const signed = sign(fields, keys, NOW_SECONDS);
    return (await receiver.receive({ headers: signed.headers, body: JSON.stringify(signed.body) })).status;
  };
  const providerKeys = { apiKey: PROVIDER_ENV.PAYORCH_PROVIDER_API_KEY, secretKey: PROVIDER_ENV.PAYORCH_PROVIDER_SECRET_KEY };
  const dealerKeys = { apiKey: DEALER_ENV.PAYORCH_DEALER_API_KEY, secretKey: DEALER_ENV.PAYORCH_DEALER_SECRET_KEY };

  test('built with no options, it verifies with the provider keys of the environment', async () => {
    setEnvironment({ ...PROVIDER_ENV, ...DEALER_ENV });
    const receiver = createCallbackReceiver({ now });
    expect(await deliver(receiver, unsigned.deposit, providerKeys)).toBe(200);
    expect(await deliver(receiver, unsigned.withdrawal, dealerKeys)).toBe(401);
    setEnvironment(PROVIDER_ENV);
    expect(() => createCallbackReceiver()).not.toThrow();
  });

  test.each([
    ["api: 'dealer'", { api: 'dealer' }],
    ["kind: 'dealerCreditCard'", { kind: 'dealerCreditCard' }],
  ] as const)('with %s, it reads the dealer keys', async (_name, told) => {
    setEnvironment({ ...PROVIDER_ENV, ...DEALER_ENV });
    const receiver = createCallbackReceiver({ now, ...told });
    expect(await deliver(receiver, unsigned.dealerCreditCard, dealerKeys)).toBe(200);
    expect(await deliver(receiver, unsigned.dealerCreditCard, providerKeys)).toBe(401);
  });

  test('keys given win, and keys in neither place are refused naming the option and the variable', async () => {
    setEnvironment({ ...PROVIDER_ENV, PAYORCH_DEALER_API_KEY: undefined, PAYORCH_DEALER_SECRET_KEY: undefined });
    const given = { apiKey: 'given_api', secretKey: 'given_secret' };
    expect(await deliver(createCallbackReceiver({ now, ...given }), unsigned.deposit, given)).toBe(200);
    const error = refusalOf(() => createCallbackReceiver({ api: 'dealer' }));
    expect(error.message).toMatch(/^Invalid option for createCallbackReceiver: apiKey: is missing: give the apiKey option, or set PAYORCH_DEALER_API_KEY .*secretKey: is missing: give the secretKey option, or set PAYORCH_DEALER_SECRET_KEY/);
  });
});

describe('environmentVariable', () => {
  test('reads process.env, then Deno.env, and treats an empty value as unset', () => {
    vi.stubEnv('PAYORCH_LOG', 'debug');
    expect(environmentVariable('PAYORCH_LOG')).toBe('debug');
    vi.stubEnv('PAYORCH_LOG', '');
    vi.stubGlobal('Deno', { env: { get: (name: string) => (name === 'PAYORCH_LOG' ? 'info' : undefined) } });
    expect(environmentVariable('PAYORCH_LOG')).toBe('info');
  });

  test('a runtime that refuses the read (Deno without --allow-env) reads as unset', () => {
    vi.stubEnv('PAYORCH_LOG', undefined);
    vi.stubGlobal('Deno', {
      env: {
        get: () => {
          throw new Error('NotCapable: Requires env access to "PAYORCH_LOG", run again with the --allow-env flag');
        },
      },
    });
    expect(environmentVariable('PAYORCH_LOG')).toBeUndefined();
  });

  test('Deno is read only where --allow-env grants the variable: at a terminal, any other read stops the program to ask', () => {
    vi.stubEnv('PAYORCH_LOG', 'debug');
    const asked: string[] = [];
    const states: Record<string, string> = { PAYORCH_LOG: 'prompt' };
    vi.stubGlobal('Deno', {
      env: { get: (name: string) => (name === 'PAYORCH_LOG' ? 'info' : undefined) },
      permissions: {
        querySync(descriptor: { name: string; variable: string }) {
          asked.push(`${descriptor.name} ${descriptor.variable}`);
          return { state: states[descriptor.variable] ?? 'denied' };
        },
      },
    });
    expect(environmentVariable('PAYORCH_LOG')).toBeUndefined();
    states['PAYORCH_LOG'] = 'denied';
    expect(environmentVariable('PAYORCH_LOG')).toBeUndefined();
    states['PAYORCH_LOG'] = 'granted';
    expect(environmentVariable('PAYORCH_LOG')).toBe('debug');
    expect(asked).toEqual(['env PAYORCH_LOG', 'env PAYORCH_LOG', 'env PAYORCH_LOG']);
  });
});
