/*
 * When and how long to wait before sending a call again. Pure functions: the transport asks,
 * these answer. Which calls may be retried at all (the money rule) is decided in the transport,
 * where the failure is known.
 */

/** Statuses that say "try again later": timeout, rate limit, and server or gateway trouble. */
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
