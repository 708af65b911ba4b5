import type { LevelledLogger } from '../../core/log-level.js';
import { CallbackVerificationError } from '../../errors/error.js';
import { readCallbackBody } from '../body.js';
import type { BodyDecoding, CallbackBody } from '../body.js';
import type { CallbackHeaders } from '../headers.js';
import { charsetOf } from '../verify.js';
import type { Verified, Verifier } from '../verify.js';
import { answer } from './answer.js';
import { NOT_APPLIED, UNREADABLE_PAYLOAD } from './answers.js';
import type { CallbackReceiverAnswer } from './answer.js';
import { meteredReason } from './refusals.js';
import { withoutHash } from './report.js';
import type { Report } from './report.js';
import type { CallbackTrace } from './callback-spans.js';

/*
 * The verify step: a body its entry point read and sized is verified once (its headers parsed
 * once, the clock read once). What does not verify ends here, with its answer, and is heard: a
 * refusal by refusals.ts, a genuine body that could not be typed by the report.
 */

/** A callback as an entry point hands it to the receive path, its body read and sized. */
export interface ReceivedInput {
  readonly headers: CallbackHeaders;
  readonly body: CallbackBody;
}

/** What verifying needs of the receiver. */
export interface VerifySettings {
  /** The receiver's verifier: its keys, kind, tolerance and clock. */
  readonly verifier: Verifier;
  /** The receiver's logger, at its level: a body read in another charset than declared is told at warn. */
  readonly logger: LevelledLogger;
  readonly report: Report;
  /** The receiver's clock, in milliseconds: reports of unreadable bodies are told at most once a minute. */
  readonly now: () => number;
  /** Tells of an unreadable body, at most once a minute (refusals.ts). */
  readonly payloadReports: PayloadReports;
  /** Hears a refusal (refusals.ts). */
  readonly refused: (error: CallbackVerificationError) => void;
}

/** The verified callback, or the answer to a request that did not verify (told already, and to the meter through `trace`). */
export function verifyReceived(settings: VerifySettings, input: ReceivedInput, trace: Pick<CallbackTrace, 'refused'>): Verified | CallbackReceiverAnswer {
  const { verifier, logger, report, refused, payloadReports, now } = settings;
  try {
    return verifier.verify(input, { onDecoded: (decoding) => { warnDecoded(logger, decoding); }, sized: true });
  } catch (error) {
    if (!(error instanceof CallbackVerificationError)) {
      report(error, { callback: undefined, phase: 'request' });
      return NOT_APPLIED;
    }
    if (error.reason === 'unreadable_payload') {
      // Genuine: never dropped. 500 brings it back once the SDK or the service is fixed. Its
      // redeliveries, or a sender that has the keys, would say the same: told once a minute.
      payloadReports(error.reason, now(), (count) => { report(error, { callback: undefined, phase: 'payload', count, payload: rawPayload(input) }); });
      return UNREADABLE_PAYLOAD;
    }
    refused(error);
    trace.refused(meteredReason(error));
    return answer(error.status, error.reason);
  }
}

/** Whether verifying ended in an answer rather than a callback. */
export function isAnswer(outcome: Verified | CallbackReceiverAnswer): outcome is CallbackReceiverAnswer {
  return 'status' in outcome;
}

// Read, not refused: a genuine callback must apply whatever charset its bytes are in. Logged, so
// that a sender that mislabels its bodies is seen, and names read in a wrong charset found.
function warnDecoded(logger: LevelledLogger, decoding: BodyDecoding): void {
  logger.warn({ ...decoding }, `payorch: the callback body was not in the charset its Content-Type declares (${decoding.charset ?? 'none, so UTF-8'}); it was read as ${decoding.decodedAs}`);
}

/** Tells of an unreadable body at most once a minute per reason, with the count (refusals.ts). */
export type PayloadReports = (reason: string, at: number, tell: (count: number) => void) => void;

/** The most characters of a field's name or value, and of the whole payload as JSON, `onError` is given. */
const FIELD_CHARS = 100;
export const PAYLOAD_CHARS = 500;

/** `text` cut to `max` characters, marked when cut. */
const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The body of a genuine callback that could not be typed, for `onError`: without its `hash`, each
 * name and text cut to FIELD_CHARS, nested values as their cut JSON, and fields past PAYLOAD_CHARS
 * (as JSON) left out and counted, so that a sender of 64 KiB cannot write 64 KiB into a tracker.
 */
function rawPayload(input: ReceivedInput): Readonly<Record<string, unknown>> | undefined {
  let fields: Record<string, unknown>;
  try {
    fields = withoutHash(readCallbackBody(input.body, charsetOf(input)));
  } catch {
    return undefined;
  }
  const kept: Record<string, unknown> = {};
  const names = Object.keys(fields);
  let size = 2;
  for (const [index, name] of names.entries()) {
    const value = fields[name];
    const shown = typeof value === 'string' ? cut(value, FIELD_CHARS) : typeof value === 'object' && value !== null ? cut(JSON.stringify(value), FIELD_CHARS) : value;
    const key = cut(name, FIELD_CHARS);
    size += JSON.stringify(key).length + ((JSON.stringify(shown) as string | undefined)?.length ?? 0) + 2;
    if (size > PAYLOAD_CHARS) {
      kept['…'] = `${names.length - index} more field${names.length - index === 1 ? '' : 's'} left out`;
      break;
    }
    kept[key] = shown;
  }
  return kept;
}
