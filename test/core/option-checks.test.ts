import { describe, expect, test, vi } from 'vitest';
import { SIGN_OPTIONS } from '../../src/webhooks/sign.js';
import { VERIFY_OPTIONS } from '../../src/webhooks/verify.js';
import { allowedBy } from '../../src/core/option-checks.js';
import { clientOptions } from '../../src/core/client-options.js';
import type { OptionDeclaration, OptionRule } from '../../src/core/option-checks.js';
import {
  DealerClient,
  ProviderClient,
  RequestValidationError,
  createCallbackReceiver,
  createMemoryInbox,
  signCallback,
  verifyCallback,
} from '../../src/index.js';
import type { ClientOptions } from '../../src/index.js';
import { MEMORY_INBOX_OPTIONS } from '../../src/inboxes/memory.js';
import { CONFIRM_CARD_OPTIONS, confirmWithCardStatus } from '../../src/webhooks/confirm-card.js';
import { RECEIVER_OPTIONS } from '../../src/webhooks/receiver/receiver.js';
import { SANDBOX_OPTIONS } from '../../src/tools/sandbox/options.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { BASE_URL, DEALER, PROVIDER } from '../helpers/wire.js';

// A fetch that must never be called: every refusal here happens before anything is sent.
const neverCalled = () => vi.fn<typeof fetch>(() => Promise.reject(new Error('nothing may be sent')));

function thrownBy(run: () => unknown): RequestValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestValidationError) return error;
    throw error;
  }
  throw new Error('accepted an impossible option');
}

const clients = [
  ['ProviderClient', (options: ClientOptions) => new ProviderClient(options), PROVIDER, 'PAYORCH_PROVIDER'],
  ['DealerClient', (options: ClientOptions) => new DealerClient(options), DEALER, 'PAYORCH_DEALER'],
] as const;

const impossible: [string, unknown, string][] = [
  ['timeout', Number.POSITIVE_INFINITY, 'a finite number of milliseconds from 1 to 2147483647; got Infinity'],
  ['timeout', 2 ** 31, 'a finite number of milliseconds from 1 to 2147483647; got 2147483648'],
  ['timeout', 0, 'a finite number of milliseconds from 1 to 2147483647; got 0'],
  ['timeout', Number.NaN, 'a finite number of milliseconds from 1 to 2147483647; got NaN'],
  ['timeout', -1, 'got -1'],
  ['timeout', '5000', 'got "5000"'],
  ['maxRetries', Number.NaN, 'an integer from 0 to 10; got NaN'],
  ['maxRetries', -1, 'an integer from 0 to 10; got -1'],
  ['maxRetries', 1.5, 'an integer from 0 to 10; got 1.5'],
  ['maxRetries', 11, 'an integer from 0 to 10; got 11'],
  ['maxRetries', Number.POSITIVE_INFINITY, 'got Infinity'],
  ['maxResponseBytes', Number.NaN, 'a positive integer; got NaN'],
  ['maxResponseBytes', 0, 'a positive integer; got 0'],
  ['maxResponseBytes', 1.5, 'a positive integer; got 1.5'],
  ['maxResponseBytes', Number.POSITIVE_INFINITY, 'a positive integer; got Infinity'],
  ['clockOffsetMs', Number.NaN, 'a finite number; got NaN'],
  ['fetch', 'fetch', 'a function; got "fetch"'],
  ['now', 0, 'a function; got 0'],
];

