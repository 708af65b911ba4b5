import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CallbackVerificationError, DEFAULT_CALLBACK_MAX_AGE_SECONDS, RequestValidationError, verifyCallback } from '../../src/index.js';
import type { CallbackInput, CallbackVerificationReason, VerifyCallbackOptions } from '../../src/index.js';
import { NOW_SECONDS, callbackVectors, now, refusal, sign, unsigned } from '../helpers/callbacks.js';
import { DEALER, PROVIDER, sha256 } from '../helpers/wire.js';

const options: VerifyCallbackOptions = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, now };
const dealerOptions: VerifyCallbackOptions = { apiKey: DEALER.apiKey, secretKey: DEALER.secretKey, now };
// The dealer card receiver that opts into callbacks without headers (spec 6.5).
const headerlessDealerOptions: VerifyCallbackOptions = { ...dealerOptions, dealerCardWithoutHeaders: true };
const deposit = sign(unsigned.deposit, PROVIDER);
const dealerCard = sign(unsigned.dealerCreditCard, DEALER);

describe('the signing vectors', () => {
  // The body around each vector: the other fields of its kind, then the vector's signed values.
  const kindOf: Record<string, { kind: string; base: Record<string, unknown> }> = {
    'deposit completed': { kind: 'deposit', base: unsigned.deposit },
    'E-IBAN withdrawal rejected': { kind: 'withdrawal', base: unsigned.withdrawal },
    'dealer card failed': { kind: 'dealerCreditCard', base: unsigned.dealerCreditCard },
  };
  const cases = callbackVectors.map((vector) => {
    const entry = kindOf[vector.name];
    if (entry === undefined) throw new Error(`No body for the vector "${vector.name}": add it to kindOf`);
    const body = { ...entry.base, tracking_code: vector.tracking_code, status: vector.status, timestamp: Number(vector.timestamp), hash: vector.expected };
    const headers = { 'X-Api-Key': vector.api_key, 'X-Timestamp': vector.timestamp, 'X-Hash': vector.expected };
    const vectorOptions = { apiKey: vector.api_key, secretKey: vector.secret_key, now: () => Number(vector.timestamp) * 1000 };
    return { ...vector, kind: entry.kind, body, headers, vectorOptions };
  });

  test('there is at least one vector and each has a body', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
  });

  test.each(cases)('$name is accepted with its headers and read as $kind', ({ body, headers, vectorOptions, kind, expected }) => {
    const callback = verifyCallback({ headers, body: JSON.stringify(body) }, vectorOptions);
    expect(callback.kind).toBe(kind);
    expect(callback.payload).toEqual(body);
    expect(callback.payload.hash).toBe(expected);
  });

  test.each(cases)('$name with one hex digit of the hash changed is refused with 401', ({ body, headers, vectorOptions, expected }) => {
    const changed = `${expected.slice(0, -1)}${expected.endsWith('0') ? '1' : '0'}`;
    const error = refusal(() => verifyCallback({ headers: { ...headers, 'X-Hash': changed }, body: { ...body, hash: changed } }, vectorOptions));
    expect([error.reason, error.status]).toEqual(['invalid_signature', 401]);
  });

  test('the dealer card vector is accepted from its body alone, without headers, when the receiver opts in', () => {
    const dealerCase = cases.find((entry) => entry.kind === 'dealerCreditCard')!;
    const callback = verifyCallback({ body: dealerCase.body }, { ...dealerCase.vectorOptions, dealerCardWithoutHeaders: true });
    expect(callback.kind).toBe('dealerCreditCard');
  });
});

describe('accepted forms', () => {
  const expected = { kind: 'deposit', source: 'callback', payload: deposit.body, ageSeconds: 0 };
  const text = JSON.stringify(deposit.body);

  test.each([
    ['a string', text],
    ['a Buffer', Buffer.from(text)],
    ['a Uint8Array that is a view into a larger buffer', new Uint8Array(Buffer.from(`xx${text}yy`)).subarray(2, 2 + Buffer.byteLength(text))],
    ['an ArrayBuffer', new TextEncoder().encode(text).buffer],
    ['an already parsed object', deposit.body],
  ])('the body as %s', (_name, body) => {
    expect(verifyCallback({ headers: deposit.headers, body }, options)).toEqual(expected);
  });

  test.each([
    ['lower case', { 'x-api-key': PROVIDER.apiKey, 'x-timestamp': String(NOW_SECONDS), 'x-hash': deposit.hash }],
    ['upper case', { 'X-API-KEY': PROVIDER.apiKey, 'X-TIMESTAMP': String(NOW_SECONDS), 'X-HASH': deposit.hash }],
    ['arrays of one value, as Node gives', { 'x-api-key': [PROVIDER.apiKey], 'x-timestamp': [String(NOW_SECONDS)], 'x-hash': [deposit.hash], 'set-cookie': ['a=1', 'b=2'] }],
    ['with undefined entries beside them', { 'x-api-key': PROVIDER.apiKey, 'x-timestamp': String(NOW_SECONDS), 'x-hash': deposit.hash, 'x-forwarded-for': undefined }],
  ])('the headers in %s', (_name, headers) => {
    expect(verifyCallback({ headers, body: deposit.body }, options)).toEqual(expected);
  });

  test('the headers as a Fetch Headers', () => {
    expect(verifyCallback({ headers: new Headers(deposit.headers), body: deposit.body }, options)).toEqual(expected);
  });

  test('a timestamp and an amount sent as numeric strings are read as numbers; the hash uses the decimal text', () => {
    const body = { ...deposit.body, timestamp: String(NOW_SECONDS), amount: '250.75' };
    const callback = verifyCallback({ headers: deposit.headers, body }, options);
    expect(callback.payload.timestamp).toBe(NOW_SECONDS);
    expect(callback.payload.amount).toBe(250.75);
  });

  test('a timestamp written as 1763812345.0 in the JSON text is the integer it denotes', () => {
    const body = JSON.stringify(deposit.body).replace(`"timestamp":${NOW_SECONDS}`, `"timestamp":${NOW_SECONDS}.0`);
    expect(body).toContain('.0,');
    expect(verifyCallback({ headers: deposit.headers, body }, options).kind).toBe('deposit');
  });

  test('fields the spec does not list are kept', () => {
    const signed = sign({ ...unsigned.deposit, bonus_code: 'NEW' }, PROVIDER);
    expect(verifyCallback(signed, options).payload).toMatchObject({ bonus_code: 'NEW' });
  });

  test.each([
    ['300 s old', NOW_SECONDS - 300],
    ['300 s ahead', NOW_SECONDS + 300],
  ])('a timestamp %s is within the default tolerance', (_name, timestamp) => {
    expect(verifyCallback(sign(unsigned.deposit, PROVIDER, timestamp), options).kind).toBe('deposit');
  });

  test('the clock defaults to the real time', () => {
    const fresh = sign(unsigned.deposit, PROVIDER, Math.floor(Date.now() / 1000));
    expect(verifyCallback(fresh, { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey }).kind).toBe('deposit');
  });
});

