// Type guards that recognise payorch's errors whichever copy of payorch threw them. `instanceof`
// fails across copies: an app whose code `import`s payorch while a dependency `require`s it loads
// the ESM and the CommonJS build side by side, each with its own classes. The guards check the
// mark each class puts on its prototype (src/errors/brand.ts) instead.
import type { APIError, AuthenticationError, PermissionDeniedError, UnprocessableEntityError } from './api-error.js';
import { isBranded } from './brand.js';
import type { CallbackVerificationError } from './callback-verification-error.js';
import type { ConnectionError } from './connection-error.js';
import type { PayorchError } from './payorch-error.js';
import type { RequestAbortedError } from './request-aborted-error.js';
import type { RequestValidationError } from './request-validation-error.js';
import type { ResponseValidationError } from './response-validation-error.js';
import type { TimeoutError } from './timeout-error.js';
import type { TrackingCodeError } from './tracking-code-error.js';

/**
 * Whether `value` is any error payorch throws, from this copy of payorch or another (its ESM and
 * CommonJS builds loaded side by side). Prefer it to `instanceof PayorchError` in code that may
 * meet errors from both.
 *
 * @example
 * ```ts
 * try {
 *   await provider.manual.startDeposit(params);
 * } catch (error) {
 *   if (isAPIError(error)) console.error(error.status, error.reason);
 *   else if (isPayorchError(error)) console.error(error.name, error.message);
 *   else throw error;
 * }
 * ```
 */
export function isPayorchError(value: unknown): value is PayorchError {
  return isBranded(value, 'PayorchError');
}
/** Whether `value` is an {@link APIError} (the service answered with a failure), from any copy of payorch. */
export function isAPIError(value: unknown): value is APIError {
  return isBranded(value, 'APIError');
}
/** Whether `value` is an {@link AuthenticationError} (401), from any copy of payorch. */
export function isAuthenticationError(value: unknown): value is AuthenticationError {
  return isBranded(value, 'AuthenticationError');
}
/** Whether `value` is a {@link PermissionDeniedError} (403), from any copy of payorch. */
export function isPermissionDeniedError(value: unknown): value is PermissionDeniedError {
  return isBranded(value, 'PermissionDeniedError');
}
/** Whether `value` is an {@link UnprocessableEntityError} (the service's 422), from any copy of payorch. */
export function isUnprocessableEntityError(value: unknown): value is UnprocessableEntityError {
  return isBranded(value, 'UnprocessableEntityError');
}
/** Whether `value` is a {@link RequestValidationError} (refused before sending), from any copy of payorch. */
export function isRequestValidationError(value: unknown): value is RequestValidationError {
  return isBranded(value, 'RequestValidationError');
}
/** Whether `value` is a {@link ResponseValidationError} (an answer of the wrong shape), from any copy of payorch. */
export function isResponseValidationError(value: unknown): value is ResponseValidationError {
  return isBranded(value, 'ResponseValidationError');
}
/** Whether `value` is a {@link ConnectionError}, from any copy of payorch. */
export function isConnectionError(value: unknown): value is ConnectionError {
  return isBranded(value, 'ConnectionError');
}
/** Whether `value` is a {@link TimeoutError}, from any copy of payorch. */
export function isTimeoutError(value: unknown): value is TimeoutError {
  return isBranded(value, 'TimeoutError');
}
/** Whether `value` is a {@link RequestAbortedError}, from any copy of payorch. */
export function isRequestAbortedError(value: unknown): value is RequestAbortedError {
  return isBranded(value, 'RequestAbortedError');
}
/** Whether `value` is a {@link CallbackVerificationError}, from any copy of payorch. */
export function isCallbackVerificationError(value: unknown): value is CallbackVerificationError {
  return isBranded(value, 'CallbackVerificationError');
}
/** Whether `value` is a {@link TrackingCodeError}, from any copy of payorch. */
export function isTrackingCodeError(value: unknown): value is TrackingCodeError {
  return isBranded(value, 'TrackingCodeError');
}
