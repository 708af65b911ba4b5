import { ConnectionError } from '../errors/error.js';
import type { SpanAttributeValue, SpanLike, SpanLinkContext, TracerLike } from '../core/tracing.js';

/*
 * OpenTelemetry spans for calls and received callbacks, through the user's own Tracer. A span
 * carries no text of a request or an answer, nor an error message (which may quote one: the
 * service's refusal echoes the customer's name, e-mail or IBAN): only names, codes, reasons,
 * statuses and outcomes, each checked for its shape before it is recorded.
 */

// The numbers of @opentelemetry/api's SpanKind and SpanStatusCode enums, stable since 1.0.
const SPAN_KIND_CLIENT = 2;
const SPAN_KIND_CONSUMER = 4;
const STATUS_ERROR = 2;

type Attributes = Record<string, SpanAttributeValue | undefined>;

/** A span whose every method swallows its own failure: a broken tracer must not change a payment's outcome. */
interface GuardedSpan {
  set(attributes: Attributes): void;
  event(name: string, attributes: Attributes): void;
  fail(message: string): void;
  end(): void;
  /** The span's W3C `traceparent`, or undefined when the tracer does not tell it. */
  traceparent(): string | undefined;
}

const NO_SPAN: GuardedSpan = { set() {}, event() {}, fail() {}, end() {}, traceparent: () => undefined };

// W3C trace context: version 00, 16-byte trace id, 8-byte span id, flags; all-zero ids are invalid.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// Written out rather than built with repeat(): a bundler keeps a top-level call it cannot prove pure.
const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_SPAN = '0000000000000000';