describe.each(clients)('new %s', (name, make, keys, variable) => {
  test.each(impossible)(`%s = %s is refused in the constructor, naming the option, the value and the range`, (option, value, expected) => {
    const fetch = neverCalled();
    const error = thrownBy(() => make({ baseUrl: BASE_URL, ...keys, fetch, [option]: value }));
    expect(error.issues).toEqual([{ field: option, rule: 'invalid_option', message: expect.stringContaining(expected) as string }]);
    expect(error.message).toBe(`Invalid option for new ${name}: ${option}: ${error.issues[0]?.message}`);
    expect(fetch).not.toHaveBeenCalled();
  });

  test.each([
    ['apiKey', '', 'got an empty string', '_API_KEY'],
    ['secretKey', '', 'got an empty string', '_SECRET_KEY'],
    ['secretKey', 42, 'got number', '_SECRET_KEY'],
  ])('%s = %j is refused, naming the environment variable it comes from', (option, value, got, suffix) => {
    const error = thrownBy(() => make({ baseUrl: BASE_URL, ...keys, [option]: value }));
    expect(error.issues[0]?.field).toBe(option);
    expect(error.message).toContain(`must be a non-empty string (for example from ${variable}${suffix}); ${got}`);
  });

  test('a key is never quoted in the refusal: only what is wrong with it', () => {
    const error = thrownBy(() => make({ baseUrl: BASE_URL, ...keys, timeout: 0 }));
    expect(error.message).not.toContain(keys.secretKey);
    expect(error.message).not.toContain(keys.apiKey);
  });

  test("a call's misspelt option is refused before sending, naming the ones it has: a payment's timeout must not be dropped", async () => {
    const fetch = neverCalled();
    const client = make({ baseUrl: BASE_URL, ...keys, fetch });
    const call = (options: object) => (name === 'ProviderClient' ? (client as ProviderClient).welcome(options) : (client as DealerClient).settings.get(options));
    const error: unknown = await call({ timout: 5_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    const options = name === 'ProviderClient' ? 'timeout, maxRetries, signal, credentialKey' : 'timeout, maxRetries, signal';
    expect((error as RequestValidationError).issues).toEqual([{ field: 'timout', rule: 'invalid_option', message: `is not an option of ${name === 'ProviderClient' ? 'welcome' : 'settings.get'} (misspelt, or removed?); its options are ${options}` }]);
    expect(fetch).not.toHaveBeenCalled();
  });

  test.each([
    ['a string', 'x', 'got "x"'],
    ['an object that is no signal', {}, 'got object'],
  ])("a call's signal that is %s is refused before sending, naming it, instead of a TypeError", async (_case, signal, got) => {
    const fetch = neverCalled();
    const client = make({ baseUrl: BASE_URL, ...keys, fetch });
    const options = { signal } as unknown as { signal: AbortSignal };
    const error: unknown = await (name === 'ProviderClient' ? (client as ProviderClient).welcome(options) : (client as DealerClient).settings.get(options)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ outcome: 'not_sent', issues: [{ field: 'signal', rule: 'invalid_option', message: `must be an AbortSignal; ${got}` }] });
    expect(fetch).not.toHaveBeenCalled();
  });

  test('the limits themselves are accepted: timeout 1 and 2^31-1, maxRetries 0 and 10, maxResponseBytes 1', () => {
    expect(() => make({ baseUrl: BASE_URL, ...keys, timeout: 1, maxRetries: 0, maxResponseBytes: 1 })).not.toThrow();
    expect(() => make({ baseUrl: BASE_URL, ...keys, timeout: 2 ** 31 - 1, maxRetries: 10 })).not.toThrow();
  });
});

describe.each(clients)('new %s with a baseUrl it refuses', (name, make, keys) => {
  test.each([
    ['plain http to a remote host', 'http://pay.example.com', 'must use https unless the host is loopback or allowInsecureHttp is set'],
    ['a user name and password', 'https://merchant:hunter2-password@pay.example.com', 'must not contain a user name or password'],
    ['text that is not a URL', 'pay.example.com', 'must be an absolute https URL'],
    ['a query string', 'https://pay.example.com/?token=abc', 'must not have a query or fragment'],
    ['a fragment', 'https://pay.example.com/#top', 'must not have a query or fragment'],
    ['another scheme', 'ftp://pay.example.com', 'must use https'],
    ['a number', 443, 'got number'],
    ['the /api path the clients append', 'https://pay.example.com/api', "must be the service's root: payorch appends /api/provider and /api/dealer itself, so https://pay.example.com/api would call /api/api/…; use https://pay.example.com/"],
    ['the /api/provider path', 'https://pay.example.com/api/provider/', 'use https://pay.example.com/'],
    ['/api/dealer behind a proxy prefix', 'https://gw.example.com/payments/api/dealer', 'use https://gw.example.com/payments'],
  ])('%s is a RequestValidationError (invalid_option, not_sent) naming baseUrl', (_case, baseUrl, expected) => {
    const fetch = neverCalled();
    const error = thrownBy(() => make({ ...keys, baseUrl, fetch } as unknown as ClientOptions));
    expect(error.outcome).toBe('not_sent');
    expect(error.issues).toEqual([{ field: 'baseUrl', rule: 'invalid_option', message: expect.stringContaining(expected) as string }]);
    expect(error.message).toMatch(new RegExp(`^Invalid option for new ${name}: baseUrl: `));
    // The URL's credentials and query are never quoted: a message reaches logs.
    expect(error.message).not.toMatch(/hunter2|merchant|token=abc/);
    expect(fetch).not.toHaveBeenCalled();
  });
});

test.each(clients)('new %s takes a reverse proxy\'s path prefix as the service\'s root and calls below it', async (_name, make, keys) => {
  const urls: string[] = [];
  const fetch = (input: RequestInfo | URL): Promise<Response> => {
    urls.push(input instanceof Request ? input.url : String(input));
    return Promise.resolve(Response.json({ success: true, message: 'hi', dealer_name: 'd' }));
  };
  const client = make({ ...keys, baseUrl: 'https://gw.example.com/payments/apis/', fetch, maxRetries: 0 });
  await (client instanceof ProviderClient ? client.welcome() : client.settings.get()).catch(() => undefined);
  expect(urls[0]).toMatch(/^https:\/\/gw\.example\.com\/payments\/apis\/api\/(provider|dealer)\//);
});

describe('per-call options', () => {
  test.each(impossible.filter(([option]) => option === 'timeout' || option === 'maxRetries'))(
    '%s = %s given to one call is refused with nothing sent',
    async (option, value, expected) => {
      const fetch = neverCalled();
      const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch });
      const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch });
      for (const call of [() => provider.welcome({ [option]: value }), () => dealer.settings.get({ [option]: value })]) {
        const error: unknown = await call().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues[0]).toMatchObject({ field: option, message: expect.stringContaining(expected) as string });
      }
      expect(fetch).not.toHaveBeenCalled();
    },
  );

  test('a payment call with timeout: Infinity is refused before it is sent, not reported as a timeout after it went through', async () => {
    const fetch = neverCalled();
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch });
    const deposit = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 100 };
    await expect(provider.manual.startDeposit(deposit, { timeout: Number.POSITIVE_INFINITY })).rejects.toThrow(/timeout: must be a finite number of milliseconds/);
    expect(fetch).not.toHaveBeenCalled();
  });
});

