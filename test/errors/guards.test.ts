import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import * as source from '../../src/index.js';
import { isSandboxError, SandboxError } from '../../src/sandbox/index.js';

type Sdk = typeof source;

const GUARDS = [
  'isPayorchError',
  'isAPIError',
  'isAuthenticationError',
  'isPermissionDeniedError',
  'isUnprocessableEntityError',
  'isRequestValidationError',
  'isResponseValidationError',
  'isConnectionError',
  'isTimeoutError',
  'isRequestAbortedError',
  'isCallbackVerificationError',
  'isTrackingCodeError',
] as const;
type Guard = (typeof GUARDS)[number];

const failed = { method: 'POST', url: 'https://pay.example.com/api/provider/welcome', operation: 'welcome' };
const answer = (status: number, body: unknown) => ({ status, headers: {}, body, request: failed });

/** One error of each class, made by the SDK's own code paths where it has one, and the guards each must satisfy. */
async function errorsOf(sdk: Sdk): Promise<[unknown, Guard[]][]> {
  const provider = new sdk.ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'a', secretKey: 's', credentialKey: 'c' });
  const invalid = await provider.manual.startDeposit({ fullname: 'A', username: 'a', user_id: '1', amount: 0 }).catch((error: unknown) => error);
  const callback = (() => {
    try {
      return sdk.verifyCallback({ body: '{}' }, { apiKey: 'a', secretKey: 's' });
    } catch (error) {
      return error;
    }
  })();
  const trackingCode = sdk.safeParseTrackingCode('nope');
  const api = ['isPayorchError', 'isAPIError'] as const;
  return [
    [sdk.APIError.generate(answer(401, { success: false, error: 'Invalid hash' })), [...api, 'isAuthenticationError']],
    [sdk.APIError.generate(answer(403, { success: false, error: 'IP not allowed' })), [...api, 'isPermissionDeniedError']],
    [sdk.APIError.generate(answer(422, { success: false, messages: ['amount is required'] })), [...api, 'isUnprocessableEntityError']],
    [sdk.APIError.generate(answer(500, { success: false, error: 'Server error' })), [...api]],
    [invalid, ['isPayorchError', 'isRequestValidationError']],
    [new sdk.ResponseValidationError('welcome', { status: 200, issues: [], body: {}, rawBody: '{}' }), ['isPayorchError', 'isResponseValidationError']],
    [new sdk.ConnectionError('refused', { cause: new Error('ECONNREFUSED'), refused: true }), ['isPayorchError', 'isConnectionError']],
    [new sdk.TimeoutError(1000), ['isPayorchError', 'isTimeoutError']],
    [new sdk.RequestAbortedError(new Error('stop')), ['isPayorchError', 'isRequestAbortedError']],
    [callback, ['isPayorchError', 'isCallbackVerificationError']],
    [trackingCode.success ? undefined : trackingCode.error, ['isPayorchError', 'isTrackingCodeError']],
  ];
}

function expectGuards(guards: Sdk, error: unknown, expected: readonly Guard[]): void {
  const holding = GUARDS.filter((name) => guards[name](error));
  expect(holding).toEqual(expected);
}

describe('type guards (src/errors/guards.ts)', () => {
  test('each holds for its class and the subclasses, and for nothing else', async () => {
    for (const [error, expected] of await errorsOf(source)) expectGuards(source, error, expected);
    for (const value of [new Error('x'), Object.assign(new Error('x'), { name: 'APIError' }), { name: 'PayorchError' }, null, undefined, 'APIError', 42]) {
      expectGuards(source, value, []);
    }
  });

  test('isSandboxError (payorch/sandbox) holds for a SandboxError, which is also a PayorchError', () => {
    const error = new SandboxError('unknown_record', 'no such record');
    expect(isSandboxError(error)).toBe(true);
    expect(source.isPayorchError(error)).toBe(true);
    expect(isSandboxError(new source.TimeoutError(5))).toBe(false);
  });

  test('recognise errors thrown by the other build: ESM and CommonJS copies loaded in one process', async () => {
    // The built package as users get it: `import` reads dist/index.js, `require` dist/index.cjs.
    const esm = (await import(new URL('../../dist/index.js', import.meta.url).href)) as Sdk;
    const cjs = createRequire(import.meta.url)('../../dist/index.cjs') as Sdk;
    expect(esm.PayorchError).not.toBe(cjs.PayorchError);
    for (const [thrower, checker] of [
      [cjs, esm],
      [esm, cjs],
    ] as const) {
      const made = await errorsOf(thrower);
      // `instanceof` cannot see across the copies; that is why the guards exist.
      expect(made.some(([error]) => error instanceof checker.PayorchError)).toBe(false);
      for (const [error, expected] of made) expectGuards(checker, error, expected);
    }
  });
});
