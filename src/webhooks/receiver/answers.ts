import { isPayorchError, CallbackRetentionError, NotConfirmedError, UnhandledError } from '../../errors/error.js';
import { answer } from './answer.js';
import type { CallbackReceiverAnswer } from './answer.js';

/*
 * The answer step: every answer the receiver sends the service (spec 6.1), on one screen. A 200
 * is a promise that the callback was applied or durably queued; any other answer has it
 * delivered again, or says why it never will be.
 */

export const OK = /* @__PURE__ */ answer(200);
export const NOT_APPLIED = /* @__PURE__ */ answer(500, 'not_applied');
export const UNREADABLE_PAYLOAD = /* @__PURE__ */ answer(500, 'unreadable_payload');
export const NOT_QUEUED = /* @__PURE__ */ answer(500, 'not_queued');
export const NOT_POST = /* @__PURE__ */ answer(405, 'method_not_allowed', { allow: 'POST' });
// Sent before the body was read to its end: the connection cannot carry another request.
export const TOO_LARGE = /* @__PURE__ */ answer(413, 'body_too_large', { connection: 'close' });
const NOT_CONFIRMED = /* @__PURE__ */ answer(409, 'not_confirmed');
const RECORD_TOO_OLD = /* @__PURE__ */ answer(422, 'record_too_old');
const NO_HANDLER = /* @__PURE__ */ answer(500, 'no_handler');

/** The answer to a callback whose applying failed with `error` (reported already). */
export function failureAnswer(error: unknown): CallbackReceiverAnswer {
  if (error instanceof NotConfirmedError) return NOT_CONFIRMED;
  if (error instanceof UnhandledError) return NO_HANDLER;
  return isPayorchError(error, CallbackRetentionError) ? RECORD_TOO_OLD : NOT_APPLIED;
}
