import { expectTypeOf, test } from 'vitest';
import { APIError, AuthenticationError, CallbackVerificationError, PayorchError } from '../../src/index.js';
import type { AuthFailureReason, CallbackVerificationReason } from '../../src/index.js';

// The error classes' `instanceof` reads their brand across copies (a static Symbol.hasInstance):
// it still narrows as a class's own `instanceof` does, to the class on its right.
declare const caught: unknown;

test('instanceof narrows to the class on its right, subclasses included', () => {
  if (caught instanceof AuthenticationError) expectTypeOf(caught.reason).toEqualTypeOf<AuthFailureReason>();
  if (caught instanceof APIError) expectTypeOf(caught.status).toEqualTypeOf<number>();
  if (caught instanceof CallbackVerificationError) expectTypeOf(caught.reason).toEqualTypeOf<CallbackVerificationReason>();
  if (caught instanceof PayorchError) expectTypeOf(caught.outcome).toEqualTypeOf<'not_sent' | 'refused' | 'unknown'>();
});

test('a class of the caller’s own extending one of them narrows to itself', () => {
  class AppError extends PayorchError {
    readonly code = 'APP' as const;
  }
  if (caught instanceof AppError) expectTypeOf(caught).toEqualTypeOf<AppError>();
});

test('so does one whose constructor is private or protected', () => {
  class HiddenError extends PayorchError {
    private constructor() {
      super('hidden');
    }
    static make(): HiddenError {
      return new HiddenError();
    }
  }
  if (caught instanceof HiddenError) expectTypeOf(caught).toEqualTypeOf<HiddenError>();
});
