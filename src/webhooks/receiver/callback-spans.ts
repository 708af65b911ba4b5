import type { SpanLinkContext, TracerLike } from '../../core/tracing.js';
import { SNAKE_CODE, SPAN_KIND_CONSUMER, errorName, parseTraceparent, withSpan } from '../../internal/spans.js';
import type { GuardedSpan } from '../../internal/spans.js';

/*
 * The OpenTelemetry spans of a receiver, through the user's own Tracer: one CONSUMER span per
 * callback received or applied (src/internal/spans.ts says what a span never carries).
 */

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
