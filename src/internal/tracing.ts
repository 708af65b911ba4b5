import { ConnectionError } from '../errors/error.js';
import type { TracerLike } from '../core/tracing.js';
import { SNAKE_CODE, SPAN_KIND_CLIENT, errorName, withSpan } from './spans.js';
import type { Attributes } from './spans.js';

/*
 * The OpenTelemetry span of a call, through the user's own Tracer (spans.ts says what a span
 * never carries).
 */

// A service's error code; text of any other shape is not recorded.
const SERVICE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * The URL as a span shows it: every query value replaced by `REDACTED`, as OpenTelemetry's
 * `url.full` asks for values that may be sensitive. payorch's queries (dealer reads) carry wallet
 * and transfer ids rather than secrets, but a trace backend is not where they need to go.
 */
function spanUrl(url: string): string {
  const parsed = new URL(url);
  const names = [...parsed.searchParams.keys()];
  const query = names.length === 0 ? '' : `?${names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&')}`;
  return `${parsed.origin}${parsed.pathname}${query}`;
}

/** Reads a failure's `outcome` ('not_sent' | 'refused' | 'unknown') when the error class has one. */
function outcomeOf(error: unknown): string | undefined {
  const outcome = typeof error === 'object' && error !== null ? (error as { outcome?: unknown }).outcome : undefined;
  return typeof outcome === 'string' && SNAKE_CODE.test(outcome) ? outcome : undefined;
}

/** A field of `error` when it is a string of `shape`. */
function codeField(error: object, key: string, shape: RegExp): string | undefined {
  const value = (error as Readonly<Record<string, unknown>>)[key];
  return typeof value === 'string' && shape.test(value) ? value : undefined;
}

/**
 * The status message of a failed call's span: the error's class, then what it knows as codes
 * (`UnprocessableEntityError: HTTP 422, outcome refused`), never its message.
 */
function spanStatusMessage(error: unknown): string {
  if (typeof error !== 'object' || error === null) return errorName(error);
  const fields = error as Readonly<Record<string, unknown>>;
  const parts: string[] = [];
  if (typeof fields['status'] === 'number') parts.push(`HTTP ${fields['status']}`);
  const code = codeField(error, 'code', SERVICE_CODE);
  if (code !== undefined) parts.push(code);
  const reason = codeField(error, 'reason', SNAKE_CODE);
  if (reason !== undefined && reason !== 'unknown') parts.push(reason);
  if (typeof fields['timeout'] === 'number') parts.push(`timeout ${fields['timeout']} ms`);
  if (Array.isArray(fields['issues'])) {
    const rules = new Set((fields['issues'] as unknown[]).map((issue) => (typeof issue === 'object' && issue !== null ? (issue as { rule?: unknown }).rule : undefined)).filter((rule): rule is string => typeof rule === 'string' && SNAKE_CODE.test(rule)));
    if (rules.size > 0) parts.push(`rules ${[...rules].join(' ')}`);
  }
  const outcome = outcomeOf(error);
  if (outcome !== undefined) parts.push(`outcome ${outcome}`);
  return parts.length === 0 ? errorName(error) : `${errorName(error)}: ${parts.join(', ')}`;
}

/** Why an attempt is followed by another, as the `payorch.retry.reason` of its event. */
function retryReason(status: number | undefined, error: unknown): string {
  if (error instanceof ConnectionError) return error.reason;
  // The transport resends after a 401 only when the service refused the timestamp (clock skew).
  if (status === 401) return 'timestamp_refused';
  return status === undefined ? 'no_answer' : 'retryable_status';
}

/** What the transport tells the span of a call. */
export interface CallTrace {
  /** An attempt ended: its status (`undefined` without an answer), its error, and the wait before the next attempt if one follows. */
  settled(attempt: number, status: number | undefined, error: unknown, retryDelayMs: number | undefined): void;
}

export interface CallSpanStart {
  /** The payorch operation (`manual.startDeposit`): the span's name. */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
}

/**
 * One CLIENT span around a whole call (attempts, waits, body reads), named by the operation, with
 * OpenTelemetry's HTTP client attributes, an event per retry and status ERROR on failure.
 */
export function traceCall<T>(tracer: TracerLike | undefined, start: CallSpanStart, run: (trace: CallTrace | undefined) => Promise<T>): Promise<T> {
  if (tracer === undefined) return run(undefined);
  const url = spanUrl(start.url);
  const parsed = new URL(start.url);
  const attributes: Attributes = {
    'http.request.method': start.method,
    'server.address': parsed.hostname,
    'server.port': Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)),
    'url.full': url,
    'payorch.operation': start.operation,
  };
  return withSpan(tracer, start.operation, SPAN_KIND_CLIENT, attributes, async (span) => {
    let attempts = 0;
    let lastStatus: number | undefined;
    const trace: CallTrace = {
      settled(attempt, status, error, retryDelayMs) {
        attempts = attempt;
        lastStatus = status;
        if (retryDelayMs === undefined) return;
        span.event('payorch.retry', {
          'payorch.attempt': attempt,
          'payorch.retry.reason': retryReason(status, error),
          'payorch.retry.delay_ms': retryDelayMs,
          'http.response.status_code': status,
          'error.type': errorName(error),
        });
      },
    };
    try {
      const value = await run(trace);
      span.set({ 'http.response.status_code': lastStatus, 'payorch.attempts': attempts });
      return value;
    } catch (error) {
      span.set({ 'http.response.status_code': lastStatus, 'payorch.attempts': attempts, 'error.type': errorName(error), 'payorch.outcome': outcomeOf(error) });
      span.fail(spanStatusMessage(error));
      throw error;
    } finally {
      span.end();
    }
  });
}