/** Values each rule must refuse, written from the rule alone. */
function refusedBy(rule: OptionRule): unknown[] {
  switch (rule.type) {
    case 'number':
      return [
        Number.NaN,
        '1',
        ...(Number.isFinite(rule.min) ? [rule.min - 1] : []),
        ...(Number.isFinite(rule.max) && rule.max < Number.MAX_SAFE_INTEGER ? [rule.max + 1] : []),
        ...(rule.integer === true ? [rule.min + 0.5] : [Number.POSITIVE_INFINITY]),
      ];
    case 'key':
      return [undefined, '', 42];
    case 'text':
      return ['', ' ', 'x'.repeat(rule.maxLength + 1), 42];
    case 'function':
      return ['log', 0];
    case 'boolean':
      return ['yes', 1];
    case 'oneOf':
      return ['none of these', 1];
    case 'object':
      return [{}, 'object'];
    case 'httpUrl':
      return ['ftp://example.test', 'not a url'];
    case 'serviceUrl':
      return ['pay.example.com', 443];
    case 'time':
      return [new Date(Number.NaN), rule.min - 1, rule.max + 1];
  }
}

/** Options with `value` at the dotted `path`. */
function withOption(base: object, path: string, value: unknown): object {
  const [head = '', ...rest] = path.split('.');
  const inner: unknown = (base as Record<string, unknown>)[head];
  return { ...base, [head]: rest.length === 0 ? value : withOption(typeof inner === 'object' && inner !== null ? inner : {}, rest.join('.'), value) };
}

const deposit = { headers: {}, body: '{}' };
const cardStatusSource = { creditCard: { getStatus: () => Promise.reject(new Error('never asked')) } } as unknown as Parameters<typeof confirmWithCardStatus>[0];

