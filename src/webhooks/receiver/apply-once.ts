import type { LevelledLogger } from '../../core/log-level.js';
import { isPayorchError, CallbackRetentionError, InboxCommitError, NotConfirmedError, UnhandledError } from '../../errors/error.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome, CallbackKey, CallbackProgress } from '../../inboxes/inbox.js';
import type { AppliedCallback } from '../status-read.js';
import type { Report } from './report.js';
import type { RouteStep } from './routes.js';

/*
 * The apply-once step: a verified callback and the handlers it was routed to run inside the
 * inbox, once per merchant + tracking code + status: `confirm` first, then each handler. A
 * failure is reported with what failed and thrown again, for the answer (or the queue engine).
 */

/**
 * Decides whether a verified callback may be applied, before any handler runs: compare what the
 * hash does not cover (amount, user, IBAN) with your own record, or ask the service
 * ({@link confirmWithCardStatus}). `false` or a throw applies nothing and records nothing; the
 * answer is not 200, so the genuine delivery still applies when it comes.
 */
export type CallbackConfirm<TContext> = (callback: AppliedCallback, context: TContext) => boolean | Promise<boolean>;

/** What applying once needs of the receiver's options, each checked and resolved once. */
export interface ApplyOnceSettings<TContext extends CallbackInboxContext> {
  /** The merchant keys are recorded under (`merchantId`, else a digest of the API key). */
  readonly merchantId: string;
  readonly inbox: CallbackInbox<TContext>;
  readonly confirm: CallbackConfirm<TContext> | undefined;
  readonly retryUnhandled: boolean;
  /** The receiver's logger, at its level. */
  readonly logger: LevelledLogger;
  readonly report: Report;
  /** Checks how full the in-memory inbox is after each callback it took or refused (capacity.ts); undefined for any other inbox. */
  readonly watchFill: (() => void) | undefined;
}

/**
 * Applies `callback` once through the inbox: `confirm`, then each step of `route` an earlier
 * attempt did not complete. Tells `onError` of a failure and rejects with it.
 */
export async function applyOnce<TContext extends CallbackInboxContext>(
  settings: ApplyOnceSettings<TContext>,
  callback: AppliedCallback,
  route: readonly RouteStep<TContext>[],
): Promise<CallbackInboxOutcome | 'unhandled'> {
  const { merchantId, inbox, confirm, retryUnhandled, logger, report, watchFill } = settings;
  const { tracking_code: trackingCode, status } = callback.payload;
  if (route.length === 0) {
    // The console prints the message alone: it names the callback.
    logger.warn({ kind: callback.kind, trackingCode, status, unhandled: retryUnhandled ? 'retry' : 'acknowledge' }, `payorch: no handler takes ${callback.kind}.${status} ${trackingCode}; ${retryUnhandled ? 'not applied, delivered again' : 'acknowledged (200) and not applied'}`);
    if (!retryUnhandled) return 'unhandled';
    const error = new UnhandledError(`no handler is registered for ${callback.kind}.${status}; not applied, so that it is delivered again (unhandled: 'retry')`);
    report(error, { callback, phase: 'unhandled' });
    throw error;
  }
  const key: CallbackKey = { merchantId, trackingCode, status };
  // Set inside the inbox's work: tells a handler's or confirm's failure from the inbox's own.
  const failed: { phase: 'handler' | 'confirm' | undefined } = { phase: undefined };
  try {
    const outcome = await inbox.process(key, async (context: TContext, progress?: CallbackProgress) => {
      if (confirm !== undefined) {
        failed.phase = 'confirm';
        // Only `true` confirms: a confirm written in JavaScript that returns nothing refuses.
        const confirmed: unknown = await confirm(callback, context);
        if (confirmed !== true) throw new NotConfirmedError(`confirm refused ${callback.kind}.${status} ${trackingCode}; nothing was applied`);
        failed.phase = undefined;
      }
      warnOtherEnd(logger, callback, context);
      failed.phase = 'handler';
      for (const { step, handler } of route) {
        if (progress !== undefined && progress.has(step)) continue;
        await handler(callback, context);
        progress?.add(step);
      }
      failed.phase = undefined;
    });
    if (logger.enabled('debug')) logger.debug({ kind: callback.kind, trackingCode, status, outcome, handlers: route.length }, `payorch: callback ${outcome}`);
    return outcome;
  } catch (error) {
    // Refused by the inbox's retention before any work ran: a phase of its own, to reconcile by hand.
    const retention = failed.phase === undefined && isPayorchError(error, CallbackRetentionError);
    // The inbox's refusal to commit is the inbox's phase, whether or not a handler threw too.
    report(error, { callback, phase: retention ? 'retention' : isPayorchError(error, InboxCommitError) ? 'inbox' : (failed.phase ?? 'inbox') });
    throw error;
  } finally {
    watchFill?.();
  }
}

/** Warns when the inbox has applied another end status of this tracking code already. */
function warnOtherEnd(logger: LevelledLogger, callback: AppliedCallback, context: unknown): void {
  // An inbox written in JavaScript may still leave it out.
  const applied = (context as Partial<CallbackInboxContext> | null | undefined)?.appliedStatuses;
  if (!Array.isArray(applied) || applied.length === 0) return;
  logger.warn(
    { kind: callback.kind, trackingCode: callback.payload.tracking_code, status: callback.payload.status, appliedStatuses: applied },
    'payorch: a second end status for one tracking code; handlers see context.appliedStatuses (refund once per tracking code)',
  );
}
