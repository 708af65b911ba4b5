/*
 * The few members of OpenTelemetry's Tracer and Span that payorch calls. Nothing from
 * @opentelemetry/* is imported, not even its types, so the main entry has no dependency on any
 * runtime; the API's real Tracer is assignable to these (test/core/tracing.test-d.ts).
 */

/** A value payorch puts in a span attribute. */
export type SpanAttributeValue = string | number | boolean;

/** The members of an OpenTelemetry `Span` that payorch calls. */
export interface SpanLike {
  /** Sets attributes on the span; payorch passes `undefined` for an attribute it does not know. */
  setAttributes(attributes: Readonly<Record<string, SpanAttributeValue | undefined>>): unknown;
  /** Records an event on the span, such as a retry. */
  addEvent(name: string, attributes?: Readonly<Record<string, SpanAttributeValue | undefined>>): unknown;
  /** `code` is OpenTelemetry's `SpanStatusCode`: 2 is ERROR. */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span, once, when the call or the callback is done. */
  end(): void;
  /**
   * The span's identity, which a deferred callback carries to the span that applies it (W3C trace
   * context). Optional: a span without it is simply not linked.
   */
  spanContext?(): { readonly traceId: string; readonly spanId: string; readonly traceFlags: number };
}

/** A span another span links to: OpenTelemetry's `SpanContext`, as read from a W3C `traceparent`. */
export interface SpanLinkContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/**
 * The one member of an OpenTelemetry `Tracer` that payorch calls: `startActiveSpan`, so that the
 * span is the active one while the call runs and a `fetch` instrumentation nests under it. A
 * `Tracer` from `@opentelemetry/api` (`trace.getTracer('my-app')`) is one.
 */
export interface TracerLike {
  /** `kind` is OpenTelemetry's `SpanKind`: 2 is CLIENT, 4 is CONSUMER. */
  startActiveSpan<T>(
    name: string,
    options: { kind?: number; attributes?: Readonly<Record<string, SpanAttributeValue | undefined>>; links?: { context: SpanLinkContext }[] },
    fn: (span: SpanLike) => T,
  ): T;
}