describe('the dealer card callback without headers', () => {
  test('is verified from the body hash and timestamp', () => {
    expect(verifyCallback({ body: dealerCard.body }, headerlessDealerOptions)).toEqual({ kind: 'dealerCreditCard', source: 'callback', payload: dealerCard.body, ageSeconds: 0 });
  });

  test('is verified from the body when the headers hold none of the three names', () => {
    const headers = { 'content-type': 'application/json', host: 'shop.example' };
    expect(verifyCallback({ headers, body: dealerCard.body }, headerlessDealerOptions).kind).toBe('dealerCreditCard');
  });

  test('is refused when only some of the headers are present: no fallback to the body', () => {
    const error = refusal(() => verifyCallback({ headers: { 'X-Hash': dealerCard.hash }, body: dealerCard.body }, headerlessDealerOptions));
    expect([error.reason, error.message]).toEqual(['missing_header', 'Callback refused (missing_header): X-Api-Key, X-Timestamp are missing']);
  });

  test('is refused when the body hash is wrong', () => {
    const error = refusal(() => verifyCallback({ body: { ...dealerCard.body, status: 'failed' } }, headerlessDealerOptions));
    expect(error.reason).toBe('invalid_signature');
  });

  test('is refused when the body timestamp is older than the maximum age', () => {
    const stale = sign(unsigned.dealerCreditCard, DEALER, NOW_SECONDS - 301);
    expect(refusal(() => verifyCallback({ body: stale.body }, { ...headerlessDealerOptions, maxAgeSeconds: 300 })).reason).toBe('timestamp_out_of_tolerance');
  });

  test.each(['deposit', 'withdrawal', 'creditCard'] as const)('does not extend to a %s callback, which must carry the headers', (kind) => {
    const signed = sign(unsigned[kind], PROVIDER);
    const error = refusal(() => verifyCallback({ body: signed.body }, options));
    expect([error.reason, error.status]).toEqual(['missing_header', 401]);
  });
});

describe('the kind', () => {
  test.each([
    ['MAN-a1-1763812000', 'deposit'],
    ['EIBAN-b2-1763812000', 'deposit'],
    ['TPBD-c3-1763812000', 'deposit'],
    ['TPCD-d4-1763812000', 'deposit'],
    ['TPWD-e5-1763812000', 'deposit'],
    ['DEP-f6-1763812000', 'deposit'],
    ['WIT-a1-1763812000', 'withdrawal'],
    ['EIBAN-WIT-b2-1763812000', 'withdrawal'],
    ['TPBW-c3-1763812000', 'withdrawal'],
    ['TPCW-d4-1763812000', 'withdrawal'],
    ['TPWW-e5-1763812000', 'withdrawal'],
    ['WDR-f6-1763812000', 'withdrawal'],
  ])('%s is read as a %s callback', (code, kind) => {
    const signed = sign({ ...unsigned.deposit, tracking_code: code }, PROVIDER);
    expect(verifyCallback(signed, options).kind).toBe(kind);
  });

  test('a CC code with provider card fields is a creditCard callback, with dealer card fields a dealerCreditCard callback', () => {
    expect(verifyCallback(sign(unsigned.creditCard, PROVIDER), options).kind).toBe('creditCard');
    expect(verifyCallback(dealerCard, dealerOptions).kind).toBe('dealerCreditCard');
  });

  test('the caller decides when it names the kind or the account', () => {
    const both = sign({ ...unsigned.creditCard, customer_phone: '+90555' }, PROVIDER);
    expect(verifyCallback(both, options).kind).toBe('creditCard');
    expect(verifyCallback(both, { ...options, kind: 'dealerCreditCard' }).kind).toBe('dealerCreditCard');
    expect(verifyCallback(both, { ...options, api: 'dealer' }).kind).toBe('dealerCreditCard');
  });

  test.each([
    ['a provider card callback that also carries success: true', { ...unsigned.creditCard, success: true }, undefined, 'creditCard'],
    ['a provider card callback with neither side\'s optional fields', { tracking_code: 'CC-a1-1763812000', status: 'success', amount: 10 }, undefined, 'creditCard'],
    ['a dealer card callback read by a receiver of Provider API keys', unsigned.dealerCreditCard, 'provider', 'creditCard'],
    ['a provider-looking card callback read by a receiver of Dealer API keys', unsigned.creditCard, 'dealer', 'dealerCreditCard'],
    ['a dealer card callback without api', unsigned.dealerCreditCard, undefined, 'dealerCreditCard'],
  ] as const)('%s is verified as %s… from the keys\' API, never refused for its unsigned fields', (_name, body, account, kind) => {
    expect(verifyCallback(sign(body, PROVIDER), { ...options, api: account }).kind).toBe(kind);
  });

  test('an api that is neither provider nor dealer is a programming error', () => {
    // @ts-expect-error 'merchant' is not an API
    expect(() => verifyCallback(deposit, { ...options, api: 'merchant' })).toThrow(/api: must be 'provider' or 'dealer'/);
  });

  test.each(['NEWPFX-a1-1763812000', 'APPLE-PAY-x9Y8-1763812000', 'TPXD-Zz1-1763812000'])(
    'a correctly signed callback with the new prefix of %s is verified as kind unknown, with a named kind too',
    (trackingCode) => {
      const signed = sign({ ...unsigned.withdrawal, tracking_code: trackingCode, amount: '75.5' }, PROVIDER);
      for (const kind of [undefined, 'withdrawal', 'deposit'] as const) {
        const callback = verifyCallback(signed, { ...options, kind });
        expect(callback.kind).toBe('unknown');
        expect(callback.payload).toMatchObject({ tracking_code: trackingCode, status: 'rejected', amount: 75.5, iban: unsigned.withdrawal.iban });
      }
    },
  );

  test('a kind that is not one of the four is a programming error, not a refusal', () => {
    // @ts-expect-error 'refund' is not a callback kind
    expect(() => verifyCallback(deposit, { ...options, kind: 'refund' })).toThrow(RequestValidationError);
  });
});

