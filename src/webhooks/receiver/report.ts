import type { Logger } from '../../core/observability.js';
import type { LevelledLogger } from '../../core/log-level.js';
import type { CallbackVerificationError } from '../../errors/error.js';
import type { AppliedCallback } from '../status-read.js';

// What a receiver tells besides its answer: the callbacks it could not apply, and the requests it refused.

/** What `onError` is told besides the error. */
export interface CallbackErrorDetails {
  /**
   * The verified callback being applied (or the status read `reconcile` applies in its place,
   * `source: 'status'`), or `undefined` when the failure came before it was typed.
   */
  readonly callback: AppliedCallback | undefined;
  /**
   * What failed: a handler, the inbox (claiming or committing), reading the request, typing a
   * genuine callback's body (`payload`), `confirm` (refused or threw), or no handler took a
   * callback that `unhandled: 'retry'` sends back (`unhandled`), `enqueue` threw (`enqueue`), or
   * the inbox refused a callback whose record is older than its retention (`retention`, a
   * {@link CallbackRetentionError}: reconcile it by hand).
   */
  readonly phase: 'handler' | 'inbox' | 'request' | 'payload' | 'confirm' | 'unhandled' | 'enqueue' | 'retention';
  /**
   * For `payload`: the body as received, without its `hash`, so that you can see what could not
   * be typed.
   */
  readonly payload?: Readonly<Record<string, unknown>> | undefined;
}

/** Tells of a callback that was not applied. */
export type Report = (error: unknown, details: CallbackErrorDetails) => void;

/** Where failures go: `onError`, else the logger's `error`, else `console.error`. */
export function reporter(onError: Report | undefined, logger: Logger | undefined): Report {
  return (error, details) => {
    try {
      if (onError !== undefined) onError(error, details);
      else if (logger !== undefined) logger.error({ phase: details.phase, trackingCode: details.callback?.payload.tracking_code, status: details.callback?.payload.status, error }, 'payorch: a callback was not applied');
      else console.error('payorch: a callback was not applied', error);
    } catch (reportError) {
      // A failing onError must not take the answer (or the process) down with it.
      console.error('payorch: onError threw', reportError);
    }
  };
}

/** At most one warning a minute per receiver: a wrong key refuses every callback, and each would say the same. */
const WARN_INTERVAL_MS = 60_000;

/**
 * How a receiver tells of the requests it refuses. A well-formed callback (it read as a callback
 * of a known kind, and carried a signature) refused for its hash or its API key is most likely a
 * genuine one under a wrong or rotated key: warned on the console even without a `logger`, at
 * most once a minute with the count, since the service stops retrying in the end and the
 * callbacks are lost. Everything else (scanners' junk, a stale timestamp) is logged at `debug`.
 * Only `logLevel: 'off'` (or PAYORCH_LOG=off) silences the warning. No key is ever named.
 */
export function refusalLog(logger: LevelledLogger, clock: () => number): (error: CallbackVerificationError) => void {
  let windowStart: number | undefined;
  let unwarned = 0;
  return (error) => {
    const keyRefusal = error.reason === 'invalid_signature' || error.reason === 'api_key_mismatch';
    if (!keyRefusal) {
      if (logger.enabled('debug')) logger.debug({ reason: error.reason, status: error.status }, `payorch: refused a callback request (${error.reason}): ${error.message}`);
      return;
    }
    unwarned++;
    const now = clock();
    if (windowStart !== undefined && now - windowStart < WARN_INTERVAL_MS) return;
    const count = unwarned;
    windowStart = now;
    unwarned = 0;
    const cause = error.reason === 'api_key_mismatch' ? 'X-Api-Key is not this receiver\'s API key' : 'the hash does not match';
    try {
      // Written at warn whatever the level but off: a receiver refusing genuine callbacks loses them.
      logger.warnAlways(
        { reason: error.reason, refused: count },
        `payorch: refused ${count} well-formed callback${count === 1 ? '' : 's'} ${count === 1 ? '' : 'in the last minute '}(${cause}): the receiver's keys are probably wrong or were rotated. Check apiKey and secretKey against the service's panel; genuine callbacks are lost once the service stops retrying.`,
      );
    } catch {
      // A broken logger is the user's to notice; the answer goes out.
    }
  };
}
