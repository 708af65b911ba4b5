import { capacityWarnings } from '../../inboxes/capacity.js';
import type { CallbackApplyTrace, CallbackTrace } from './callback-spans.js';
import { CallbackJobError } from '../../errors/error.js';
import type { CallbackInboxContext, CallbackInboxOutcome } from '../../inboxes/inbox.js';
import { callbackJob, checkCallbackJob } from '../job.js';
import type { CallbackJob } from '../job.js';
import type { VerifiedCallback } from '../schemas.js';
import type { AppliedCallback, CardStatusRead } from '../status-read.js';
import { statusesToApply } from '../status-read.js';
import { utf8Length } from '../body.js';
import type { Verified } from '../verify.js';
import { NOT_APPLIED, NOT_QUEUED, OK, TOO_LARGE, failureAnswer } from './answers.js';
import type { CallbackReceiverAnswer } from './answer.js';
import { applyOnce } from './apply-once.js';
import type { ApplyOnceSettings } from './apply-once.js';
import { eachReasonOnceAMinute, refusalHearing } from './refusals.js';
import type { ReceiverSettings } from './settings.js';
import { isAnswer, verifyReceived } from './verify-received.js';
import type { ReceivedInput, VerifySettings } from './verify-received.js';

/*
 * The receive path after an entry point read the body, in four steps after sizing it: verify
 * (verify-received.ts), route (routes.ts), apply once (apply-once.ts), answer (answers.ts); with
 * `enqueue`, the verified callback is queued as a job instead, and `receiver.apply(job)` routes
 * and applies it once the job is checked as its callback was.
 */

/** The receive path of one receiver. */
export interface Pipeline {
  /** Sizes and verifies a body its entry point read, then enqueues or applies it, and answers for it. Never rejects. */
  readonly verifyAndApply: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  /** Checks a signed job as its callback was checked, then applies it (`receiver.apply`). */
  readonly applyJob: (job: unknown, trace: CallbackApplyTrace) => Promise<void>;
  /**
   * Applies the end status of a status read, a refunded payment's `success` first, each under its
   * own key; rejects with the first failure, as a callback's does (reported to `onError`).
   */
  readonly applyRead: (read: CardStatusRead) => Promise<CallbackInboxOutcome | 'unhandled'>;
}

/** The receive path over the receiver's verifier, handlers, inbox, `confirm` and `enqueue`. */
export function pipeline<TContext extends CallbackInboxContext>(settings: ReceiverSettings<TContext>): Pipeline {
  const { verifier, merchantId, enqueue, logger, onError, report, routes, fill, maxBodyBytes } = settings;
  // Refusals of genuine-looking callbacks reach onError (when given) and the console.
  const refused = refusalHearing({
    logger,
    now: verifier.now,
    report: onError === undefined ? undefined : (error, count) => { report(error, { callback: undefined, phase: 'verify', count }); },
  });
  const verifying: VerifySettings = { verifier, logger, report, refused, now: verifier.now, payloadReports: eachReasonOnceAMinute() };
  // The in-memory inbox refuses once full: the receiver warns before.
  const applying: ApplyOnceSettings<TContext> = { ...settings, watchFill: fill === undefined ? undefined : capacityWarnings(fill, logger, verifier.now) };
  const routeAndApply = (callback: AppliedCallback): Promise<CallbackInboxOutcome | 'unhandled'> => applyOnce(applying, callback, routes.routeOf(callback));

  // Size (a body read from a stream was sized as it was read); verify (a refusal ends in its
  // answer); then, deferred, enqueue; else route and apply once; answer.
  async function verifyAndApply(input: ReceivedInput, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
    if (tooLarge(input.body, maxBodyBytes)) return TOO_LARGE;
    const verified = verifyReceived(verifying, input, trace);
    if (isAnswer(verified)) return verified;
    trace.verified(verified.callback);
    if (enqueue !== undefined) return enqueueVerified(enqueue, verified, trace);
    try {
      trace.processed(await routeAndApply(verified.callback));
      return OK;
    } catch (error) {
      return failureAnswer(error);
    }
  }

  // Deferred: a verified callback becomes a job, and the job comes back through the same verifier.
  async function enqueueVerified(queue: (job: CallbackJob) => Promise<void>, { callback, signedIn, receivedAt }: Verified, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
    // Sealed at receipt with the current key: it applies whenever it runs, whatever the window.
    const job = verifier.seals.seal(callbackJob(callback, signedIn, merchantId, receivedAt, trace.traceparent()));
    try {
      await queue(job);
    } catch (error) {
      report(error, { callback, phase: 'enqueue' });
      return NOT_QUEUED;
    }
    trace.processed('queued');
    if (logger.enabled('debug')) logger.debug({ kind: callback.kind, trackingCode: callback.payload.tracking_code, status: callback.payload.status }, 'payorch: callback queued');
    return OK;
  }

  async function applyJob(job: unknown, trace: CallbackApplyTrace): Promise<void> {
    let callback: VerifiedCallback;
    try {
      callback = checkCallbackJob(job, { verifier, merchantId, nowMs: verifier.now() });
    } catch (error) {
      if (error instanceof CallbackJobError) logger.warn({ reason: error.reason, field: error.field }, error.message);
      throw error;
    }
    trace.verified(callback);
    trace.processed(await routeAndApply(callback));
  }

  // In order, each under its own key: a refunded payment's handlers see its success applied first.
  async function applyRead(read: CardStatusRead): Promise<CallbackInboxOutcome | 'unhandled'> {
    let result: CallbackInboxOutcome | 'unhandled' = 'unhandled';
    for (const status of statusesToApply(read.readStatus)) {
      const outcome = await routeAndApply({ ...read, payload: { ...read.payload, status } });
      if (outcome === 'applied' || (outcome === 'duplicate' && result === 'unhandled')) result = outcome;
    }
    return result;
  }

  return {
    // Never rejects: whatever throws past the answers above is reported and answered 500.
    verifyAndApply: async (input, trace) => {
      try {
        return await verifyAndApply(input, trace);
      } catch (error) {
        report(error, { callback: undefined, phase: 'request' });
        return NOT_APPLIED;
      }
    },
    applyJob,
    applyRead,
  };
}

/**
 * Whether a body given whole (`receiver.receive`, a framework's parser) is over `maxBodyBytes`. A
 * UTF-16 unit is at most 3 UTF-8 bytes: most strings are sized without encoding them.
 */
function tooLarge(body: ReceivedInput['body'], maxBodyBytes: number): boolean {
  if (typeof body === 'string') return body.length * 3 > maxBodyBytes && utf8Length(body) > maxBodyBytes;
  return (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) && body.byteLength > maxBodyBytes;
}
