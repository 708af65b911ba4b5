import type { LevelledLogger } from '../../core/log-level.js';
import type { CallbackVerificationError } from '../../errors/error.js';
import { assertNever } from '../../internal/assert-never.js';

/*
 * How the receiver tells of the requests it refuses. A well-formed callback (a tracking code and
 * a status of the spec's shape, with a signature) refused for its keys, for its time although its
 * hash verified, or for its kind although its hash verified, is most likely a genuine one lost to
 * a setting: a wrong or rotated key, a clock that is off, a URL given to another kind. So is a
 * body without headers whose own hash verifies (a dealer card callback, spec 6.5). Each is
 * heard: by `onError` (phase `verify`), at most once a minute per reason with the count since the
 * last report, so that a scanner cannot flood an error tracker; and on the console even without a
 * `logger`, in at most one line a minute that names each cause with its own count. Everything
 * else (scanners' junk, a forged callback of another kind) is logged at `debug`. Only
 * `logLevel: 'off'` silences the console; no key is ever named.
 */

/** The reasons of a refusal that is heard. */
const HEARD_REASONS = ['invalid_signature', 'api_key_mismatch', 'timestamp_out_of_tolerance', 'kind_mismatch', 'missing_header'] as const;
type HeardReason = (typeof HEARD_REASONS)[number];

/** The cause each heard reason most likely has, as the console line names it. */
const CAUSES: Readonly<Record<HeardReason, string>> = {
  invalid_signature: 'the hash does not match: the secret key is probably wrong, or was rotated',
  api_key_mismatch: "X-Api-Key is not this receiver's API key: a wrong apiKey, another account's callbacks at this URL, or the key before a rotation after previousSecretKey's until",
  timestamp_out_of_tolerance: "the hash verified but the time did not: this machine's clock is probably off (check NTP)",
  kind_mismatch: "a callback of another kind at this URL: its hash verified, but the receiver's kind option names another",
  missing_header: "a body signed in itself (a dealer card callback, spec 6.5) came without headers and its hash verified: give the receiver of dealer card callbacks kind: 'dealerCreditCard'",
};

/** At most one report a minute per reason, and one console line a minute: a wrong key refuses every callback, and each would say the same. */
const INTERVAL_MS = 60_000;

function heardReason(error: CallbackVerificationError): HeardReason | undefined {
  switch (error.reason) {
    case 'invalid_signature':
    case 'api_key_mismatch':
      return error.reason;
    case 'timestamp_out_of_tolerance':
    case 'kind_mismatch':
    case 'missing_header':
      // A forged callback of another kind, or one whose hash does not verify, is junk.
      return error.signatureVerified ? error.reason : undefined;
    // Not a well-formed callback; (unreadable_payload) told by the pipeline as a failure; or
    // (seal_key_expired, seal_key_unknown) a queued job's seal, whose rejection by `apply` reaches the engine and `onError`.
    case 'repeated_header':
    case 'empty_header':
    case 'malformed_body':
    case 'invalid_tracking_code':
    case 'invalid_status':
    case 'merchant_mismatch':
    case 'unreadable_payload':
    case 'seal_key_expired':
    case 'seal_key_unknown':
      return undefined;
    default:
      return assertNever(error.reason);
  }
}

/**
 * The reason the meter records for a refusal: the answer's, except for a request refused for a
 * heard reason yet not heard (a forged callback of another kind, headers missing from a body that
 * does not verify), recorded as `<reason>_unverified`: an alert on the heard reasons then fires for
 * a genuine callback lost to a setting and stays quiet for a scanner (docs/observability.md).
 */
export function meteredReason(error: CallbackVerificationError): string {
  const reason: string = error.reason;
  return heardReason(error) === undefined && (HEARD_REASONS as readonly string[]).includes(reason) ? `${reason}_unverified` : reason;
}

export interface RefusalSettings {
  /** The receiver's logger, at its level. */
  readonly logger: LevelledLogger;
  /** The receiver's clock, in milliseconds. */
  readonly now: () => number;
  /** Tells `onError` of a reason's refusals, `count` of them since the last report; undefined without `onError`. */
  readonly report: ((error: CallbackVerificationError, count: number) => void) | undefined;
}

/**
 * At most one report a minute per reason: `tell` runs for the first of a minute with the count of
 * the reason's refusals since the last report, this one included; the others are only counted.
 */
export function eachReasonOnceAMinute(): (reason: string, at: number, tell: (count: number) => void) => void {
  // Per reason: when its last report went out, and how many came since.
  const reports = new Map<string, { since: number; count: number }>();
  return (reason, at, tell) => {
    const last = reports.get(reason);
    if (last !== undefined && at - last.since < INTERVAL_MS) {
      last.count++;
      return;
    }
    reports.set(reason, { since: at, count: 0 });
    tell((last?.count ?? 0) + 1);
  };
}

/** Hears each refusal of a request: counted and told when it is a genuine-looking callback's, logged at debug otherwise. */
export function refusalHearing({ logger, now, report }: RefusalSettings): (error: CallbackVerificationError) => void {
  const reports = eachReasonOnceAMinute();
  // The console line: when the last one was written, and the count of each cause since.
  let lineAt: number | undefined;
  const unwritten = new Map<HeardReason, number>();

  function tell(error: CallbackVerificationError, reason: HeardReason, at: number): void {
    if (report !== undefined) reports(reason, at, (count) => { report(error, count); });
  }

  function write(at: number): void {
    if (lineAt !== undefined && at - lineAt < INTERVAL_MS) return;
    const minutes = lineAt === undefined ? 0 : Math.max(1, Math.round((at - lineAt) / 60_000));
    lineAt = at;
    let total = 0;
    const reasons: Partial<Record<HeardReason, number>> = {};
    const causes: string[] = [];
    for (const [reason, count] of unwritten) {
      total += count;
      reasons[reason] = count;
      causes.push(`${count} because ${CAUSES[reason]}`);
    }
    unwritten.clear();
    const plural = total === 1 ? '' : 's';
    const span = minutes === 0 ? '' : ` in the last ${minutes === 1 ? 'minute' : `${minutes} minutes`}`;
    // Written at warn whatever the level but off: a receiver refusing genuine callbacks loses them.
    logger.warnAlways(
      { refused: total, reasons },
      `payorch: refused ${total} well-formed callback${plural}${span}: ${causes.join('; ')}. Genuine callbacks are lost once the service stops retrying: see "Refused callbacks" in the receiver guide (docs/receiving-callbacks.md).`,
    );
  }

  return (error) => {
    const reason = heardReason(error);
    if (reason === undefined) {
      if (logger.enabled('debug')) logger.debug({ reason: error.reason, status: error.status }, `payorch: refused a callback request (${error.reason}): ${error.message}`);
      return;
    }
    const at = now();
    tell(error, reason, at);
    unwritten.set(reason, (unwritten.get(reason) ?? 0) + 1);
    write(at);
  };
}
