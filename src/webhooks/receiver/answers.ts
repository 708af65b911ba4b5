import { isPayorchError, CallbackRetentionError, NotConfirmedError, UnhandledError } from '../../errors/error.js';
import { utf8Length } from '../body.js';

/*
 * The answer step: every answer the receiver sends the service (spec 6.1), on one screen. A 200
 * is a promise that the callback was applied or durably queued; any other answer has it
 * delivered again, or says why it never will be.
 */

/** An answer of {@link CallbackReceiver.receive}: the status, headers and body to send. */
export interface CallbackReceiverAnswer {
  /** 200 applied, already applied or (with `enqueue`) queued; 400 malformed; 401 not genuine; 405 not POST; 409 refused by `confirm`; 413 too large; 422 record older than the inbox's retention; 500 not applied or not queued. */
  readonly status: 200 | 400 | 401 | 405 | 409 | 413 | 422 | 500;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON: `{"success":true}` (spec 6.1), or `{"success":false,"error":"<reason>"}`. */
  readonly body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** The answer of a status, with the reason of a refusal. */
export function answer(status: CallbackReceiverAnswer['status'], error?: string, extraHeaders?: Record<string, string>): CallbackReceiverAnswer {
  const body = error === undefined ? '{"success":true}' : JSON.stringify({ success: false, error });
  // The length known, node:http sends the answer in one piece instead of chunks. Counted without a
  // TextEncoder: the answers below are made at import, and JSON.stringify leaves no lone surrogate.
  return { status, headers: { ...JSON_HEADERS, 'content-length': String(utf8Length(body)), ...extraHeaders }, body };
}

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