// Every place that takes options, with options it accepts and the declarations it checks them by.
const owners: [string, readonly OptionDeclaration[], object, (options: object) => unknown][] = [
  ['new ProviderClient', clientOptions('provider'), { baseUrl: BASE_URL, ...PROVIDER }, (options) => new ProviderClient(options)],
  ['new DealerClient', clientOptions('dealer'), { baseUrl: BASE_URL, ...DEALER }, (options) => new DealerClient(options)],
  ['verifyCallback', VERIFY_OPTIONS, { ...PROVIDER }, (options) => verifyCallback(deposit, options as typeof PROVIDER)],
  ['signCallback', SIGN_OPTIONS, { ...PROVIDER }, (options) => signCallback({ tracking_code: 'MAN-a1-1763812000', status: 'completed' }, options as typeof PROVIDER)],
  ['createCallbackReceiver', RECEIVER_OPTIONS, { ...PROVIDER }, (options) => createCallbackReceiver(options as typeof PROVIDER)],
  ['createMemoryInbox', MEMORY_INBOX_OPTIONS, {}, (options) => createMemoryInbox(options)],
  ['createSandbox', SANDBOX_OPTIONS, {}, (options) => createSandbox(options)],
  ['confirmWithCardStatus', CONFIRM_CARD_OPTIONS, {}, (options) => confirmWithCardStatus(cardStatusSource, options)],
];

const READ_FROM_ENVIRONMENT = new Set(['new ProviderClient', 'new DealerClient', 'createCallbackReceiver']);

const refusals = owners.flatMap(([where, declarations, base, make]) =>
  declarations.flatMap((declaration) =>
    refusedBy(declaration.rule)
      // Left out, an option that is not required takes its default, and a client's or receiver's
      // key is read from the environment (test/core/environment.test.ts).
      .filter((value) => value !== undefined || (declaration.required === true && !(READ_FROM_ENVIRONMENT.has(where) && declaration.rule.type === 'key')))
      .map((value) => ({ where, declaration, base, make, value })),
  ),
);

describe('every declared option is refused the same way wherever it is given', () => {
  test.each(refusals.map((row) => [row.where, row.declaration.name, row.value, row] as const))(
    '%s refuses %s = %o with a RequestValidationError naming the option, its range and its source',
    (where, name, value, { declaration, base, make }) => {
      const error = thrownBy(() => make(withOption(base, name, value)));
      expect(error.issues).toEqual([{ field: name, rule: 'invalid_option', message: expect.stringContaining(`must be ${allowedBy(declaration.rule)}`) as string }]);
      expect(error.outcome).toBe('not_sent');
      expect(error.message).toMatch(new RegExp(`^Invalid option for ${where}: ${name.replaceAll('.', '\\.')}: must be `));
      if (declaration.env !== undefined) expect(error.message).toContain(`for example from ${declaration.env}`);
    },
  );

  test.each(owners.map(([where, , base, make]) => [where, base, make] as const))('%s refuses options that are not an object', (_where, _base, make) => {
    expect(thrownBy(() => make('options' as unknown as object)).issues[0]).toMatchObject({ field: '(options)', rule: 'invalid_option' });
  });

  const bounds = owners.flatMap(([where, declarations, base, make]) =>
    declarations.flatMap((declaration) =>
      declaration.rule.type === 'number' ? [declaration.rule.min, declaration.rule.max].filter(Number.isFinite).map((value) => [where, declaration.name, value, base, make] as const) : [],
    ),
  );
  test.each(bounds)('%s accepts %s at its bound %s', (_where, name, value, base, make) => {
    expect(() => make(withOption(base, name, value))).not.toThrow(RequestValidationError);
  });
});

describe('values that were taken silently before are refused now', () => {
  test.each([
    ['new ProviderClient', 'allowInsecureHttp', 'true or false; got "yes"', () => new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, allowInsecureHttp: 'yes' as unknown as boolean })],
    ['createSandbox', 'history.days', 'an integer from 0 to 3650; got 1000000000', () => createSandbox({ history: { days: 1e9 } })],
    ['createSandbox', 'history.perDay', 'an integer from 0 to 10000; got 1.5', () => createSandbox({ history: { perDay: 1.5 } })],
    ['createSandbox', 'provider.secretKey', 'a non-empty string; got an empty string', () => createSandbox({ provider: { secretKey: '' } })],
    ['createSandbox', 'dealer.apiKey', 'a non-empty string; got an empty string', () => createSandbox({ dealer: { apiKey: '' } })],
    ['createSandbox', 'provider.id', 'a positive integer; got 0', () => createSandbox({ provider: { id: 0 } })],
  ] as const)('%s refuses %s: must be %s', (where, field, expected, make) => {
    const error = thrownBy(make);
    expect(error.outcome).toBe('not_sent');
    expect(error.issues).toEqual([{ field, rule: 'invalid_option', message: `must be ${expected}` }]);
    expect(error.message).toBe(`Invalid option for ${where}: ${field}: must be ${expected}`);
  });
});

