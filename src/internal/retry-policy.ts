import type { CallOutcome, ConnectionFailureReason } from '../errors/error.js';

/*
 * When and how long to wait before sending a call again, and whether the service may have acted
 * on an attempt. Pure functions: the transport asks, these answer. The one classification of
 * what may have arrived ({@link attemptOutcome}) decides both which attempts may be resent (the
 * money rule, {@link mayResend}) and the `outcome` every error reports.
 */

/** Statuses that say "try again later": timeout, rate limit, and server or gateway trouble. Exported for the test that holds docs/errors-and-retries.md to it. */
export const RETRY_STATUS_CODES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);
/** A longer `Retry-After` is not waited for: the call fails at once with the service's answer. */
export const MAX_RETRY_AFTER_MS = 20_000;
const BACKOFF_BASE_MS = 300;
const HTTP_DATE = /^[A-Za-z]{3},? .*\d{4}.* GMT$/;
const MAX_BACKOFF_MS = 8_000;

/**
 * Exponential backoff with full jitter: a random wait between 0 and 300 ms · 2^(retry − 1),
 * at most 8 s, so that many clients failing together do not come back together.
 * `retry` is 1 for the first retry.
 */
export function backoffDelay(retry: number): number {
  return Math.round(Math.random() * Math.min(MAX_BACKOFF_MS, BACKOFF_BASE_MS * 2 ** (retry - 1)));
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds or an HTTP date.
 * A date is measured against the answer's own `Date` header when it has one, so that a skewed
 * local clock does not stretch or cut the wait. `undefined` when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, localNow: number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // Only an HTTP date: Date.parse also reads '-1' or '2' as years.
  const at = HTTP_DATE.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  const serverNow = Date.parse(headers.get('date') ?? '');
  return Math.max(0, at - (Number.isNaN(serverNow) ? localNow : serverNow));
}

/**
 * The wait before retrying an answer with `status`, or `undefined` when it must not be retried:
 * the status is not transient, or the service asked for a longer pause than {@link MAX_RETRY_AFTER_MS}.
 */
export function statusRetryDelay(status: number, headers: Headers, retry: number, localNow: number): number | undefined {
  if (!RETRY_STATUS_CODES.has(status)) return undefined;
  const asked = retryAfterMs(headers, localNow);
  if (asked === undefined) return backoffDelay(retry);
  return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
}

/** What ended an attempt, as far as the money rule cares. */
export type AttemptEnd =
  /** Nothing was handed to `fetch` yet: an abort or the deadline before the attempt started. */
  | { readonly kind: 'not_started' }
  /**
   * No answer: `reason` says where the connection failed. Every reason but `connection_failed`
   * ends before the request's first byte could leave, so the service cannot have seen it.
   */
  | { readonly kind: 'no_answer'; readonly reason: ConnectionFailureReason }
  /**
   * An answer with `status`. `refusal` when its body says `success: false` (spec 7.2): on a 2xx,
   * the service read the request and created nothing.
   */
  | { readonly kind: 'answer'; readonly status: number; readonly refusal: boolean };

/**
 * Whether the service may have acted on an attempt. A 4xx or a `success: false` body is the
 * service refusing; a 5xx, a 3xx (which payorch never follows) or a 2xx payorch cannot read may
 * follow processing; a connection that fails past the handshake, or a fetch stopped midway,
 * cannot tell.
 */
export function attemptOutcome(end: AttemptEnd): CallOutcome {
  switch (end.kind) {
    case 'not_started':
      return 'not_sent';
    case 'no_answer':
      return end.reason === 'connection_failed' ? 'unknown' : 'not_sent';
    case 'answer':
      if (end.status >= 400 && end.status <= 499) return 'refused';
      // A 5xx saying success: false may come from an error handler that ran after the insert.
      return end.refusal && end.status >= 200 && end.status <= 299 ? 'refused' : 'unknown';
  }
}

const OUTCOME_ORDER: Readonly<Record<CallOutcome, number>> = { not_sent: 0, refused: 1, unknown: 2 };

/** The outcome of a call from those of its attempts: the least safe one. */
export function worstOutcome(a: CallOutcome, b: CallOutcome): CallOutcome {
  return OUTCOME_ORDER[a] >= OUTCOME_ORDER[b] ? a : b;
}

/**
 * Whether a connection failure is worth another attempt. A failed TLS handshake is not: a
 * certificate does not change between two attempts, and a handshake that fails where it used to
 * succeed may be someone in the path (docs/decisions.md). Nor is a connection the runtime does not
 * permit: its permissions are set when the process starts. Every other failure may be brief.
 */
export function retriesConnection(reason: ConnectionFailureReason): boolean {
  return reason !== 'tls_handshake' && reason !== 'not_permitted';
}

/**
 * The money rule: a resendable call (one the service receiving twice cannot move money twice)
 * may be resent after any transient failure; any other call only when the service cannot have
 * received it. (A timestamp refusal is resent
 * once with a corrected clock by the transport: the service refused it, so it did nothing.)
 */
export function mayResend(resendable: boolean, outcome: CallOutcome): boolean {
  return resendable || outcome === 'not_sent';
}
