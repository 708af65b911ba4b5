import type { LevelledLogger } from '../../core/log-level.js';
import { assertNever } from '../../internal/assert-never.js';
import type { CallbackApplyTrace, CallbackTrace } from '../../internal/tracing.js';
import { isPayorchError, CallbackJobError, CallbackRetentionError } from '../../errors/error.js';
import { eventNamesOf, isCallbackEventName } from '../events.js';
import type { CallbackEventName, CallbackOfEvent } from '../events.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome, CallbackKey, CallbackProgress } from '../inbox.js';
import { checkCallbackJob, checkStatusReadJob, isStatusReadJob } from '../job.js';
import type { VerifiedCallback } from '../schemas.js';
import type { AppliedCallback, CardStatusRead, CardStatusSource } from '../status-read.js';
import { readCardStatus, statusesToApply } from '../status-read.js';
import type { Verifier } from '../verify.js';
import { NOT_APPLIED, NOT_CONFIRMED, NO_HANDLER, OK, RECORD_TOO_OLD } from './answer.js';
import type { CallbackReceiverAnswer } from './answer.js';
import type { Report } from './report.js';

/*
 * The applying path: confirm, then the inbox, then the handlers. The inline answer (no `enqueue`)
 * and `receiver.apply(job)` share it; a job is first checked as its callback was.
 */

/**
 * A handler of one event: applies the callback, or throws to have it delivered again. It gets
 * the inbox's context: with the PostgreSQL inbox, `context.client` is the open transaction.
 */
export type CallbackHandler<E extends CallbackEventName, TContext> = (callback: CallbackOfEvent<E>, context: TContext) => void | Promise<void>;

/**
 * Decides whether a verified callback may be applied, before any handler runs: compare what the
 * hash does not cover (amount, user, IBAN) with your own record, or ask the service
 * ({@link confirmWithCardStatus}). `false` or a throw applies nothing and records nothing; the
 * answer is not 200, so the genuine delivery still applies when it comes.
 */
export type CallbackConfirm<TContext> = (callback: AppliedCallback, context: TContext) => boolean | Promise<boolean>;

/** `confirm` returned false: the callback disagrees with the record it was checked against. */
export class NotConfirmedError extends Error {
  override name = 'NotConfirmedError';
}

/** No handler takes the callback and `unhandled: 'retry'` asks for it again. */
export class UnhandledError extends Error {
  override name = 'UnhandledError';
}

/** What applying needs of the receiver's options. */
export interface ApplySettings<TContext extends CallbackInboxContext> {
  readonly inbox: CallbackInbox<TContext>;
  readonly confirm: CallbackConfirm<TContext> | undefined;
  /** The account keys are recorded under (`accountName`, else the API key). */
  readonly account: string;
  readonly retryUnhandled: boolean;
  /** The receiver's verifier: a job is verified with it. */
  readonly verifier: Verifier;
  readonly clock: () => number;
  readonly logger: LevelledLogger;
  readonly report: Report;
}

/** The applying path of one receiver. */
export interface Applying<TContext> {
  /**
   * Registers a handler (`receiver.on`), checked at run time for callers without types.
   * @throws {TypeError} for an event name or a handler that is not one
   */
  on(event: string, handler: (callback: never, context: TContext) => void | Promise<void>): void;
  /** Applies a callback before the answer (no `enqueue`), and answers for it. */
  applyNow(callback: VerifiedCallback, trace: CallbackTrace): Promise<CallbackReceiverAnswer>;
  /**
   * Checks a job as its callback was checked, then applies it (`receiver.apply`); a job made by
   * `reconcile` is applied from a fresh status read through `provider`.
   */
  applyJob(job: unknown, trace: CallbackApplyTrace, provider: CardStatusSource | undefined): Promise<void>;
  /**
   * Applies the end status of a status read, a refunded payment's `success` first, each under its
   * own key; rejects with the first failure, as a callback's does (reported to `onError`).
   */
  applyRead(read: CardStatusRead): Promise<CallbackInboxOutcome | 'unhandled'>;
}