describe('an option the factory does not have', () => {
  const CLIENT_OPTIONS = 'apiKey, secretKey, timeout, maxRetries, maxResponseBytes, clockOffsetMs, fetch, now, onRequest, onResponse, tracer, logLevel, logger, allowInsecureHttp, baseUrl';
  const CLIENT_SETTINGS = 'timeout, maxRetries, maxResponseBytes, clockOffsetMs, fetch, now, onRequest, onResponse, tracer, logLevel, logger';

  test.each([
    ['new ProviderClient', 'timeoutMs', `${CLIENT_OPTIONS}, credentialKey`, () => new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, timeoutMs: 5_000 } as ClientOptions)],
    ['new ProviderClient', 'retryLimit', `${CLIENT_OPTIONS}, credentialKey`, () => new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, retryLimit: 0 } as ClientOptions)],
    ['new DealerClient', 'accountName', CLIENT_OPTIONS, () => new DealerClient({ baseUrl: BASE_URL, ...DEALER, accountName: 'dealer-1' } as ClientOptions)],
    ['provider.withOptions', 'timeoutMs', CLIENT_SETTINGS, () => new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER }).withOptions({ timeoutMs: 5_000 } as ClientOptions)],
    ['dealer.withOptions', 'timeoutMs', CLIENT_SETTINGS, () => new DealerClient({ baseUrl: BASE_URL, ...DEALER }).withOptions({ timeoutMs: 5_000 } as ClientOptions)],
  ])('%s refuses %s, naming it and the options it has, rather than run without it', (where, field, options, run) => {
    const error = thrownBy(run);
    expect(error.outcome).toBe('not_sent');
    expect(error.issues).toEqual([{ field, rule: 'invalid_option', message: `is not an option of ${where} (misspelt, or removed?); its options are ${options}` }]);
  });

  test("a client takes the account's keys object, credentialKey included, and an option given as undefined", () => {
    expect(() => new DealerClient({ baseUrl: BASE_URL, ...DEALER, credentialKey: 'site_cred_3b1e9d', timeoutMs: undefined } as ClientOptions)).not.toThrow();
    expect(() => new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER }).withOptions({ retryLimit: undefined } as ClientOptions)).not.toThrow();
  });

  test('createCallbackReceiver refuses accountName, renamed merchantId, rather than record under its API key', () => {
    const error = thrownBy(() => createCallbackReceiver({ ...PROVIDER, accountName: 'merchant-42' } as unknown as Parameters<typeof createCallbackReceiver>[0]));
    expect(error.issues).toEqual([{ field: 'accountName', rule: 'invalid_option', message: 'was renamed merchantId: pass its value as merchantId' }]);
  });

  test('applyTransferStatuses refuses accountName too, though it takes wider objects', async () => {
    const { applyTransferStatuses } = await import('../../src/dealer/transfer-sweep.js');
    const refused = await applyTransferStatuses({ accountName: 'm' } as unknown as Parameters<typeof applyTransferStatuses>[0]).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect((refused as RequestValidationError).issues[0]).toMatchObject({ field: 'accountName', rule: 'invalid_option', message: 'was renamed merchantId: pass its value as merchantId' });
  });

  test.each([
    ['createCallbackReceiver', 'onerror', () => createCallbackReceiver({ ...PROVIDER, onerror: () => undefined } as unknown as Parameters<typeof createCallbackReceiver>[0])],
    ['createMemoryInbox', 'maxKey', () => createMemoryInbox({ maxKey: 10 } as unknown as Parameters<typeof createMemoryInbox>[0])],
  ])('%s refuses a misspelt %s, naming the options it has from its declarations', (where, field, run) => {
    const error = thrownBy(run);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ field, rule: 'invalid_option' });
    const declared = where === 'createMemoryInbox' ? MEMORY_INBOX_OPTIONS : RECEIVER_OPTIONS;
    for (const { name } of declared) expect(error.issues[0]?.message).toContain(name);
  });

  test('the account keys object as the client has it, and an option given as undefined, are taken', () => {
    expect(() => createCallbackReceiver({ ...PROVIDER, merchantId: undefined, ...({ accountName: undefined } as object) })).not.toThrow();
    expect(() => verifyCallback({ headers: {}, body: '{}' }, { ...PROVIDER, sites: [] } as unknown as Parameters<typeof verifyCallback>[1])).not.toThrow(RequestValidationError);
  });
});