/** A span context as a W3C `traceparent`, or undefined when it is not a valid one. */
function formatTraceparent(context: { readonly traceId: string; readonly spanId: string; readonly traceFlags: number }): string | undefined {
  const text = `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  return parseTraceparent(text) === undefined ? undefined : text;
}

/** The span context a W3C `traceparent` names, or undefined for anything else (it is unsigned input). */
function parseTraceparent(value: unknown): SpanLinkContext | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = match;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

function defined(attributes: Attributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined));
}

function guard(span: SpanLike): GuardedSpan {
  const attempt = (action: () => unknown) => {
    try {
      action();
    } catch {
      // The tracer's failure is its own; the call or the callback goes on.
    }
  };
  return {
    set: (attributes) => { attempt(() => span.setAttributes(defined(attributes))); },
    event: (name, attributes) => { attempt(() => span.addEvent(name, defined(attributes))); },
    fail: (message) => { attempt(() => span.setStatus({ code: STATUS_ERROR, message })); },
    end: () => { attempt(() => { span.end(); }); },
    traceparent: () => {
      try {
        const context = span.spanContext?.();
        return context === undefined ? undefined : formatTraceparent(context);
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Runs `run` inside an active span of `tracer`, or without one when there is no tracer or it
 * fails to start one. `run` is called exactly once: a tracer that throws after calling it does
 * not start the work (a payment) a second time.
 */
function withSpan<T>(
  tracer: TracerLike | undefined,
  name: string,
  kind: number,
  attributes: Attributes,
  run: (span: GuardedSpan) => Promise<T>,
  link?: SpanLinkContext,
): Promise<T> {
  if (tracer === undefined) return run(NO_SPAN);
  let result: Promise<T> | undefined;
  try {
    const options = link === undefined ? { kind, attributes: defined(attributes) } : { kind, attributes: defined(attributes), links: [{ context: link }] };
    // What it returns is `result` itself, which the caller awaits.
    void tracer.startActiveSpan(name, options, (span) => {
      result = run(guard(span));
      return result;
    });
  } catch {
    // A broken tracer traces nothing.
  }
  return result ?? run(NO_SPAN);
}

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

// What a code, a reason or a class name looks like; text of any other shape is not recorded.
const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const SERVICE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
const SNAKE_CODE = /^[a-z][a-z0-9_]{0,63}$/;

function errorName(error: unknown): string {
  return error instanceof Error && CLASS_NAME.test(error.name) ? error.name : error instanceof Error ? 'Error' : typeof error;
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

/** What the receiver tells the span of a callback. */
export interface CallbackTrace {
  /** The callback verified: its kind, status and tracking code may be recorded. */
  verified(callback: { readonly kind: string; readonly payload: { readonly tracking_code: string; readonly status: string } }): void;
  /** What the inbox did with it: `applied` or `duplicate` (or `unhandled` when no handler took it, `queued` with `enqueue`). */
  processed(outcome: string): void;
  /** A request refused before it verified, with the reason the meter records for it (refusals.ts `meteredReason`). */
  refused(meteredReason: string): void;
  /** The answer sent back, returned as it is. */
  answered<A extends { readonly status: number; readonly body: string }>(answer: A): A;
  /** The receiving span's W3C `traceparent`, for a deferred callback's job; undefined without a tracer. */
  traceparent(): string | undefined;
}

const NO_CALLBACK_TRACE: CallbackTrace = { verified() {}, processed() {}, refused() {}, answered: (answer) => answer, traceparent: () => undefined };

/** What `receiver.apply` tells the span of a deferred callback. */
export interface CallbackApplyTrace {
  /** The job verified again: its kind, status and tracking code may be recorded. */
  verified(callback: { readonly kind: string; readonly payload: { readonly tracking_code: string; readonly status: string } }): void;
  /** What the inbox did with it: `applied` or `duplicate` (or `unhandled` when no handler took it). */
  processed(outcome: string): void;
}

/** The spans of one receiver: one CONSUMER span for each callback it receives or applies. */
export interface CallbackSpans {
  /**
   * One span named `callback.receive` per received callback, active while the handlers run: its
   * kind, status and tracking code once verified (never before: unverified fields are anyone's),
   * the result (`applied`, `duplicate`, `queued`, `unhandled`, `refused` with the reason, `failed`), and status ERROR
   * for every answer but 200.
   */
  inReceiveSpan<T>(run: (trace: CallbackTrace) => Promise<T>): Promise<T>;
  /**
   * One span named `callback.apply` per `receiver.apply(job)`, linked to the span that received
   * the callback (the job's `traceparent`; a link, not a parent: the queue may deliver it much
   * later, in another trace). Active while the handlers run; status ERROR when `apply` rejects.
   */
  inApplySpan<T>(traceparent: unknown, run: (trace: CallbackApplyTrace) => Promise<T>): Promise<T>;
}

const NO_CALLBACK_SPANS: CallbackSpans = { inReceiveSpan: (run) => run(NO_CALLBACK_TRACE), inApplySpan: (_traceparent, run) => run(NO_CALLBACK_TRACE) };

/** A receiver's spans, through `tracer`; without one, none, and nothing is checked per callback. */
export function callbackSpans(tracer: TracerLike | undefined): CallbackSpans {
  if (tracer === undefined) return NO_CALLBACK_SPANS;
  const consumer = <T>(operation: string, link: SpanLinkContext | undefined, run: (span: GuardedSpan) => Promise<T>): Promise<T> =>
    withSpan(tracer, operation, SPAN_KIND_CONSUMER, { 'payorch.operation': operation }, run, link);
  return {
    inReceiveSpan: (run) => consumer('callback.receive', undefined, (span) => receiveIn(span, run)),
    inApplySpan: (traceparent, run) => consumer('callback.apply', parseTraceparent(traceparent), (span) => applyIn(span, run)),
  };
}

/** Records what a callback's span is told, once verified. */
function verifiedIn(span: GuardedSpan, callback: { readonly kind: string; readonly payload: { readonly tracking_code: string; readonly status: string } }): void {
  span.set({ 'payorch.callback.kind': callback.kind, 'payorch.callback.status': callback.payload.status, 'payorch.tracking_code': callback.payload.tracking_code });
}

/** The `error` of a failure answer, `{"success":false,"error":"<reason>"}`, which the receiver writes itself. */
function reasonOf(body: string): string | undefined {
  try {
    const reason = (JSON.parse(body) as { error?: unknown }).error;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}

async function receiveIn<T>(span: GuardedSpan, run: (trace: CallbackTrace) => Promise<T>): Promise<T> {
  let outcome: string | undefined;
  let answer: { readonly status: number; readonly body: string } | undefined;
  const trace: CallbackTrace = {
    verified: (callback) => { verifiedIn(span, callback); },
    processed(result) {
      outcome = result;
    },
    // The span records the reason the answer gives.
    refused() {},
    answered(given) {
      answer = given;
      return given;
    },
    traceparent: () => span.traceparent(),
  };
  try {
    return await run(trace);
  } finally {
    if (answer !== undefined) {
      const { status } = answer;
      const given = reasonOf(answer.body);
      const reason = status === 200 ? undefined : given !== undefined && SNAKE_CODE.test(given) ? given : `http_${status}`;
      const result = status === 200 ? (outcome ?? 'applied') : status >= 500 ? 'failed' : 'refused';
      span.set({ 'http.response.status_code': status, 'payorch.callback.result': result, 'payorch.callback.reason': reason, 'error.type': reason });
      if (reason !== undefined) span.fail(reason);
    }
    span.end();
  }
}

async function applyIn<T>(span: GuardedSpan, run: (trace: CallbackApplyTrace) => Promise<T>): Promise<T> {
  let outcome: string | undefined;
  const trace: CallbackApplyTrace = {
    verified: (callback) => { verifiedIn(span, callback); },
    processed(result) {
      outcome = result;
    },
  };
  try {
    const value = await run(trace);
    span.set({ 'payorch.callback.result': outcome ?? 'applied' });
    return value;
  } catch (error) {
    const reason = typeof error === 'object' && error !== null && typeof (error as { reason?: unknown }).reason === 'string' ? (error as { reason: string }).reason : errorName(error);
    span.set({ 'payorch.callback.result': 'failed', 'payorch.callback.reason': reason, 'error.type': errorName(error) });
    span.fail(reason);
    throw error;
  } finally {
    span.end();
  }
}
