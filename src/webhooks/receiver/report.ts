import type { Logger } from '../../core/observability.js';
import { CallbackHandlingError, isPayorchError } from '../../errors/error.js';
import { callListener } from '../../core/listener.js';
import type { PayorchError } from '../../errors/error.js';
import type { AppliedCallback } from '../status-read.js';

/*
 * How the receiver tells of a callback it could not apply: `onError`, else the logger's `error`,
 * else `console.error`. Failures keep this rule whatever the log level: never filtered. Refusals
 * of requests are told by refusals.ts.
 */

/**
 * A callback as `onError` is told of it: what its handlers got, but for `payload.hash`, which is
 * left out so that an error tracker or a log never holds a hash computed with the secret key.
 * Narrow on `kind` or `source` as on an {@link AppliedCallback}.
 */
export type ReportedCallback = AppliedCallback extends infer Callback
  ? Callback extends AppliedCallback
    ? Omit<Callback, 'payload'> & { readonly payload: Omit<Callback['payload'], 'hash'> }
    : never
  : never;

/** What `onError` is told besides the error. */
export interface CallbackErrorDetails {
  /**
   * The verified callback being applied (or the status read `reconcile` applies in its place,
   * `source: 'status'`), without its `hash`, or `undefined` when the failure came before it was typed.
   */
  readonly callback: ReportedCallback | undefined;
  /**
   * What failed: a handler, the inbox (claiming or committing), reading the request, typing a
   * genuine callback's body (`payload`), `confirm` (refused or threw), or no handler took a
   * callback that `unhandled: 'retry'` sends back (`unhandled`), `enqueue` threw (`enqueue`), or
   * the inbox refused a callback whose record is older than its retention (`retention`, a
   * {@link CallbackRetentionError}: reconcile it by hand). `verify`: a well-formed callback was
   * refused (a {@link CallbackVerificationError}) for its hash or API key, for its time although
   * its hash verified (this machine's clock), or for its kind although its hash verified; told at
   * most once a minute per `reason`, with `count`, as `payload` is.
   */
  readonly phase: 'verify' | 'handler' | 'inbox' | 'request' | 'payload' | 'confirm' | 'unhandled' | 'enqueue' | 'retention';
  /**
   * For `verify` and `payload` (each told at most once a minute per `error.reason`): how many
   * callbacks were refused for this reason since the last report, this one included.
   */
  readonly count?: number | undefined;
  /**
   * For `payload`: the body as received, so that you can see what could not be typed: without its
   * `hash`, each name and text cut to 100 characters, nested values as their JSON cut alike, and
   * the fields past about 500 characters of JSON left out (counted under `'…'`).
   */
  readonly payload?: Readonly<Record<string, unknown>> | undefined;
}

/** What the receive path tells its report: the callback as its handlers got it, hash and all. */
export type FailureDetails = Omit<CallbackErrorDetails, 'callback'> & { readonly callback: AppliedCallback | undefined };

/** Tells of a callback that was not applied. */
export type Report = (error: unknown, details: FailureDetails) => void;

/** The receiver's `onError`: every error it is told of is a PayorchError. */
export type OnCallbackError = (error: PayorchError, details: CallbackErrorDetails) => void;

/** The phase a foreign error is wrapped under: payorch's own phases (verify, payload, unhandled, retention) only ever carry its errors. */
function foreignPhase(phase: CallbackErrorDetails['phase']): CallbackHandlingError['phase'] {
  return phase === 'handler' || phase === 'confirm' || phase === 'enqueue' || phase === 'inbox' ? phase : 'request';
}

/**
 * The receiver's report: to `onError` when given, anything not a PayorchError wrapped in a
 * CallbackHandlingError (the error as thrown its `cause`: `apply` still rejects with it); else to
 * `failureLogger` (the logger as given, never filtered by level); else to `console.error`.
 */
export function failureReport(onError: OnCallbackError | undefined, failureLogger: Logger | undefined): Report {
  // A failing onError (or an async one that rejects) must not take the answer or the process down with it.
  const failed = (reportError: unknown): void => {
    console.error('payorch: onError threw', reportError);
  };
  return (error, details) => {
    if (onError !== undefined) callListener(onError, [isPayorchError(error) ? error : new CallbackHandlingError(foreignPhase(details.phase), error), { ...details, callback: details.callback === undefined ? undefined : reportedCallback(details.callback) }], failed);
    else if (failureLogger !== undefined) callListener(failureLogger.error, [{ phase: details.phase, trackingCode: details.callback?.payload.tracking_code, status: details.callback?.payload.status, error }, 'payorch: a callback was not applied'], failed, failureLogger);
    else console.error('payorch: a callback was not applied', error);
  };
}

/**
 * A copy of a callback body without its `hash`: the one way the receiver leaves the hash out of
 * what it tells (`onError`'s `callback` and `payload`). Handlers keep theirs, untouched.
 */
export function withoutHash<Payload extends object>(payload: Payload): Omit<Payload, 'hash'> {
  const copy: Record<string, unknown> = { ...(payload as Record<string, unknown>) };
  delete copy['hash'];
  return copy as Omit<Payload, 'hash'>;
}

function reportedCallback(callback: AppliedCallback): ReportedCallback {
  // Spread keeps the kind its payload belongs to; TypeScript cannot follow that through the union.
  return { ...callback, payload: withoutHash(callback.payload) } as ReportedCallback;
}
