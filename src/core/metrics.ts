/*
 * The few members of OpenTelemetry's Meter that payorch calls. As with the Tracer, nothing from
 * @opentelemetry/* is imported, not even its types: the API's real Meter is assignable to this
 * (test/core/metrics.test-d.ts).
 */

/** The attributes payorch records on a measurement: codes only, never customer data or a key. */
type MetricAttributesLike = Readonly<Record<string, string>>;

/** How an instrument is described: OpenTelemetry's `MetricOptions`, as far as payorch fills it. */
interface InstrumentOptionsLike {
  readonly description?: string;
  /** UCUM: `s` for seconds, `{callback}` for a count of callbacks. */
  readonly unit?: string;
  /** Bucket bounds a histogram should use unless the SDK's views say otherwise. */
  readonly advice?: { readonly explicitBucketBoundaries?: number[] };
}

/**
 * The members of an OpenTelemetry `Meter` that a callback receiver calls: a counter of callbacks,
 * a histogram of their durations, and, for the in-memory inbox, observable up-down counters of
 * the keys it holds and its limit. A `Meter` from `@opentelemetry/api`
 * (`metrics.getMeter('my-app')`) is one.
 */
export interface MeterLike {
  /** A monotonic sum: `payorch.callbacks`. */
  createCounter(
    name: string,
    options?: InstrumentOptionsLike,
  ): {
    /** Adds `value` to the sum of the series `attributes` name. */
    add(value: number, attributes?: MetricAttributesLike): void;
  };
  /** A distribution: `payorch.callback.duration`, in seconds. */
  createHistogram(
    name: string,
    options?: InstrumentOptionsLike,
  ): {
    /** Records one measurement in the series `attributes` name. */
    record(value: number, attributes?: MetricAttributesLike): void;
  };
  /** A sum read when the SDK collects: the in-memory inbox's keys and its limit. */
  createObservableUpDownCounter(
    name: string,
    options?: InstrumentOptionsLike,
  ): {
    /** Registers what the SDK calls when it collects, to observe the current value. */
    addCallback(
      callback: (result: {
        /** The value now, for the series `attributes` name. */
        observe(value: number, attributes?: MetricAttributesLike): void;
      }) => void,
    ): void;
  };
}
