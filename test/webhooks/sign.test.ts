import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { RequestValidationError, signCallback, verifyCallback } from '../../src/index.js';
import { NOW_SECONDS, callbackVectors, now, unsigned } from '../helpers/callbacks.js';
import { PROVIDER, sha256 } from '../helpers/wire.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('signCallback', () => {
  test.each(callbackVectors)('$name: X-Hash and the body hash are the vector', (vector) => {
    const { headers, body } = signCallback(
      { tracking_code: vector.tracking_code, status: vector.status, amount: 10 },
      { apiKey: vector.api_key, secretKey: vector.secret_key, timestamp: Number(vector.timestamp) },
    );
    expect(headers).toEqual({ 'Content-Type': 'application/json', 'X-Api-Key': vector.api_key, 'X-Timestamp': vector.timestamp, 'X-Hash': vector.expected });
    expect(JSON.parse(body)).toEqual({ tracking_code: vector.tracking_code, status: vector.status, amount: 10, timestamp: Number(vector.timestamp), hash: vector.expected });
  });

  test('writes the body as compact JSON with timestamp and hash last, timestamp as an integer', () => {
    const { body, headers } = signCallback({ tracking_code: 'MAN-a1-1763812000', status: 'completed', amount: 5 }, { ...PROVIDER, timestamp: NOW_SECONDS });
    expect(body).toBe(`{"tracking_code":"MAN-a1-1763812000","status":"completed","amount":5,"timestamp":${NOW_SECONDS},"hash":"${headers['X-Hash']}"}`);
  });

  test('replaces a timestamp and a hash given in the payload with the signed ones', () => {
    const payload = { tracking_code: 'MAN-a1-1763812000', status: 'completed', timestamp: 1, hash: 'stale' };
    const { body, headers } = signCallback(payload, { ...PROVIDER, timestamp: NOW_SECONDS });
    expect(JSON.parse(body)).toMatchObject({ timestamp: NOW_SECONDS, hash: headers['X-Hash'] });
    expect(headers['X-Hash']).toBe(sha256(PROVIDER.apiKey, PROVIDER.secretKey, 'MAN-a1-1763812000', 'completed', String(NOW_SECONDS)));
  });

  test('signs with the current time when no timestamp is given', () => {
    vi.useFakeTimers({ now: new Date('2025-11-22T11:52:25.900Z') });
    expect(signCallback({ tracking_code: 'MAN-a1-1763812000', status: 'completed' }, PROVIDER).headers['X-Timestamp']).toBe(String(NOW_SECONDS));
  });

  test('what it signs, verifyCallback accepts, for every kind', () => {
    for (const [kind, payload] of Object.entries(unsigned)) {
      const signed = signCallback(payload, { ...PROVIDER, timestamp: NOW_SECONDS });
      expect(verifyCallback(signed, { ...PROVIDER, now })).toEqual({ kind, source: 'callback', payload: JSON.parse(signed.body), ageSeconds: 0 });
    }
  });

  test('any deposit tracking code, status word and timestamp round-trips through verifyCallback', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^(MAN|EIBAN|TPBD|TPCD|TPWD|DEP)-[A-Za-z0-9]{1,12}-\d{1,10}$/), fc.stringMatching(/^[a-z][a-z_]{0,15}$/), fc.integer({ min: 0, max: 2 ** 40 }), (trackingCode, status, timestamp) => {
        const signed = signCallback({ tracking_code: trackingCode, status, amount: 1 }, { ...PROVIDER, timestamp });
        const callback = verifyCallback(signed, { ...PROVIDER, kind: 'deposit', now: () => timestamp * 1000 });
        expect(callback.payload).toMatchObject({ tracking_code: trackingCode, status, timestamp });
      }),
    );
  });

  test.each([
    ['a negative timestamp', { ...PROVIDER, timestamp: -1 }],
    ['a fractional timestamp', { ...PROVIDER, timestamp: 1.5 }],
    ['a timestamp beyond the safe integer range', { ...PROVIDER, timestamp: 2 ** 53 }],
    ['an empty secret', { apiKey: PROVIDER.apiKey, secretKey: '' }],
  ])('refuses %s with a RequestValidationError naming the option', (_name, options) => {
    const sign = () => signCallback({ tracking_code: 'MAN-a1-1763812000', status: 'completed' }, options);
    expect(sign).toThrow(RequestValidationError);
    expect(sign).toThrow(/signCallback: (timestamp|secretKey): must be /);
  });

  test('refuses an option it does not have, naming it and its options, rather than sign with the current time', () => {
    const sign = () => signCallback({ tracking_code: 'MAN-a1-1763812000', status: 'completed' }, { ...PROVIDER, timeStamp: 1763812000 } as typeof PROVIDER);
    expect(sign).toThrow(RequestValidationError);
    expect(sign).toThrow('Invalid option for signCallback: timeStamp: is not an option of signCallback (misspelt, or removed?); its options are apiKey, secretKey, timestamp');
  });

  test('refuses no options, or no payload, with a RequestValidationError, never a TypeError', () => {
    expect(() => signCallback({ tracking_code: 'MAN-a1-1763812000', status: 'completed' }, null as unknown as typeof PROVIDER)).toThrow(RequestValidationError);
    expect(() => signCallback(null as unknown as { tracking_code: string; status: string }, PROVIDER)).toThrow('Invalid argument to signCallback: payload.tracking_code: must be a string');
  });

  test('refuses a payload whose status is not a string with a RequestValidationError naming the argument\'s field', () => {
    const sign = () => signCallback({ tracking_code: 'MAN-a1-1763812000', status: 1 as unknown as string }, PROVIDER);
    expect(sign).toThrow(RequestValidationError);
    expect(sign).toThrow('Invalid argument to signCallback: payload.status: must be a string');
  });
});
