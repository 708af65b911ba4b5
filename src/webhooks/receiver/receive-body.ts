import type { LevelledLogger } from '../../core/log-level.js';
import type { CallbackSpans, CallbackTrace } from './callback-spans.js';
import { answer } from './answer.js';
import type { CallbackReceiverAnswer } from './answer.js';
import type { Report } from './report.js';
import type { ReceivedInput } from './verify-received.js';

/*
 * What the receiver's entry points share: `receiver.receive` (a body you already have),
 * `receiver.nodeHandler` (node-handler.ts) and `receiver.handle` (fetch-handler.ts). Each is one
 * span, and reads the body once, sizing it as it reads a stream; a body given whole is sized by
 * the receive path (pipeline.ts).
 */

/** What the entry points get of the receiver. */
export interface EntrySettings {
  /** The largest body read, in bytes (`maxBodyBytes`). */
  readonly maxBodyBytes: number;
  /** The receive path for a body read: size, verify, then enqueue or apply. Never rejects. */
  readonly verifyAndApply: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  readonly report: Report;
  /** The receiver's logger, at its level: a body that could not be read is told at warn. */
  readonly logger: LevelledLogger;
  readonly spans: CallbackSpans;
}

/** `receiver.receive`: one span per body given whole, sized by the receive path. Never rejects. */
export function bodyReceiver(entry: EntrySettings): (input: ReceivedInput) => Promise<CallbackReceiverAnswer> {
  const { spans, verifyAndApply } = entry;
  return (input) => spans.inReceiveSpan(async (trace) => trace.answered(await verifyAndApply(input, trace)));
}

/** The answer to a body whose stream failed: the client went away mid-body, nobody reads this answer, and nothing was applied. */
export function unreadableBody(logger: LevelledLogger, error: unknown): CallbackReceiverAnswer {
  logger.warn({ error }, 'payorch: the callback body could not be read');
  return answer(400, 'malformed_body');
}
