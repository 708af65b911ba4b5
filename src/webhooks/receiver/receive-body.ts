import type { LevelledLogger } from '../../core/log-level.js';
import type { CallbackSpans, CallbackTrace } from './callback-spans.js';
import { utf8Length } from '../body.js';
import { answer } from './answer.js';
import { TOO_LARGE } from './answers.js';
import type { CallbackReceiverAnswer } from './answer.js';
import type { Report } from './report.js';
import type { ReceivedInput } from './verify-received.js';

/*
 * What the receiver's entry points share: `receiver.receive` (a body you already have),
 * `receiver.nodeHandler` (node-handler.ts) and `receiver.handle` (fetch-handler.ts). Each is one
 * span, and reads the body once and sizes it once (as it reads, or whole when it was given whole)
 * before the receive path.
 */

/** What the entry points get of the receiver. */
export interface EntrySettings {
  /** The largest body read, in bytes (`maxBodyBytes`). */
  readonly maxBodyBytes: number;
  /** The receive path for a body read and sized: verify, then enqueue or apply. Never rejects. */
  readonly verifyAndApply: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  readonly report: Report;
  /** The receiver's logger, at its level: a body that could not be read is told at warn. */
  readonly logger: LevelledLogger;
  readonly spans: CallbackSpans;
}

/** `receiver.receive`: one span per body given whole. Never rejects. */
export function bodyReceiver(entry: EntrySettings): (input: ReceivedInput) => Promise<CallbackReceiverAnswer> {
  const { spans } = entry;
  const answered = async (input: ReceivedInput, trace: CallbackTrace): Promise<CallbackReceiverAnswer> => trace.answered(await receiveBody(entry, input, trace));
  return (input) => spans.inReceiveSpan((trace) => answered(input, trace));
}

/**
 * Receives a body given whole (`receiver.receive`, a framework's parser): sized here, then
 * verified and applied. A UTF-16 unit is at most 3 UTF-8 bytes: most strings are sized without
 * encoding them.
 */
export function receiveBody({ maxBodyBytes, verifyAndApply }: EntrySettings, input: ReceivedInput, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
  const { body } = input;
  const tooLarge =
    typeof body === 'string' ? body.length * 3 > maxBodyBytes && utf8Length(body) > maxBodyBytes : (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) && body.byteLength > maxBodyBytes;
  return tooLarge ? Promise.resolve(TOO_LARGE) : verifyAndApply(input, trace);
}

/** The answer to a body whose stream failed: the client went away mid-body, nobody reads this answer, and nothing was applied. */
export function unreadableBody(logger: LevelledLogger, error: unknown): CallbackReceiverAnswer {
  logger.warn({ error }, 'payorch: the callback body could not be read');
  return answer(400, 'malformed_body');
}
