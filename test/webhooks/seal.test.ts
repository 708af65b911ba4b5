import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CallbackJobError, RequestValidationError, resealCallbackJob } from '../../src/index.js';
import type { JobSeal } from '../../src/index.js';
import { canonicalJson, jobSealer } from '../../src/webhooks/seal.js';

// The seal itself: its canonical form, its keys and their windows, and re-sealing. What `apply`
// does with it is in receiver/deferred.test.ts and receiver/rotation.test.ts.

const OLD_KEY = 'old-secret-key-rotated-away';
const NEW_KEY = 'new-secret-key-after-rotation';
const UNTIL_MS = Date.parse('2025-11-22T12:52:25Z');

const UNSEALED = {
  version: 2,
  merchantId: 'merchant-1',
  kind: 'deposit',
  event: 'deposit.completed',
  payload: { tracking_code: 'MAN-seal01-1763812000', status: 'completed', amount: 250, user_id: 'u-1', fullname: 'Ada Yılmaz', timestamp: 1763812345, hash: 'ab'.repeat(32) },
  receivedAt: 1763812345000,
  signature: { hash: 'ab'.repeat(32), timestamp: 1763812345, in: 'headers' },
} as const;

/** A JSON value in every shape a job may hold. */
const json = fc.jsonValue({ maxDepth: 3 }).filter((value) => !Object.is(value, -0));

