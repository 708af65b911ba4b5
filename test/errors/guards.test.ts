import { createRequire } from 'node:module';
import { describe, expect, expectTypeOf, test } from 'vitest';
import * as source from '../../src/index.js';
import { SandboxError } from '../../src/tools/sandbox/index.js';
import type { AuthFailureReason } from '../../src/index.js';

type Sdk = typeof source;
type ErrorClassName = { [K in keyof Sdk]: Sdk[K] extends abstract new (...args: never[]) => source.PayorchError ? K : never }[keyof Sdk];

/** Every error class an entry point exports, found by walking the exports rather than listed by hand. */
function errorClasses(entry: Record<string, unknown>, base: Sdk['PayorchError']): [string, Sdk['PayorchError']][] {
  return Object.entries(entry).filter((entryOf): entryOf is [string, Sdk['PayorchError']] => {
    const value = entryOf[1];
    return typeof value === 'function' && (value === base || value.prototype instanceof base);
  });
}

const failed = { method: 'POST', url: 'https://pay.example.com/api/provider/welcome', operation: 'welcome' };
const answer = (status: number, body: unknown) => ({ status, headers: {}, body, request: failed });

/** One error of each class, made by the SDK's own code paths where it has one, and the classes (its own and its ancestors) it must be recognised as. */
async function errorsOf(sdk: Sdk): Promise<[unknown, ErrorClassName[]][]> {
  const provider = new sdk.ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'a', secretKey: 's', credentialKey: 'c' });
  const invalid = await provider.manual.startDeposit({ fullname: 'A', username: 'a', user_id: '1', amount: 0 }).catch((error: unknown) => error);
  const callback = (() => {
    try {
      return sdk.verifyCallback({ body: '{}' }, { apiKey: 'a', secretKey: 's' });
    } catch (error) {
      return error;
    }
  })();
  const inbox = sdk.createMemoryInbox({ maxKeys: 1 });
  const key = (trackingCode: string) => ({ merchantId: 'provider', trackingCode, status: 'completed' });
  await inbox.process(key('MAN-a-1'), () => Promise.resolve());
  const full = await inbox.process(key('MAN-b-1'), () => Promise.resolve()).catch((error: unknown) => error);
  const trackingCode = sdk.safeParseTrackingCode('nope');
  const api = ['PayorchError', 'APIError'] as const;
  const call = { operation: 'provider.welcome', request: { method: 'POST', url: 'https://pay.example.com/api/provider/welcome' } };
  return [
    [sdk.APIError.generate(answer(401, { success: false, error: 'Invalid hash' })), [...api, 'AuthenticationError']],
    [sdk.APIError.generate(answer(403, { success: false, error: 'IP not allowed' })), [...api, 'PermissionDeniedError']],
    [sdk.APIError.generate(answer(422, { success: false, messages: ['amount is required'] })), [...api, 'UnprocessableEntityError']],
    [sdk.APIError.generate(answer(400, { success: false, error: 'Bad request' })), [...api, 'BadRequestError']],
    [sdk.APIError.generate(answer(409, { success: false, error: 'Conflict' })), [...api, 'ConflictError']],
    [sdk.APIError.generate(answer(402, { success: false, error: 'Payment required' })), [...api]],
    [sdk.APIError.generate(answer(404, { success: false, error: 'Not found' })), [...api, 'NotFoundError']],
    [sdk.APIError.generate(answer(429, { success: false, error: 'Slow down' })), [...api, 'RateLimitError']],
    [sdk.APIError.generate(answer(500, { success: false, error: 'Server error' })), [...api, 'InternalServerError']],
    [invalid, ['PayorchError', 'RequestValidationError']],
    [new sdk.ResponseValidationError('welcome', { status: 200, issues: [], body: {}, rawBody: '{}' }), ['PayorchError', 'ResponseValidationError']],
    [new sdk.ConnectionError({ ...call, cause: new Error('ECONNREFUSED'), reason: 'connection_refused' }), ['PayorchError', 'ConnectionError']],
    [new sdk.TimeoutError(1000, call), ['PayorchError', 'TimeoutError']],
    [new sdk.RequestAbortedError(new Error('stop'), call), ['PayorchError', 'RequestAbortedError']],
    [new sdk.TransferWaitTimeoutError('TRF-x1', 1000, 'pending'), ['PayorchError', 'TransferWaitTimeoutError']],
    [callback, ['PayorchError', 'CallbackVerificationError']],
    [trackingCode.success ? undefined : trackingCode.error, ['PayorchError', 'TrackingCodeError']],
    [full, ['PayorchError', 'InboxError', 'InboxFullError']],
    [new sdk.InboxError('the table has another shape'), ['PayorchError', 'InboxError']],
    [new sdk.QueueError('pg-boss did not take the job'), ['PayorchError', 'QueueError']],
    [new sdk.CallbackRetentionError(key('MAN-c-1'), 1, 2), ['PayorchError', 'CallbackRetentionError']],
    [new sdk.NotConfirmedError('confirm refused'), ['PayorchError', 'NotConfirmedError']],
    [new sdk.UnhandledError('no handler'), ['PayorchError', 'UnhandledError']],
    [new sdk.CallbackHandlingError('handler', new Error('ledger down')), ['PayorchError', 'CallbackHandlingError']],
  ];
}

