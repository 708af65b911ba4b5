import type { MeterLike } from '../../core/metrics.js';
import { isPayorchError, CallbackJobError } from '../../errors/error.js';
import type { CallbackApplyTrace, CallbackSpans } from './callback-spans.js';
import type { CallbackInboxContext } from '../../inboxes/inbox.js';
import { failureAnswer } from './answers.js';
import type { MemoryInboxFill } from '../../inboxes/memory.js';
import type { ReceiverSettings } from './settings.js';

/*
 * The receiver's metrics, through the user's own OpenTelemetry Meter: each callback counted by
 * its outcome, reason and kind, and timed once verified; the in-memory inbox's fill read when the
 * SDK collects. They ride on the trace of each callback, which the receive path tells already:
 * without a meter, nothing here runs. Attributes are codes only: never a tracking code, a field
 * of the body, or a key. A meter that throws changes no answer.
 */

/** What a callback came to, as `payorch.outcome` records it (docs/observability.md lists them). @internal */
export const CALLBACK_OUTCOMES = ['applied', 'duplicate', 'queued', 'unhandled', 'refused', 'failed'] as const;
type Outcome = (typeof CALLBACK_OUTCOMES)[number];

/** What a 200 (or an `apply` that resolved) came to: `applied` unless the trace was told otherwise. */
function settled(processed: string | undefined): Outcome {
  // 'unhandled': acknowledged with no handler run, so nothing was applied.
  return processed === 'duplicate' || processed === 'queued' || processed === 'unhandled' ? processed : 'applied';
}

// The bounds OpenTelemetry's semantic conventions advise for durations in seconds.
const DURATION_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

// What an answer's `error` looks like: the receiver writes it itself, but it is read back as text.
const REASON = /^[a-z][a-z0-9_]{0,63}$/;

/** The reason a failure answer gives, `{"success":false,"error":"<reason>"}`. */
function reasonOf(answer: { readonly status: number; readonly body: string }): string {
  try {
    const reason = (JSON.parse(answer.body) as { error?: unknown }).error;
    if (typeof reason === 'string' && REASON.test(reason)) return reason;
  } catch {
    // Not written by the receiver: named by its status below.
  }
  return `http_${answer.status}`;
}

function attempt(action: () => void): void {
  try {
    action();
  } catch {
    // The meter's failure is its own; the callback goes on.
  }
}

/** Records one callback's count and duration. */
type Recorder = (outcome: Outcome, reason: string | undefined, kind: string | undefined, startedMs: number | undefined) => void;

/** The receiver's instruments, made once, and the in-memory inbox's fill, read at collection; undefined when the meter cannot make the instruments. */
function instruments(meter: MeterLike, fill: MemoryInboxFill | undefined): Recorder | undefined {
  let record: Recorder | undefined;
  try {
    const callbacks = meter.createCounter('payorch.callbacks', { description: 'Callbacks received or applied, by outcome, reason and kind', unit: '{callback}' });
    const duration = meter.createHistogram('payorch.callback.duration', {
      description: 'From receiving a verified callback to its answer, or the whole of receiver.apply(job)',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BOUNDS },
    });
    record = (outcome, reason, kind, startedMs) => {
      const attributes: Record<string, string> = { 'payorch.outcome': outcome };
      if (reason !== undefined) attributes['payorch.reason'] = reason;
      if (kind !== undefined) attributes['payorch.kind'] = kind;
      attempt(() => { callbacks.add(1, attributes); });
      // Timed once verified: what a refusal before that costs says nothing of applying.
      if (kind !== undefined && startedMs !== undefined) attempt(() => { duration.record((performance.now() - startedMs) / 1000, attributes); });
    };
  } catch {
    record = undefined;
  }
  meterInboxFill(meter, fill);
  return record;
}

/** What one callback's trace told, for its count: its kind once verified, what the inbox did, and the reason of a refusal before it verified. */
interface Told {
  readonly startedMs: number;
  kind: string | undefined;
  processed: string | undefined;
  refused?: string | undefined;
}

/** `trace`'s `verified` and `processed`, also told to `told`. */
function telling(trace: CallbackApplyTrace, told: Told): CallbackApplyTrace {
  return {
    verified(callback) {
      told.kind = callback.kind;
      trace.verified(callback);
    },
    processed(outcome) {
      told.processed = outcome;
      trace.processed(outcome);
    },
  };
}

/**
 * `spans`, with each callback also counted and timed through the receiver's meter, and the
 * in-memory inbox's fill read; `spans` itself without a meter. Made once, on the first request.
 */
export function meteredSpans(spans: CallbackSpans, { meter, fill }: Pick<ReceiverSettings<CallbackInboxContext>, 'meter' | 'fill'>): CallbackSpans {
  if (meter === undefined) return spans;
  const record = instruments(meter, fill);
  if (record === undefined) return spans;
  return {
    inReceiveSpan: (run) =>
      spans.inReceiveSpan((trace) => {
        const told: Told = { startedMs: performance.now(), kind: undefined, processed: undefined };
        return run({
          ...telling(trace, told),
          refused(reason) {
            told.refused = reason;
            trace.refused(reason);
          },
          answered(answer) {
            if (answer.status === 200) record(settled(told.processed), undefined, told.kind, told.startedMs);
            else record(answer.status >= 500 ? 'failed' : 'refused', told.refused ?? reasonOf(answer), told.kind, told.startedMs);
            return trace.answered(answer);
          },
          traceparent: () => trace.traceparent(),
        });
      }),
    inApplySpan: (traceparent, run) =>
      spans.inApplySpan(traceparent, async (trace) => {
        const told: Told = { startedMs: performance.now(), kind: undefined, processed: undefined };
        try {
          const value = await run(telling(trace, told));
          record(settled(told.processed), undefined, told.kind, told.startedMs);
          return value;
        } catch (error) {
          // A job that does not verify is refused as its callback would have been; a failure is answered as a callback's.
          if (isPayorchError(error, CallbackJobError)) record('refused', error.reason, told.kind, told.startedMs);
          else {
            const answer = failureAnswer(error);
            record(answer.status >= 500 ? 'failed' : 'refused', reasonOf(answer), told.kind, told.startedMs);
          }
          throw error;
        }
      }),
  };
}

/** Reads the in-memory inbox's fill when the SDK collects: the keys it holds, and its limit. */
function meterInboxFill(meter: MeterLike, fill: MemoryInboxFill | undefined): void {
  if (fill === undefined) return;
  attempt(() => {
    meter
      .createObservableUpDownCounter('payorch.inbox.key.count', { description: 'Keys the in-memory inbox holds: applied, under way and partly applied', unit: '{key}' })
      .addCallback((result) => { result.observe(fill.keys()); });
    meter
      .createObservableUpDownCounter('payorch.inbox.key.limit', { description: 'The most keys the in-memory inbox holds (maxKeys); past it, new callbacks are answered 500', unit: '{key}' })
      .addCallback((result) => { result.observe(fill.maxKeys); });
  });
}