/** The same value with every object's members in the reverse order, as PostgreSQL's jsonb may give them back. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([name, member]) => [name, reordered(member)]));
}

const refusal = (run: () => unknown): CallbackJobError => {
  try {
    run();
  } catch (error) {
    if (error instanceof CallbackJobError) return error;
    throw error;
  }
  throw new Error('expected a CallbackJobError');
};

describe('canonicalJson', () => {
  test('sorts the members of every object, drops undefined members, and writes no spaces', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: 'ğ' }], c: undefined }, 'é': true })).toBe('{"a":{"d":[3,{"y":"ğ","z":null}]},"b":1,"é":true}');
  });

  test('is the same text after a JSON round trip and after any reordering of members', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        return canonicalJson(JSON.parse(JSON.stringify(value))) === text && canonicalJson(reordered(value)) === text && canonicalJson(structuredClone(value)) === text;
      }),
      { numRuns: 300 },
    );
  });

  test('refuses what JSON cannot hold as a malformed job', () => {
    expect(() => canonicalJson({ amount: 10n })).toThrow(CallbackJobError);
    expect(() => canonicalJson({ amount: 10n })).toThrow(/the job is not JSON data \(it holds a bigint\)/);
  });
});

describe('a job sealer', () => {
  const sealer = jobSealer(NEW_KEY, undefined);

  test('seals a job with a key id and a MAC that reveal nothing of the key, and checks it after a round trip through JSON and a reordering', () => {
    const job = sealer.seal(UNSEALED);
    expect(job.seal).toEqual({ keyId: expect.stringMatching(/^[0-9a-f]{16}$/), mac: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(job)).not.toContain(NEW_KEY);
    expect(jobSealer(OLD_KEY, undefined).seal(UNSEALED).seal.keyId).not.toBe(job.seal.keyId);
    expect(() => {
      sealer.check(JSON.parse(JSON.stringify(job)) as Record<string, unknown>, 0);
    }).not.toThrow();
    expect(() => {
      sealer.check(reordered(job) as Record<string, unknown>, 0);
    }).not.toThrow();
  });

  test.each<[string, (job: Record<string, unknown>) => Record<string, unknown>]>([
    ['the amount', (job) => ({ ...job, payload: { ...(job['payload'] as object), amount: 999_999 } })],
    ['the user', (job) => ({ ...job, payload: { ...(job['payload'] as object), user_id: 'u-2' } })],
    ['a field added to the payload', (job) => ({ ...job, payload: { ...(job['payload'] as object), iban: 'TR330006100519786457841326' } })],
    ['the receipt time', (job) => ({ ...job, receivedAt: (job['receivedAt'] as number) + 1 })],
    ['the event', (job) => ({ ...job, event: 'deposit.canceled' })],
    ['the kind', (job) => ({ ...job, kind: 'withdrawal' })],
    ['the account', (job) => ({ ...job, merchantId: 'merchant-2' })],
    ['the version', (job) => ({ ...job, version: 3 })],
    ['the signature', (job) => ({ ...job, signature: { ...(job['signature'] as object), in: 'body' } })],
    ['a field added to the job', (job) => ({ ...job, traceContext: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } })],
    ['the MAC', (job) => ({ ...job, seal: { ...(job['seal'] as JobSeal), mac: 'f'.repeat(64) } })],
  ])('refuses a job whose %s changed, as invalid_signature of the seal', (_field, change) => {
    const error = refusal(() => {
      sealer.check(change(sealer.seal(UNSEALED)), 0);
    });
    expect([error.reason, error.field]).toEqual(['invalid_signature', 'seal']);
    expect(error.message).toMatch(/changed in the queue/);
  });

  test.each<[string, unknown]>([
    ['no seal', undefined],
    ['a seal that is text', 'ab'.repeat(40)],
    ['a key id that is not one', { keyId: 'current', mac: 'ab'.repeat(32) }],
  ])('refuses a job with %s as malformed', (_name, seal) => {
    const error = refusal(() => {
      sealer.check({ ...UNSEALED, seal }, 0);
    });
    expect([error.reason, error.field]).toEqual(['malformed_body', 'seal']);
  });

  test('accepts a seal of the previous key until `until` and refuses it from then on as seal_key_expired, never as a forgery', () => {
    const rotated = jobSealer(NEW_KEY, { secretKey: OLD_KEY, untilMs: UNTIL_MS });
    const old = jobSealer(OLD_KEY, undefined).seal(UNSEALED);
    expect(() => {
      rotated.check(old, UNTIL_MS - 1);
    }).not.toThrow();
    const error = refusal(() => {
      rotated.check(old, UNTIL_MS);
    });
    expect([error.reason, error.field, error.status]).toEqual(['seal_key_expired', 'seal', 401]);
    expect(error.message).toMatch(/window closed at 2025-11-22T12:52:25.000Z.*re-seal it with that key \(resealCallbackJob\)/);
    expect(error.message).not.toMatch(/forged|changed/);
    // A job changed after its previous-key seal is refused as changed, inside the window or past it.
    for (const at of [UNTIL_MS - 1, UNTIL_MS]) {
      expect(
        refusal(() => {
          rotated.check({ ...old, receivedAt: 1 }, at);
        }).reason,
      ).toBe('invalid_signature');
    }
  });

  test('refuses a seal of a key it does not hold as seal_key_unknown, retryable, naming both explanations', () => {
    const error = refusal(() => {
      sealer.check(jobSealer('a key from two rotations ago', undefined).seal(UNSEALED), 0);
    });
    expect([error.reason, error.field, error.retryable]).toEqual(['seal_key_unknown', 'seal', true]);
    expect(error.message).toMatch(/does not hold.*a newer one this worker does not have yet, or one it dropped/);
  });

  test('refuses a seal of the previous key past `until` and a changed job as not retryable', () => {
    const rotated = jobSealer(NEW_KEY, { secretKey: OLD_KEY, untilMs: UNTIL_MS });
    const old = jobSealer(OLD_KEY, undefined).seal(UNSEALED);
    expect(refusal(() => { rotated.check(old, UNTIL_MS); }).retryable).toBe(false);
    expect(refusal(() => { rotated.check({ ...old, receivedAt: 1 }, 0); }).retryable).toBe(false);
  });
});

describe('resealCallbackJob', () => {
  const oldJob = () => jobSealer(OLD_KEY, undefined).seal(UNSEALED);
  const keys = { oldSecretKey: OLD_KEY, secretKey: NEW_KEY };

  test('checks the old seal with oldSecretKey and seals the job again with secretKey, keeping every other field', () => {
    const job = oldJob();
    const resealed = resealCallbackJob(job, keys);
    const { seal, ...fields } = resealed;
    expect(fields).toEqual(UNSEALED);
    expect(seal).toEqual(jobSealer(NEW_KEY, undefined).seal(UNSEALED).seal);
    expect(() => {
      jobSealer(NEW_KEY, undefined).check(resealed, Number.MAX_SAFE_INTEGER);
    }).not.toThrow();
    // The job given is not changed; one already sealed with secretKey comes back as it is.
    expect(job.seal).toEqual(oldJob().seal);
    expect(resealCallbackJob(resealed, keys)).toBe(resealed);
  });

  test('refuses a job changed after its seal, and one the old key did not seal, re-sealing nothing and showing no key', () => {
    const changed = { ...oldJob(), payload: { ...UNSEALED.payload, amount: 999_999 } };
    const forged = jobSealer('a guessed key', undefined).seal({ ...UNSEALED, payload: { ...UNSEALED.payload, amount: 999_999 } });
    for (const job of [changed, forged]) {
      const error = refusal(() => resealCallbackJob(job, keys));
      expect([error.reason, error.field]).toEqual(['invalid_signature', 'seal']);
      expect(error.message).toMatch(/does not verify with oldSecretKey.*Nothing was re-sealed/);
      expect(error.message).not.toContain(OLD_KEY);
      expect(error.message).not.toContain(NEW_KEY);
    }
    expect(refusal(() => resealCallbackJob('MAN-x' as never, keys))).toMatchObject({ reason: 'malformed_body', field: 'job' });
    expect(refusal(() => resealCallbackJob(UNSEALED as never, keys))).toMatchObject({ reason: 'malformed_body', field: 'seal' });
  });

  test.each<[string, unknown]>([
    ['oldSecretKey', { secretKey: NEW_KEY }],
    ['oldSecretKey', { oldSecretKey: '', secretKey: NEW_KEY }],
    ['secretKey', { oldSecretKey: OLD_KEY, secretKey: 42 }],
  ])('refuses keys without %s as a RequestValidationError naming it', (field, given) => {
    let caught: unknown;
    try {
      resealCallbackJob(oldJob(), given as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestValidationError);
    expect((caught as RequestValidationError).issues.map((issue) => issue.field)).toEqual([field]);
  });
});