describe('refusals', () => {
  const other = sign(unsigned.deposit, { apiKey: PROVIDER.apiKey, secretKey: 'another_secret' });
  const stale = sign(unsigned.deposit, PROVIDER, NOW_SECONDS - DEFAULT_CALLBACK_MAX_AGE_SECONDS - 1);
  const future = sign(unsigned.deposit, PROVIDER, NOW_SECONDS + 301);
  const withoutHeader = (name: string) => Object.fromEntries(Object.entries(deposit.headers).filter(([key]) => key !== name));
  const refusals: [string, CallbackInput, CallbackVerificationReason, Partial<VerifyCallbackOptions>?][] = [
    ['X-Api-Key is missing', { headers: withoutHeader('X-Api-Key'), body: deposit.body }, 'missing_header'],
    ['X-Timestamp is missing', { headers: withoutHeader('X-Timestamp'), body: deposit.body }, 'missing_header'],
    ['X-Hash is missing', { headers: withoutHeader('X-Hash'), body: deposit.body }, 'missing_header'],
    ['X-Hash is empty', { headers: { ...deposit.headers, 'X-Hash': '' }, body: deposit.body }, 'empty_header'],
    ['X-Hash is given twice in an array', { headers: { ...deposit.headers, 'X-Hash': [deposit.hash, deposit.hash] }, body: deposit.body }, 'repeated_header'],
    ['X-Hash is given twice under two letter cases', { headers: { ...deposit.headers, 'x-hash': deposit.hash }, body: deposit.body }, 'repeated_header'],
    ['X-Timestamp is an empty array', { headers: { ...deposit.headers, 'X-Timestamp': [] }, body: deposit.body }, 'missing_header'],
    // A caller's object may hold a number where Node would give text.
    ['X-Timestamp is a number, not text', { headers: { ...deposit.headers, 'X-Timestamp': NOW_SECONDS as unknown as string }, body: deposit.body }, 'empty_header'],
    ['the headers are a string', { headers: 'X-Hash: abc' as unknown as Headers, body: deposit.body }, 'missing_header'],
    ['X-Hash is wrong', { headers: { ...deposit.headers, 'X-Hash': other.hash }, body: { ...deposit.body, hash: other.hash } }, 'invalid_signature'],
    ['the body hash is right but X-Hash differs', { headers: { ...deposit.headers, 'X-Hash': other.hash }, body: deposit.body }, 'invalid_signature'],
    ['the hash is in upper case', { headers: { ...deposit.headers, 'X-Hash': deposit.hash.toUpperCase() }, body: { ...deposit.body, hash: deposit.hash.toUpperCase() } }, 'invalid_signature'],
    ['the status was changed', { headers: deposit.headers, body: { ...deposit.body, status: 'canceled' } }, 'invalid_signature'],
    ['the tracking code was changed', { headers: deposit.headers, body: { ...deposit.body, tracking_code: 'MAN-a8Xk29Qq-1763812000' } }, 'invalid_signature'],
    ['it was signed with another secret', other, 'invalid_signature'],
    ['a repeated X-Hash joined by a Fetch Headers', { headers: new Headers([...Object.entries(deposit.headers), ['X-Hash', deposit.hash]]), body: deposit.body }, 'invalid_signature'],
    ['the timestamp is one second past 3 days old', stale, 'timestamp_out_of_tolerance'],
    ['the timestamp is 301 s ahead', future, 'timestamp_out_of_tolerance'],
    ['the timestamp is 11 s old with a maximum age of 10', sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 11), 'timestamp_out_of_tolerance', { maxAgeSeconds: 10 }],
    ['the timestamp is 11 s ahead with a tolerance of 10', sign(unsigned.deposit, PROVIDER, NOW_SECONDS + 11), 'timestamp_out_of_tolerance', { toleranceSeconds: 10 }],
    ['X-Api-Key is another account\'s', { headers: { ...deposit.headers, 'X-Api-Key': DEALER.apiKey }, body: deposit.body }, 'api_key_mismatch'],
    ['the body is not JSON', { headers: deposit.headers, body: `{"tracking_code":` }, 'malformed_body'],
    ['the body is empty', { headers: deposit.headers, body: '' }, 'malformed_body'],
    ['the body is a JSON array', { headers: deposit.headers, body: '[1,2]' }, 'malformed_body'],
    ['the body is a JSON number', { headers: deposit.headers, body: '42' }, 'malformed_body'],
    ['the body is JSON null', { headers: deposit.headers, body: 'null' }, 'malformed_body'],
    ['the body is undefined', { headers: deposit.headers, body: undefined as unknown as string }, 'malformed_body'],
    ['the body bytes are not UTF-8', { headers: deposit.headers, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }, 'malformed_body'],
    ['the body is over 64 KiB', { headers: deposit.headers, body: JSON.stringify({ ...deposit.body, padding: 'x'.repeat(65_536) }) }, 'malformed_body'],
    ['the body has no tracking_code', { headers: deposit.headers, body: { ...deposit.body, tracking_code: undefined } }, 'malformed_body'],
    ['an authentic deposit callback has no amount', sign({ ...unsigned.deposit, amount: undefined }, PROVIDER), 'unreadable_payload'],
    ['neither timestamp matches the hash', { headers: { ...deposit.headers, 'X-Timestamp': String(NOW_SECONDS + 1) }, body: { ...deposit.body, timestamp: NOW_SECONDS + 2 } }, 'invalid_signature'],
    ['the hash matches only a stale body timestamp', { headers: { ...stale.headers, 'X-Timestamp': String(NOW_SECONDS) }, body: stale.body }, 'timestamp_out_of_tolerance'],
    ['the tracking code is a transfer id in the shape of a tracking code', sign({ ...unsigned.deposit, tracking_code: 'TRF-a1-1763812000' }, PROVIDER), 'invalid_tracking_code'],
    ['the prefix is in lower case', sign({ ...unsigned.deposit, tracking_code: 'newpfx-a1-1763812000' }, PROVIDER), 'invalid_tracking_code'],
    ['a new prefix with the status moved into the seconds', sign({ ...unsigned.deposit, tracking_code: 'NEWPFX-a1-1763812000completed', status: '' }, PROVIDER), 'invalid_tracking_code'],
    ['a new prefix with an empty status', sign({ ...unsigned.deposit, tracking_code: 'NEWPFX-a1-1763812000', status: '' }, PROVIDER), 'invalid_status'],
    ['the tracking code is a transfer id', sign({ ...unsigned.deposit, tracking_code: 'TRF-a1b2' }, PROVIDER), 'invalid_tracking_code'],
  ];

  test.each(refusals)('%s: refused with %s', (_name, input, reason, extra) => {
    const error = refusal(() => verifyCallback(input, { ...options, ...extra }));
    expect(error.reason).toBe(reason);
    expect(error.status).toBe(reason === 'unreadable_payload' ? 500 : ['malformed_body', 'invalid_tracking_code', 'invalid_status', 'kind_mismatch'].includes(reason) ? 400 : 401);
    // The age is judged after the hash: a refusal for the time is of a genuine callback.
    expect(error.signatureVerified).toBe(reason === 'unreadable_payload' || reason === 'timestamp_out_of_tolerance');
    expect(error.name).toBe('CallbackVerificationError');
  });

  test.each(refusals)('%s: the message holds no key and no hash', (_name, input, _reason, extra) => {
    const error = refusal(() => verifyCallback(input, { ...options, ...extra }));
    for (const secret of [PROVIDER.apiKey, PROVIDER.secretKey, DEALER.apiKey, deposit.hash, other.hash, deposit.hash.toUpperCase()]) {
      expect(error.message).not.toContain(secret);
    }
  });

  test('a schema failure of a genuine callback names the field and the rule', () => {
    const error = refusal(() => verifyCallback(sign({ ...unsigned.deposit, amount: 'lots' }, PROVIDER), options));
    expect(error.issues.map((issue) => issue.field)).toEqual(['amount']);
    expect(error.message).toContain('deposit');
  });

  test('authentication comes before the schema: a forged body that breaks the schema is a 401, not a 400', () => {
    const forged = { headers: { ...deposit.headers, 'X-Hash': other.hash }, body: { ...deposit.body, hash: other.hash, amount: 'lots' } };
    expect(refusal(() => verifyCallback(forged, options)).reason).toBe('invalid_signature');
  });

  test('a stale or future timestamp is told apart in the message', () => {
    expect(refusal(() => verifyCallback(stale, options)).message).toContain('259201 s old; at most 259200 s (maxAgeSeconds)');
    expect(refusal(() => verifyCallback(future, options)).message).toContain('301 s in the future; at most 300 s (toleranceSeconds)');
  });

  test('a missing input object is a malformed body', () => {
    expect(refusal(() => verifyCallback(null as unknown as CallbackInput, options)).reason).toBe('malformed_body');
  });

  test.each([
    ['an empty apiKey', { apiKey: '' }],
    ['an empty secretKey', { secretKey: '' }],
    ['a negative tolerance', { toleranceSeconds: -1 }],
    ['a tolerance that is not a number', { toleranceSeconds: Number.NaN }],
  ])('%s is a programming error (RequestValidationError), not a refusal', (_name, extra) => {
    expect(() => verifyCallback(deposit, { ...options, ...extra })).toThrow(RequestValidationError);
  });
});

