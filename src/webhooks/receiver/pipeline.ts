import type { Logger } from '../../core/observability.js';
import type { LevelledLogger } from '../../core/log-level.js';
import type { CallbackApplyTrace, CallbackTrace } from '../../internal/tracing.js';
import { CallbackJobError } from '../../errors/error.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome } from '../../inboxes/inbox.js';
import { callbackJob, checkCallbackJob } from '../job.js';
import type { CallbackJob } from '../job.js';
import type { VerifiedCallback } from '../schemas.js';
import type { AppliedCallback, CardStatusRead } from '../status-read.js';
import { statusesToApply } from '../status-read.js';
import type { Verified, Verifier } from '../verify.js';
import { NOT_APPLIED, NOT_QUEUED, OK, failureAnswer } from './answers.js';
import type { CallbackReceiverAnswer } from './answers.js';
import { applyOnce } from './apply-once.js';
import type { ApplyOnceSettings, CallbackConfirm } from './apply-once.js';
import { eachReasonOnceAMinute, refusalHearing } from './refusals.js';
import { failureReport } from './report.js';
import type { OnCallbackError, Report } from './report.js';
import { handlerRoutes } from './routes.js';
import type { HandlerRoutes } from './routes.js';
import { isAnswer, verifyReceived } from './verify-received.js';
import type { ReceivedInput, VerifySettings } from './verify-received.js';

/*
 * The receive path after an entry point read and sized the body, in four steps: verify
 * (verify-received.ts), route (routes.ts), apply once (apply-once.ts), answer (answers.ts); with
 * `enqueue`, the verified callback is queued as a job instead, and `receiver.apply(job)` routes
 * and applies it once the job is checked as its callback was.
 */

/** What the receive path needs of the receiver's options, each checked and resolved once. */
export interface PipelineSettings<TContext extends CallbackInboxContext> {
  /** The receiver's verifier: a callback, and a job, is verified with it; its clock is the receiver's. */
  readonly verifier: Verifier;
  /** The merchant keys are recorded under (`merchantId`, else a digest of the API key). */
  readonly merchantId: string;
  readonly inbox: CallbackInbox<TContext>;
  readonly confirm: CallbackConfirm<TContext> | undefined;
  readonly retryUnhandled: boolean;
  readonly enqueue: ((job: CallbackJob) => Promise<void>) | undefined;
  /** The receiver's logger, at its level. */
  readonly logger: LevelledLogger;
  /** The receiver's `onError`: told of every callback that could not be applied. */
  readonly onError: OnCallbackError | undefined;
  /** Without `onError`, failures go to this logger as given (never filtered by level), else to `console.error`. */
  readonly failureLogger: Logger | undefined;
  /** Checks how full the in-memory inbox is after each callback it took or refused (capacity.ts); undefined for any other inbox. */
  readonly watchFill: (() => void) | undefined;
}

/** The receive path of one receiver. */
export interface Pipeline<TContext> {
  /** Registers a handler (`receiver.on`): see routes.ts. */
  readonly on: HandlerRoutes<TContext>['on'];
  /** Verifies a body its entry point read and sized, then enqueues or applies it, and answers for it. Never rejects. */
  readonly verifyAndApply: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  /** Checks a signed job as its callback was checked, then applies it (`receiver.apply`). */
  readonly applyJob: (job: unknown, trace: CallbackApplyTrace) => Promise<void>;
  /**
   * Applies the end status of a status read, a refunded payment's `success` first, each under its
   * own key; rejects with the first failure, as a callback's does (reported to `onError`).
   */
  readonly applyRead: (read: CardStatusRead) => Promise<CallbackInboxOutcome | 'unhandled'>;
  /** Tells of a callback that was not applied: `onError`, else the logger's `error`, else `console.error`. */
  readonly report: Report;
}

/** The receive path over the receiver's verifier, handlers, inbox, `confirm` and `enqueue`. */
export function pipeline<TContext extends CallbackInboxContext>(settings: PipelineSettings<TContext>): Pipeline<TContext> {
  const { verifier, merchantId, enqueue, logger, onError } = settings;
  const report = failureReport(onError, settings.failureLogger);
  // Refusals of genuine-looking callbacks reach onError (when given) and the console.
  const refused = refusalHearing({
    logger,
    now: verifier.now,
    report: onError === undefined ? undefined : (error, count) => { report(error, { callback: undefined, phase: 'verify', count }); },
  });
  const verifying: VerifySettings = { verifier, logger, report, refused, now: verifier.now, payloadReports: eachReasonOnceAMinute() };
  const routes = handlerRoutes<TContext>();
  const applying: ApplyOnceSettings<TContext> = { ...settings, report };
  const routeAndApply = (callback: AppliedCallback): Promise<CallbackInboxOutcome | 'unhandled'> => applyOnce(applying, callback, routes.routeOf(callback));

  // Verify (a refusal ends in its answer); then, deferred, enqueue; else route and apply once; answer.
  async function verifyAndApply(input: ReceivedInput, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
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
    on: routes.on,
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
    report,
  };
}
