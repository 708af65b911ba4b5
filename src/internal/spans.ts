import type { SpanAttributeValue, SpanLike, SpanLinkContext, TracerLike } from '../core/tracing.js';

/*
 * OpenTelemetry spans through the user's own Tracer, what the spans of calls (tracing.ts) and of
 * received callbacks (src/webhooks/receiver/callback-spans.ts) share. A span carries no text of a
 * request or an answer, nor an error message (which may quote one: the service's refusal echoes
 * the customer's name, e-mail or IBAN): only names, codes, reasons, statuses and outcomes, each
 * checked for its shape before it is recorded.
 */

// The numbers of @opentelemetry/api's SpanKind and SpanStatusCode enums, stable since 1.0.
export const SPAN_KIND_CLIENT = 2;
export const SPAN_KIND_CONSUMER = 4;
export const STATUS_ERROR = 2;

export type Attributes = Record<string, SpanAttributeValue | undefined>;

/** A span whose every method swallows its own failure: a broken tracer must not change a payment's outcome. */
export interface GuardedSpan {
  set(attributes: Attributes): void;
  event(name: string, attributes: Attributes): void;
  fail(message: string): void;
  end(): void;
  /** The span's W3C `traceparent`, or undefined when the tracer does not tell it. */
  traceparent(): string | undefined;
}

export const NO_SPAN: GuardedSpan = { set() {}, event() {}, fail() {}, end() {}, traceparent: () => undefined };

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
export function parseTraceparent(value: unknown): SpanLinkContext | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = match;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

export function defined(attributes: Attributes): Attributes {
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
export function withSpan<T>(
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

// What a code, a reason or a class name looks like; text of any other shape is not recorded.
const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const SNAKE_CODE = /^[a-z][a-z0-9_]{0,63}$/;

/** The class name of an error, as a span records it. */
export function errorName(error: unknown): string {
  return error instanceof Error && CLASS_NAME.test(error.name) ? error.name : error instanceof Error ? 'Error' : typeof error;
}