describe('properties', () => {
  const prefixes = ['MAN', 'WIT', 'EIBAN', 'EIBAN-WIT', 'TPBD', 'TPBW', 'TPCD', 'TPCW', 'TPWD', 'TPWW', 'DEP', 'WDR'];
  const trackingCode = fc
    .tuple(fc.constantFrom(...prefixes), fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }))
    .map(([prefix, segment, seconds]) => `${prefix}-${segment}-${seconds}`);
  const signedDeposit = fc
    .record({ tracking_code: trackingCode, status: fc.stringMatching(/^[a-z][a-z_]{0,15}$/), timestamp: fc.integer({ min: NOW_SECONDS - 300, max: NOW_SECONDS + 300 }) })
    .map(({ timestamp, ...fields }) => sign({ ...unsigned.deposit, ...fields }, PROVIDER, timestamp));

  test('every signed callback is accepted', () => {
    fc.assert(
      fc.property(signedDeposit, (signed) => {
        expect(verifyCallback(signed, options).payload.hash).toBe(signed.hash);
      }),
    );
  });

  test('any change to tracking_code, status, timestamp or hash, in body and headers alike, is refused as invalid_signature', () => {
    const change = fc.oneof(
      fc.record({ field: fc.constant('tracking_code'), value: trackingCode }),
      fc.record({ field: fc.constant('status'), value: fc.stringMatching(/^[a-z][a-z_]{0,15}$/) }),
      fc.record({ field: fc.constant('timestamp'), value: fc.integer({ min: 0, max: 4_000_000_000 }) }),
      fc.record({ field: fc.constant('hash'), value: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()) }),
    );
    fc.assert(
      fc.property(signedDeposit, change, (signed, { field, value }) => {
        fc.pre(signed.body[field] !== value);
        const headers = { ...signed.headers };
        if (field === 'timestamp') headers['X-Timestamp'] = String(value);
        if (field === 'hash') headers['X-Hash'] = value;
        const error = refusal(() => verifyCallback({ headers, body: { ...signed.body, [field]: value } }, options));
        // An emptied X-Hash is refused as missing: still refused, still 401.
        expect(error.reason).toBe(field === 'hash' && value === '' ? 'empty_header' : 'invalid_signature');
        expect(error.status).toBe(401);
      }),
    );
  });

  test('any change to a signed field of a dealer card callback verified from its body alone is refused', () => {
    fc.assert(
      fc.property(fc.constantFrom('tracking_code', 'status', 'timestamp', 'hash'), fc.integer({ min: 0, max: 63 }), (field, position) => {
        const original = String(dealerCard.body[field]);
        const index = position % original.length;
        const changed = `${original.slice(0, index)}${original[index] === '1' ? '2' : '1'}${original.slice(index + 1)}`;
        const value = field === 'timestamp' ? Number(changed) : changed;
        const { reason } = refusal(() => verifyCallback({ body: { ...dealerCard.body, [field]: value } }, headerlessDealerOptions));
        // A change that breaks the tracking code's shape is refused before the hash is looked at.
        expect(['invalid_signature', 'invalid_tracking_code', 'invalid_status']).toContain(reason);
      }),
    );
  });

  const onlyRefuses = (input: CallbackInput): void => {
    try {
      verifyCallback(input, options);
    } catch (error) {
      if (!(error instanceof CallbackVerificationError)) throw error;
    }
  };

  test('arbitrary bytes and text never throw anything but CallbackVerificationError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 512 }), fc.string(), fc.json()), fc.option(fc.constant(deposit.headers), { nil: undefined }), (body, headers) => {
        onlyRefuses({ headers, body });
      }),
    );
  });

  test('arbitrary objects and headers never throw anything but CallbackVerificationError', () => {
    const header = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.anything());
    const headers = fc.oneof(
      fc.constant(undefined),
      fc.anything(),
      fc.dictionary(fc.constantFrom('x-api-key', 'X-Timestamp', 'x-hash', 'X-HASH', 'host', 'get'), header),
    );
    const body = fc.oneof(
      fc.anything(),
      fc.record(
        { tracking_code: fc.oneof(trackingCode, fc.constantFrom('CC-a1-1763812000', 'TRF-a1'), fc.anything()), status: fc.anything(), timestamp: fc.anything(), hash: fc.anything(), amount: fc.anything() },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(headers, body, (anyHeaders, anyBody) => {
        onlyRefuses({ headers: anyHeaders as CallbackInput['headers'], body: anyBody as CallbackInput['body'] });
      }),
    );
  });
});

