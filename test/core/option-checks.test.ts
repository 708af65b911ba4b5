import { describe, expect, test, vi } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError } from '../../src/index.js';
import type { ClientOptions } from '../../src/index.js';
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
    expect(error.message).toBe(`Invalid request to new ${name}: ${option}: ${error.issues[0]?.message}`);
    expect(fetch).not.toHaveBeenCalled();
  });

  test.each([
    ['apiKey', undefined, 'got undefined', '_API_KEY'],
    ['apiKey', '', 'got an empty string', '_API_KEY'],
    ['secretKey', undefined, 'got undefined', '_SECRET_KEY'],
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

  test('the limits themselves are accepted: timeout 1 and 2^31-1, maxRetries 0 and 10, maxResponseBytes 1', () => {
    expect(() => make({ baseUrl: BASE_URL, ...keys, timeout: 1, maxRetries: 0, maxResponseBytes: 1 })).not.toThrow();
    expect(() => make({ baseUrl: BASE_URL, ...keys, timeout: 2 ** 31 - 1, maxRetries: 10 })).not.toThrow();
  });
});

describe('per-call options', () => {
  test.each(impossible.filter(([option]) => option === 'timeout' || option === 'maxRetries'))(
    '%s = %s given to one call is refused with nothing sent',
    async (option, value, expected) => {
      const fetch = neverCalled();
      const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, fetch });
      const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch });
      for (const call of [() => provider.welcome({ [option]: value }), () => dealer.getSettings({ [option]: value })]) {
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
