import type { Logger } from '../../core/observability.js';
import type { CallbackTrace } from '../../internal/tracing.js';
import type { CallbackBody } from '../body.js';
import type { CallbackHeaders } from '../headers.js';
import type { Report } from './report.js';

/*
 * What the receive path answers, and what a framework adapter (node.ts) gets of it: the
 * adapters read the body once and size it once, then hand it to the receive path.
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
  // The length known, node:http sends the answer in one piece instead of chunks.
  return { status, headers: { ...JSON_HEADERS, 'content-length': String(new TextEncoder().encode(body).byteLength), ...extraHeaders }, body };
}

export const OK = /* @__PURE__ */ answer(200);
export const NOT_POST = /* @__PURE__ */ answer(405, 'method_not_allowed', { allow: 'POST' });
// Sent before the body was read to its end: the connection cannot carry another request.
export const TOO_LARGE_ANSWER = /* @__PURE__ */ answer(413, 'body_too_large', { connection: 'close' });
export const NOT_APPLIED = /* @__PURE__ */ answer(500, 'not_applied');
export const NOT_CONFIRMED = /* @__PURE__ */ answer(409, 'not_confirmed');
export const RECORD_TOO_OLD = /* @__PURE__ */ answer(422, 'record_too_old');
export const NO_HANDLER = /* @__PURE__ */ answer(500, 'no_handler');
export const UNREADABLE_PAYLOAD = /* @__PURE__ */ answer(500, 'unreadable_payload');
export const NOT_QUEUED = /* @__PURE__ */ answer(500, 'not_queued');

/** A callback as an adapter hands it to the receive path. */
export interface ReceivedInput {
  readonly headers: CallbackHeaders;
  readonly body: CallbackBody;
}

/** What a framework adapter gets of the receiver. */
export interface Receiving {
  /** The largest body read, in bytes (`maxBodyBytes`). */
  readonly maxBodyBytes: number;
  /** The receive path for a body the adapter read and sized: verify, then enqueue or apply. Never rejects. */
  readonly receiveSized: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  /** The receive path for a body given whole (a framework's parser), sized first. Never rejects. */
  readonly receiveParsed: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  readonly report: Report;
  readonly logger: Logger | undefined;
}

/** The answer when the body could not be read to its end. */
export function unreadable(logger: Logger | undefined, error: unknown): CallbackReceiverAnswer {
  // The client went away mid-body: nobody reads this answer, and nothing was applied.
  logger?.warn({ error }, 'payorch: the callback body could not be read');
  return answer(400, 'malformed_body');
}