describe('the age of a callback', () => {
  test('a genuine callback redelivered 2 days after it was signed is accepted, and its age is reported', () => {
    const twoDays = 2 * 24 * 3600;
    const redelivered = sign(unsigned.deposit, PROVIDER, NOW_SECONDS - twoDays);
    const callback = verifyCallback(redelivered, options);
    expect([callback.kind, callback.ageSeconds]).toEqual(['deposit', twoDays]);
  });

  test('the default maximum age is 3 days: exactly 3 days old is accepted, one second more is refused', () => {
    expect(DEFAULT_CALLBACK_MAX_AGE_SECONDS).toBe(259_200);
    expect(verifyCallback(sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 259_200), options).ageSeconds).toBe(259_200);
    const error = refusal(() => verifyCallback(sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 259_201), options));
    expect([error.reason, error.status]).toEqual(['timestamp_out_of_tolerance', 401]);
  });

  test('a timestamp more than 300 s in the future is still refused; 300 s ahead is accepted with a negative age', () => {
    expect(verifyCallback(sign(unsigned.deposit, PROVIDER, NOW_SECONDS + 300), options).ageSeconds).toBe(-300);
    expect(refusal(() => verifyCallback(sign(unsigned.deposit, PROVIDER, NOW_SECONDS + 301), options)).reason).toBe('timestamp_out_of_tolerance');
  });

  test('maxAgeSeconds tightens the window and loosens it', () => {
    const hourOld = sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 3600);
    expect(refusal(() => verifyCallback(hourOld, { ...options, maxAgeSeconds: 600 })).message).toContain('3600 s old; at most 600 s (maxAgeSeconds)');
    const weekOld = sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 7 * 24 * 3600);
    expect(refusal(() => verifyCallback(weekOld, options)).reason).toBe('timestamp_out_of_tolerance');
    expect(verifyCallback(weekOld, { ...options, maxAgeSeconds: 8 * 24 * 3600 }).ageSeconds).toBe(7 * 24 * 3600);
  });

  const VERIFY_OPTION_NAMES = 'apiKey, secretKey, maxAgeSeconds, toleranceSeconds, kind, api, dealerCardWithoutHeaders, now, previousSecretKey';

  test.each([
    ['the first options it is given', () => ({ apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, maxAge: 5, now: () => now() + 1 })],
    ['another object of the values it verified with just before', () => ({ ...options, maxAge: 5 })],
    [
      'the very object it verified with just before, given the name since',
      () => {
        // Values of its own, so that it is the object the verifier was made from.
        const same = { ...options, toleranceSeconds: 31 };
        expect(verifyCallback(deposit, same).kind).toBe('deposit');
        return Object.assign(same, { maxAge: 5 });
      },
    ],
  ])('maxAge, not an option, is refused with %s, naming maxAgeSeconds among the options, rather than leave the age limit at 3 days', (_case, made) => {
    expect(verifyCallback(deposit, options).kind).toBe('deposit');
    let thrown: unknown;
    try {
      verifyCallback(deposit, made());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RequestValidationError);
    expect((thrown as RequestValidationError).issues).toEqual([
      { field: 'maxAge', rule: 'invalid_option', message: `is not an option of verifyCallback (misspelt, or removed?); its options are ${VERIFY_OPTION_NAMES}` },
    ]);
    // The options it verified with are still taken, the same object and a copy alike.
    expect(verifyCallback(deposit, options).kind).toBe('deposit');
    expect(verifyCallback(deposit, { ...options }).kind).toBe('deposit');
  });

  test("the account's keys object, credentialKey included, and an option given as undefined are taken", () => {
    expect(verifyCallback(deposit, { ...PROVIDER, now }).kind).toBe('deposit');
    expect(verifyCallback(deposit, { ...options, maxAge: undefined } as VerifyCallbackOptions).kind).toBe('deposit');
  });

  test('toleranceSeconds bounds only the future: it does not shorten the maximum age', () => {
    const hourOld = sign(unsigned.deposit, PROVIDER, NOW_SECONDS - 3600);
    expect(verifyCallback(hourOld, { ...options, toleranceSeconds: 10 }).ageSeconds).toBe(3600);
  });

  test('a stale timestamp is refused only after the hash: a forger cannot learn the window from the answers', () => {
    const forgedAndStale = sign(unsigned.deposit, { apiKey: PROVIDER.apiKey, secretKey: 'not_the_secret' }, NOW_SECONDS - 300_000);
    expect(refusal(() => verifyCallback(forgedAndStale, options)).reason).toBe('invalid_signature');
  });

  test.each([
    ['maxAgeSeconds', Number.NaN],
    ['maxAgeSeconds', -1],
    ['maxAgeSeconds', Number.POSITIVE_INFINITY],
    ['maxAgeSeconds', '3600'],
    ['toleranceSeconds', Number.NaN],
    ['toleranceSeconds', -5],
    ['toleranceSeconds', Number.POSITIVE_INFINITY],
  ])('%s = %s is refused with a RequestValidationError naming the option, the value and the range', (option, value) => {
    let thrown: unknown;
    try {
      verifyCallback(deposit, { ...options, [option]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RequestValidationError);
    const { issues, message } = thrown as RequestValidationError;
    expect(issues[0]?.field).toBe(option);
    expect(message).toContain(`got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
    expect(message).toContain('a finite number of seconds, 0 or more');
  });

  test.each([Number.NaN, Number.POSITIVE_INFINITY, '1763812345000', undefined])('a clock that reads %s is refused, never treated as any time', (reading) => {
    expect(() => verifyCallback(deposit, { ...options, now: () => reading as number })).toThrow(/now\(\): must be a finite number/);
  });

  test.each([
    ['apiKey', undefined, 'PAYORCH_PROVIDER_API_KEY'],
    ['secretKey', '', 'PAYORCH_PROVIDER_SECRET_KEY'],
  ])('a missing %s names the environment variables it usually comes from', (option, value, variable) => {
    expect(() => verifyCallback(deposit, { ...options, [option]: value })).toThrow(variable);
  });
});

describe('signature confusion', () => {
  // The X-Hash of a basic-signed request: SHA-256(api_key + secret_key + timestamp). With an empty
  // tracking_code and status the callback hash is the same value (spec 5.1, 5.3).
  const requestHash = sha256(PROVIDER.apiKey, PROVIDER.secretKey, String(NOW_SECONDS));
  const forged = { tracking_code: '', status: '', amount: 1_000_000, timestamp: NOW_SECONDS, hash: requestHash };
  const forgedHeaders = { 'X-Api-Key': PROVIDER.apiKey, 'X-Timestamp': String(NOW_SECONDS), 'X-Hash': requestHash };

  test.each(['deposit', 'withdrawal', 'creditCard', 'dealerCreditCard', undefined] as const)(
    'a request X-Hash replayed as a callback with empty tracking_code and status is refused (kind %s)',
    (kind) => {
      const error = refusal(() => verifyCallback({ headers: forgedHeaders, body: forged }, { ...options, kind }));
      expect([error.reason, error.status]).toEqual(['invalid_tracking_code', 400]);
    },
  );

  test('the same forgery without headers is refused even by a dealer card receiver that opted in', () => {
    const dealerHash = sha256(DEALER.apiKey, DEALER.secretKey, String(NOW_SECONDS));
    const error = refusal(() => verifyCallback({ body: { ...forged, hash: dealerHash } }, { ...headerlessDealerOptions, kind: 'dealerCreditCard' }));
    expect(error.reason).toBe('invalid_tracking_code');
  });

  test('a status that is empty or not a word is refused before the hash, with its own reason', () => {
    for (const status of ['', ' ', 'completed\n', '1763812345', 'x'.repeat(65)]) {
      const signed = sign({ ...unsigned.deposit, status }, PROVIDER);
      expect(refusal(() => verifyCallback(signed, options)).reason).toBe('invalid_status');
    }
  });

  test('the tracking code moved into the status is refused: the concatenation cannot be re-split', () => {
    // tracking_code + status = "MAN-a1-1763812000" + "completed"; moving the boundary keeps the hash.
    const moved = sign({ ...unsigned.deposit, tracking_code: 'MAN-a1-1763812000completed', status: '' }, PROVIDER);
    expect(refusal(() => verifyCallback(moved, options)).reason).toBe('invalid_tracking_code');
  });

  test.each([
    ['deposit', 'WIT-a1-1763812000'],
    ['deposit', 'CC-a1-1763812000'],
    ['withdrawal', 'MAN-a1-1763812000'],
    ['withdrawal', 'EIBAN-b2-1763812000'],
    ['creditCard', 'DEP-a1-1763812000'],
    ['dealerCreditCard', 'TPWW-a1-1763812000'],
  ] as const)('a %s receiver refuses a callback with the tracking code %s as kind_mismatch', (kind, trackingCode) => {
    const signed = sign({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);
    const error = refusal(() => verifyCallback(signed, { ...options, kind }));
    expect([error.reason, error.status, error.signatureVerified]).toEqual(['kind_mismatch', 400, true]);
  });

  test.each([
    ['signed with another secret key', sign({ ...unsigned.deposit, tracking_code: 'WIT-a1-1763812000' }, { ...PROVIDER, secretKey: 'prov_secret_other_9' })],
    ['with another API key', sign({ ...unsigned.deposit, tracking_code: 'WIT-a1-1763812000' }, { ...PROVIDER, apiKey: 'prov_api_other_9' })],
    ['without its headers', { body: sign({ ...unsigned.deposit, tracking_code: 'WIT-a1-1763812000' }, PROVIDER).body }],
  ])('a callback of another kind %s is still kind_mismatch, its hash not verified', (_name, input) => {
    const error = refusal(() => verifyCallback(input, { ...options, kind: 'deposit' }));
    expect([error.reason, error.status, error.signatureVerified]).toEqual(['kind_mismatch', 400, false]);
  });

  test.each([
    ['deposit', ['MAN', 'EIBAN', 'TPBD', 'TPCD', 'TPWD', 'DEP']],
    ['withdrawal', ['WIT', 'EIBAN-WIT', 'TPBW', 'TPCW', 'TPWW', 'WDR']],
    ['creditCard', ['CC']],
  ] as const)('a %s receiver accepts every prefix of its kind', (kind, prefixes) => {
    for (const prefix of prefixes) {
      const signed = sign({ ...unsigned[kind], tracking_code: `${prefix}-a1-1763812000` }, PROVIDER);
      expect(verifyCallback(signed, { ...options, kind }).kind).toBe(kind);
    }
  });

  test('without dealerCardWithoutHeaders or its kind, a dealer card callback without headers is refused as missing_header, its own hash verified', () => {
    const error = refusal(() => verifyCallback({ body: dealerCard.body }, dealerOptions));
    expect([error.reason, error.status, error.signatureVerified]).toEqual(['missing_header', 401, true]);
    expect(error.message).toContain("kind: 'dealerCreditCard' or dealerCardWithoutHeaders");
    const forged = refusal(() => verifyCallback({ body: { ...dealerCard.body, hash: 'f'.repeat(64) } }, dealerOptions));
    expect([forged.reason, forged.signatureVerified]).toEqual(['missing_header', false]);
  });

  test("a receiver whose kind is 'dealerCreditCard' takes a dealer card callback without headers: the receiver's word decides", () => {
    expect(verifyCallback({ body: dealerCard.body }, { ...dealerOptions, kind: 'dealerCreditCard' }).kind).toBe('dealerCreditCard');
    expect(refusal(() => verifyCallback({ body: { ...dealerCard.body, hash: 'f'.repeat(64) } }, { ...dealerOptions, kind: 'dealerCreditCard' })).reason).toBe('invalid_signature');
  });

  test('a provider card callback stripped of its headers does not become a dealer one, even with dealer-looking fields', () => {
    const providerCard = sign({ ...unsigned.creditCard, site_id: undefined, username: undefined, user_id: undefined, customer_phone: '+90555' }, PROVIDER);
    // The provider's receiver has not opted in: refused.
    expect(refusal(() => verifyCallback({ body: providerCard.body }, options)).reason).toBe('missing_header');
    expect(refusal(() => verifyCallback({ body: providerCard.body }, { ...options, kind: 'creditCard' })).reason).toBe('missing_header');
    // With its headers, it is what the receiver says it is.
    expect(verifyCallback(providerCard, { ...options, kind: 'creditCard' }).kind).toBe('creditCard');
  });

  test('a receiver that opted in but names another kind still requires the headers', () => {
    const signed = sign(unsigned.creditCard, PROVIDER);
    expect(refusal(() => verifyCallback({ body: signed.body }, { ...options, dealerCardWithoutHeaders: true, kind: 'creditCard' })).reason).toBe('missing_header');
  });

  test('a header-less callback taken by an opted-in receiver is always read as a dealer card callback, never detected from its fields', () => {
    const providerLooking = sign({ ...unsigned.dealerCreditCard, site_id: 7, username: 'ada' }, DEALER);
    expect(verifyCallback({ body: providerLooking.body }, headerlessDealerOptions).kind).toBe('dealerCreditCard');
  });

  test('dealerCardWithoutHeaders must be a boolean', () => {
    expect(() => verifyCallback(deposit, { ...options, dealerCardWithoutHeaders: 'yes' as unknown as boolean })).toThrow(RequestValidationError);
  });
});

describe('either timestamp (spec 5.3 signs X-Timestamp, 6.5 "the payload timestamp")', () => {
  const older = NOW_SECONDS - 600;
  // Signed with the body's timestamp, delivered with a re-stamped X-Timestamp (a redelivery).
  const bodySigned = sign(unsigned.deposit, PROVIDER, older);
  const restamped = { headers: { ...bodySigned.headers, 'X-Timestamp': String(NOW_SECONDS) }, body: bodySigned.body };
  // Signed with X-Timestamp, the body's timestamp another (or unreadable).
  const headerSigned = (timestamp: unknown) => ({ headers: deposit.headers, body: { ...deposit.body, timestamp } });

  test.each([
    ['the hash matches the body timestamp, X-Timestamp was re-stamped', restamped, older, 600],
    ['the hash matches X-Timestamp, the body timestamp differs', headerSigned(NOW_SECONDS - 5), NOW_SECONDS, 0],
    ['the hash matches X-Timestamp, the body timestamp is not an integer', headerSigned(NOW_SECONDS + 0.5), NOW_SECONDS, 0],
    ['the hash matches X-Timestamp, the body has no timestamp', headerSigned(undefined), NOW_SECONDS, 0],
    ['X-Timestamp has a leading zero, the body timestamp matches', { headers: { ...deposit.headers, 'X-Timestamp': `0${NOW_SECONDS}` }, body: deposit.body }, NOW_SECONDS, 0],
  ])('%s: accepted, aged and stamped by the one that matched', (_name, input, signedAt, age) => {
    const callback = verifyCallback(input, options);
    expect([callback.payload.timestamp, callback.ageSeconds]).toEqual([signedAt, age]);
  });

  test.each([
    ['missing', undefined],
    ['another value', 'f'.repeat(64)],
  ])('the body hash %s does not refuse a callback whose X-Hash verifies; the payload carries X-Hash', (_name, hash) => {
    const callback = verifyCallback({ headers: deposit.headers, body: { ...deposit.body, hash } }, options);
    expect(callback.payload.hash).toBe(deposit.hash);
  });

  test('a dealer card callback without headers still needs its body hash and timestamp', () => {
    expect(refusal(() => verifyCallback({ body: { ...dealerCard.body, hash: undefined } }, headerlessDealerOptions)).reason).toBe('malformed_body');
    expect(refusal(() => verifyCallback({ body: { ...dealerCard.body, timestamp: 'soon' } }, headerlessDealerOptions)).reason).toBe('malformed_body');
  });
});

describe('unsigned fields never refuse a callback whose hash verifies', () => {
  test.each([
    ['username, fullname and user_id as JSON numbers (JSON_NUMERIC_CHECK)', 'deposit', { username: 12345, fullname: 42, user_id: 7 }, { username: '12345', fullname: '42', user_id: '7' }],
    ['amount and site_id as numeric strings', 'deposit', { amount: ' 250.00 ', site_id: '7' }, { amount: 250, site_id: 7 }],
    ['optional fields as null', 'withdrawal', { username: null, fullname: null, iban: null, tx_id: null }, { username: undefined, iban: undefined }],
    ['the IBAN as a number', 'withdrawal', { iban: 330006100519786 }, { iban: '330006100519786' }],
    ['card names, e-mail and currency as numbers', 'creditCard', { customer_name: 1, customer_email: 2, currency: 949, username: 3 }, { customer_name: '1', customer_email: '2', currency: '949' }],
    ['the dealer success flag as "true"', 'dealerCreditCard', { success: 'true' }, { success: true }],
    ['the dealer success flag as 0', 'dealerCreditCard', { success: 0 }, { success: false }],
    ['the dealer phone and status message as numbers', 'dealerCreditCard', { customer_phone: 905551112233, status_message: 200 }, { customer_phone: '905551112233', status_message: '200' }],
  ] as const)('%s: normalised', (_name, kind, fields, read) => {
    const credentials = kind === 'dealerCreditCard' ? DEALER : PROVIDER;
    const callback = verifyCallback(sign({ ...unsigned[kind], ...fields }, credentials), { apiKey: credentials.apiKey, secretKey: credentials.secretKey, now, kind });
    expect(callback.payload).toMatchObject(read);
  });

  test('what still cannot be typed is unreadable_payload: 500, signatureVerified, with the field named', () => {
    const error = refusal(() => verifyCallback(sign({ ...unsigned.deposit, amount: '1.500,00 TL' }, PROVIDER), options));
    expect([error.reason, error.status, error.signatureVerified]).toEqual(['unreadable_payload', 500, true]);
    expect(error.issues.map((issue) => issue.field)).toEqual(['amount']);
    expect(error.message).toContain('the signature verified');
  });
});
