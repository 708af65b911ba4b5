// Type guards that recognise payorch's errors whichever copy of payorch threw them. `instanceof`
// fails across copies: an app whose code `import`s payorch while a dependency `require`s it loads
// the ESM and the CommonJS build side by side, each with its own classes. The guards check the
// mark each class puts on its prototype (src/errors/brand.ts) instead.
import type { APIError, AuthenticationError, PermissionDeniedError, UnprocessableEntityError } from './api-error.js';
import { guardFor as guard } from './brand.js';
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
export const isPayorchError = guard<PayorchError>('PayorchError');
/** Whether `value` is an {@link APIError} (the service answered with a failure), from any copy of payorch. */
export const isAPIError = guard<APIError>('APIError');
/** Whether `value` is an {@link AuthenticationError} (401), from any copy of payorch. */
export const isAuthenticationError = guard<AuthenticationError>('AuthenticationError');
/** Whether `value` is a {@link PermissionDeniedError} (403), from any copy of payorch. */
export const isPermissionDeniedError = guard<PermissionDeniedError>('PermissionDeniedError');
/** Whether `value` is an {@link UnprocessableEntityError} (the service's 422), from any copy of payorch. */
export const isUnprocessableEntityError = guard<UnprocessableEntityError>('UnprocessableEntityError');
/** Whether `value` is a {@link RequestValidationError} (refused before sending), from any copy of payorch. */
export const isRequestValidationError = guard<RequestValidationError>('RequestValidationError');
/** Whether `value` is a {@link ResponseValidationError} (an answer of the wrong shape), from any copy of payorch. */
export const isResponseValidationError = guard<ResponseValidationError>('ResponseValidationError');
/** Whether `value` is a {@link ConnectionError}, from any copy of payorch. */
export const isConnectionError = guard<ConnectionError>('ConnectionError');
/** Whether `value` is a {@link TimeoutError}, from any copy of payorch. */
export const isTimeoutError = guard<TimeoutError>('TimeoutError');
/** Whether `value` is a {@link RequestAbortedError}, from any copy of payorch. */
export const isRequestAbortedError = guard<RequestAbortedError>('RequestAbortedError');
/** Whether `value` is a {@link CallbackVerificationError}, from any copy of payorch. */
export const isCallbackVerificationError = guard<CallbackVerificationError>('CallbackVerificationError');
/** Whether `value` is a {@link TrackingCodeError}, from any copy of payorch. */
export const isTrackingCodeError = guard<TrackingCodeError>('TrackingCodeError');
