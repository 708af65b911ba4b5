import type { LevelledLogger } from '../../core/log-level.js';
import { CallbackVerificationError } from '../../errors/error.js';
import { readCallbackBody } from '../body.js';
import type { BodyDecoding, CallbackBody } from '../body.js';
import type { CallbackHeaders } from '../headers.js';
import { charsetOf } from '../verify.js';
import type { Verified, Verifier } from '../verify.js';
import { NOT_APPLIED, UNREADABLE_PAYLOAD, answer } from './answers.js';
import type { CallbackReceiverAnswer } from './answers.js';
import type { Report } from './report.js';

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
  /** Hears a refusal (refusals.ts). */
  readonly refused: (error: CallbackVerificationError) => void;
}

/** The verified callback, or the answer to a request that did not verify (told already). */
export function verifyReceived(settings: VerifySettings, input: ReceivedInput): Verified | CallbackReceiverAnswer {
  const { verifier, logger, report, refused } = settings;
  try {
    return verifier.verify(input, { onDecoded: (decoding) => { warnDecoded(logger, decoding); }, sized: true });
  } catch (error) {
    if (!(error instanceof CallbackVerificationError)) {
      report(error, { callback: undefined, phase: 'request' });
      return NOT_APPLIED;
    }
    if (error.reason === 'unreadable_payload') {
      // Genuine: never dropped. 500 brings it back once the SDK or the service is fixed.
      report(error, { callback: undefined, phase: 'payload', payload: rawPayload(input) });
      return UNREADABLE_PAYLOAD;
    }
    refused(error);
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

/** The body of a genuine callback that could not be typed, without its `hash`, for `onError`. */
function rawPayload(input: ReceivedInput): Readonly<Record<string, unknown>> | undefined {
  try {
    const fields = readCallbackBody(input.body, charsetOf(input));
    delete fields['hash'];
    return fields;
  } catch {
    return undefined;
  }
}