/** The names of the classes `checker`'s guard recognises `error` as, in the order of `errorsOf` (ancestors first). */
function recognisedAs(checker: Sdk, error: unknown): string[] {
  return errorClasses(checker, checker.PayorchError)
    .filter(([, errorClass]) => checker.isPayorchError(error, errorClass))
    .map(([name]) => name)
    .sort((a, b) => depth(checker, a) - depth(checker, b));
}

function depth(checker: Sdk, name: string): number {
  let count = 0;
  for (let prototype: unknown = (checker[name as ErrorClassName] as { prototype: unknown }).prototype; prototype !== checker.PayorchError.prototype; prototype = Object.getPrototypeOf(prototype)) count += 1;
  return count;
}

describe('isPayorchError (src/errors/error.ts)', () => {
  test('every error class of every entry point is branded with the name it is exported under', () => {
    const classes = [...errorClasses(source, source.PayorchError), ['SandboxError', SandboxError] as const];
    expect(classes.map(([name]) => name)).toEqual(expect.arrayContaining(['PayorchError', 'APIError', 'InboxFullError', 'TrackingCodeError', 'SandboxError']));
    for (const [name, errorClass] of classes) {
      // Branded on first need: asking about the class is one.
      expect(() => source.isPayorchError(undefined, errorClass)).not.toThrow();
      expect(errorClass.prototype.name).toBe(name);
      expect(errorClass.name).toBe(name);
    }
  });

  test('holds for an error of the class given and its subclasses, and for nothing else', async () => {
    const made = await errorsOf(source);
    expect(made.map(([error]) => (error as Error).name)).toEqual(made.map(([, expected]) => expected.at(-1)));
    for (const [error, expected] of made) {
      expect(recognisedAs(source, error)).toEqual(expected);
      expect(source.isPayorchError(error)).toBe(true);
      expect(source.isPayorchError(error, SandboxError)).toBe(false);
    }
    for (const value of [new Error('x'), Object.assign(new Error('x'), { name: 'APIError' }), { name: 'PayorchError' }, null, undefined, 'APIError', 42]) {
      expect(recognisedAs(source, value)).toEqual([]);
      expect(source.isPayorchError(value)).toBe(false);
    }
  });

  test('recognises a SandboxError (payorch/sandbox) as a SandboxError and a PayorchError', () => {
    const error = new SandboxError('unknown_record', 'no such record');
    expect(source.isPayorchError(error, SandboxError)).toBe(true);
    expect(recognisedAs(source, error)).toEqual(['PayorchError']);
  });

  test('refuses a class that is not one of payorch, naming it, rather than answer false for every value', () => {
    class AppError extends source.PayorchError {}
    expect(source.isPayorchError(new AppError('x'))).toBe(true);
    const refusal = (() => {
      try {
        source.isPayorchError(new AppError('x'), AppError);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(source.RequestValidationError);
    expect(refusal).toMatchObject({ outcome: 'not_sent', message: 'Invalid argument to isPayorchError: errorClass: AppError is not an error class of payorch', issues: [{ field: 'errorClass', rule: 'invalid_argument' }] });
  });

  test('instanceof a class of the caller’s own is its prototype chain’s answer: a payorch error of its base is not one', () => {
    class AppError extends source.PayorchError {}
    expect(new AppError('x') instanceof AppError).toBe(true);
    expect(new AppError('x') instanceof source.PayorchError).toBe(true);
    expect(new source.PayorchError('x') instanceof AppError).toBe(false);
    expect(new source.InboxError('x') instanceof AppError).toBe(false);
    expect(new source.InboxError('x') instanceof source.QueueError).toBe(false);
    expect({ name: 'InboxError' } instanceof source.InboxError).toBe(false);
  });

  test('narrows to the class given, so its own fields need no cast', () => {
    const error: unknown = source.APIError.generate(answer(401, { success: false, error: 'Invalid hash' }));
    if (!source.isPayorchError(error, source.AuthenticationError)) throw new Error('not recognised');
    expectTypeOf(error.reason).toEqualTypeOf<AuthFailureReason>();
    expect(error.reason).toBe('invalid_hash');
  });

  test('recognises errors thrown by the other build, as instanceof does: ESM and CommonJS copies loaded in one process', async () => {
    // The built package as users get it: `import` reads dist/index.js, `require` dist/index.cjs.
    const esm = (await import(new URL('../../dist/index.js', import.meta.url).href)) as Sdk;
    const cjs = createRequire(import.meta.url)('../../dist/index.cjs') as Sdk;
    expect(esm.PayorchError).not.toBe(cjs.PayorchError);
    for (const [thrower, checker] of [
      [cjs, esm],
      [esm, cjs],
    ] as const) {
      const made = await errorsOf(thrower);
      for (const [error, expected] of made) {
        expect(recognisedAs(checker, error)).toEqual(expected);
        // `instanceof` sees across the copies too (the classes' Symbol.hasInstance reads the brand),
        // for the same classes, and no other.
        expect(errorClasses(checker, checker.PayorchError).filter(([, errorClass]) => error instanceof errorClass).map(([name]) => name).sort()).toEqual([...expected].sort());
      }
      // Not by way of the prototype chain: the copies' classes are others.
      expect(made.some(([error]) => Object.prototype.isPrototypeOf.call(checker.PayorchError.prototype, error as object))).toBe(false);
    }
  });
});