/** The applying path over the receiver's handlers, inbox and `confirm`. */
export function applying<TContext extends CallbackInboxContext>(settings: ApplySettings<TContext>): Applying<TContext> {
  const { inbox, confirm, account, retryUnhandled, logger, report } = settings;
  type Handler = (callback: AppliedCallback, context: TContext) => void | Promise<void>;
  const handlers = new Map<string, Handler[]>();
  // The steps of each kind and status, worked out on its first callback; `on` clears them.
  const steps = new Map<string, readonly { readonly step: string; readonly handler: Handler }[]>();
  function stepsOf(callback: AppliedCallback): readonly { readonly step: string; readonly handler: Handler }[] {
    const id = `${callback.kind}.${callback.payload.status}`;
    let found = steps.get(id);
    if (found === undefined) {
      // Each handler is a step named by its event and place, for an inbox that keeps progress.
      found = eventNamesOf(callback).flatMap((name) => (handlers.get(name) ?? []).map((handler, index) => ({ step: `${name}#${index}`, handler })));
      // Statuses are signed words, but an unknown kind may bring any: the cache stays small.
      if (steps.size >= 256) steps.clear();
      steps.set(id, found);
    }
    return found;
  }

  function warnOtherEnd(callback: AppliedCallback, context: TContext): void {
    // An inbox written in JavaScript may still leave it out.
    const applied = (context as Partial<CallbackInboxContext> | null | undefined)?.appliedStatuses;
    if (!Array.isArray(applied) || applied.length === 0) return;
    logger.warn(
      { kind: callback.kind, trackingCode: callback.payload.tracking_code, status: callback.payload.status, appliedStatuses: applied },
      'payorch: a second end status for one tracking code; handlers see context.appliedStatuses (refund once per tracking code)',
    );
  }

  // Tells onError of a failure and rejects with it.
  async function applyCallback(callback: AppliedCallback): Promise<CallbackInboxOutcome | 'unhandled'> {
    const matching = stepsOf(callback);
    const { tracking_code: trackingCode, status } = callback.payload;
    if (matching.length === 0) {
      logger.warn({ kind: callback.kind, trackingCode, status, unhandled: retryUnhandled ? 'retry' : 'acknowledge' }, 'payorch: no handler takes this callback');
      if (!retryUnhandled) return 'unhandled';
      const error = new UnhandledError(`no handler is registered for ${callback.kind}.${status}; not applied, so that it is delivered again (unhandled: 'retry')`);
      report(error, { callback, phase: 'unhandled' });
      throw error;
    }
    const key: CallbackKey = { account, trackingCode, status };
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
        warnOtherEnd(callback, context);
        failed.phase = 'handler';
        for (const { step, handler } of matching) {
          if (progress !== undefined && progress.has(step)) continue;
          await handler(callback, context);
          progress?.add(step);
        }
        failed.phase = undefined;
      });
      if (logger.enabled('debug')) logger.debug({ kind: callback.kind, trackingCode, status, outcome, handlers: matching.length }, `payorch: callback ${outcome}`);
      return outcome;
    } catch (error) {
      // Refused by the inbox's retention before any work ran: a phase of its own, to reconcile by hand.
      const retention = failed.phase === undefined && isPayorchError(error, CallbackRetentionError);
      report(error, { callback, phase: retention ? 'retention' : (failed.phase ?? 'inbox') });
      throw error;
    }
  }

  // In order, each under its own key: a refunded payment's handlers see its success applied first.
  async function applyRead(read: CardStatusRead): Promise<CallbackInboxOutcome | 'unhandled'> {
    let result: CallbackInboxOutcome | 'unhandled' = 'unhandled';
    for (const status of statusesToApply(read.readStatus)) {
      const outcome = await applyCallback({ ...read, payload: { ...read.payload, status } });
      if (outcome === 'applied' || (outcome === 'duplicate' && result === 'unhandled')) result = outcome;
    }
    return result;
  }

  // A job made by reconcile holds no signature: nothing in it is trusted but its account and the
  // code to read again, and what is applied is what the service answers now.
  async function applyStatusReadJob(job: Readonly<Record<string, unknown>>, trace: CallbackApplyTrace, provider: CardStatusSource | undefined): Promise<CallbackInboxOutcome | 'unhandled'> {
    let trackingCode: string;
    try {
      trackingCode = checkStatusReadJob(job, account);
    } catch (error) {
      if (error instanceof CallbackJobError) logger.warn({ reason: error.reason, field: error.field }, error.message);
      throw error;
    }
    // Checked at run time: a worker's options come from code without types too.
    const given = provider as { readonly creditCard?: { readonly getStatus?: unknown } } | undefined;
    if (provider === undefined || typeof given?.creditCard?.getStatus !== 'function') {
      throw new TypeError('receiver.apply: a job made by reconcile is applied from a fresh status read; pass the provider client: receiver.apply(job, { provider })');
    }
    const read = await readCardStatus(provider, trackingCode, settings.clock);
    switch (read.result) {
      case 'read':
        trace.verified(read.read);
        return applyRead(read.read);
      case 'pending':
        throw new CallbackJobError('invalid_status', 'payload', `the service reads ${trackingCode} as ${read.status}, not an end status: nothing applied`);
      case 'not_found':
        throw new CallbackJobError('invalid_tracking_code', 'payload', `the service does not know ${trackingCode}: nothing applied`);
      case 'failed':
        throw read.error;
      default:
        return assertNever(read);
    }
  }

  return {
    applyRead,
    on(event, handler) {
      if (!isCallbackEventName(event)) {
        throw new TypeError(`receiver.on: ${JSON.stringify(event)} is not an event; use '*', a kind ('deposit'), or a kind and a status the spec lists ('deposit.completed')`);
      }
      if (typeof handler !== 'function') throw new TypeError(`receiver.on: the handler of '${event}' must be a function`);
      const list = handlers.get(event) ?? [];
      // eventNamesOf delivers to this name only callbacks of its kind and status.
      list.push(handler as Handler);
      handlers.set(event, list);
      steps.clear();
    },
    async applyNow(callback, trace) {
      try {
        const outcome = await applyCallback(callback);
        if (outcome !== 'unhandled') trace.processed(outcome);
        return OK;
      } catch (error) {
        if (error instanceof NotConfirmedError) return NOT_CONFIRMED;
        if (error instanceof UnhandledError) return NO_HANDLER;
        return isPayorchError(error, CallbackRetentionError) ? RECORD_TOO_OLD : NOT_APPLIED;
      }
    },
    async applyJob(job, trace, provider) {
      if (isStatusReadJob(job)) {
        trace.processed(await applyStatusReadJob(job, trace, provider));
        return;
      }
      let callback: VerifiedCallback;
      try {
        callback = checkCallbackJob(job, { verifier: settings.verifier, account, nowMs: settings.clock() });
      } catch (error) {
        if (error instanceof CallbackJobError) logger.warn({ reason: error.reason, field: error.field }, error.message);
        throw error;
      }
      trace.verified(callback);
      trace.processed(await applyCallback(callback));
    },
  };
}
