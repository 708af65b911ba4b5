import type { Logger } from '../../core/observability.js';
import type { LevelledLogger } from '../../core/log-level.js';
import type { CallbackApplyTrace, CallbackTrace } from '../../internal/tracing.js';
import { isPayorchError, CallbackJobError, CallbackRetentionError, CallbackVerificationError } from '../../errors/error.js';
import { readCallbackBody } from '../body.js';
import type { BodyDecoding, CallbackBody } from '../body.js';
import { eventNamesOf, isCallbackEventName } from '../events.js';
import type { CallbackEventName, CallbackOfEvent } from '../events.js';
import type { CallbackHeaders } from '../headers.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome, CallbackKey, CallbackProgress } from '../../inboxes/inbox.js';
import { callbackJob, checkCallbackJob } from '../job.js';
import type { CallbackJob } from '../job.js';
import type { VerifiedCallback } from '../schemas.js';
import type { AppliedCallback, CardStatusRead } from '../status-read.js';
import { statusesToApply } from '../status-read.js';
import { charsetOf } from '../verify.js';
import type { Verified, Verifier } from '../verify.js';
import { refusalHearing } from './refusals.js';

/*
 * The receive path after the adapter read and sized the body: verify, then enqueue or apply
 * (confirm, then the inbox, then the handlers), and the answer. `receiver.apply(job)` of a
 * signed job shares the applying; a job is first checked as its callback was. What could not be
 * applied, and what was refused, is told here too.
 */

/** An answer of {@link CallbackReceiver.receive}: the status, headers and body to send. */
export interface CallbackReceiverAnswer {
  /** 200 applied, already applied or (with `enqueue`) queued; 400 malformed; 401 not genuine; 405 not POST; 409 refused by `confirm`; 413 too large; 422 record older than the inbox's retention; 500 not applied or not queued. */
  readonly status: 200 | 400 | 401 | 405 | 409 | 413 | 422 | 500;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON: `{"success":true}` (spec 6.1), or `{"success":false,"error":"<reason>"}`. */
  readonly body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** The answer of a status, with the reason of a refusal. */
export function answer(status: CallbackReceiverAnswer['status'], error?: string, extraHeaders?: Record<string, string>): CallbackReceiverAnswer {
  const body = error === undefined ? '{"success":true}' : JSON.stringify({ success: false, error });
  // The length known, node:http sends the answer in one piece instead of chunks.
  return { status, headers: { ...JSON_HEADERS, 'content-length': String(new TextEncoder().encode(body).byteLength), ...extraHeaders }, body };
}

export const OK = /* @__PURE__ */ answer(200);
export const NOT_APPLIED = /* @__PURE__ */ answer(500, 'not_applied');
const NOT_CONFIRMED = /* @__PURE__ */ answer(409, 'not_confirmed');
const RECORD_TOO_OLD = /* @__PURE__ */ answer(422, 'record_too_old');
const NO_HANDLER = /* @__PURE__ */ answer(500, 'no_handler');
const UNREADABLE_PAYLOAD = /* @__PURE__ */ answer(500, 'unreadable_payload');
const NOT_QUEUED = /* @__PURE__ */ answer(500, 'not_queued');

/** A callback as an adapter hands it to the receive path, its body read and sized. */
export interface ReceivedInput {
  readonly headers: CallbackHeaders;
  readonly body: CallbackBody;
}

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
class UnhandledError extends Error {
  override name = 'UnhandledError';
}

/** The answer to a callback whose applying failed with `error` (reported already). */
export function failureAnswer(error: unknown): CallbackReceiverAnswer {
  if (error instanceof NotConfirmedError) return NOT_CONFIRMED;
  if (error instanceof UnhandledError) return NO_HANDLER;
  return isPayorchError(error, CallbackRetentionError) ? RECORD_TOO_OLD : NOT_APPLIED;
}

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
   * {@link CallbackRetentionError}: reconcile it by hand). `verify`: a well-formed callback was
   * refused (a {@link CallbackVerificationError}) for its hash or API key, for its time although
   * its hash verified (this machine's clock), or for its kind although its hash verified; told at
   * most once a minute per `reason`, with `count`.
   */
  readonly phase: 'verify' | 'handler' | 'inbox' | 'request' | 'payload' | 'confirm' | 'unhandled' | 'enqueue' | 'retention';
  /**
   * For `verify`: how many callbacks were refused for this `error.reason` since the last report,
   * this one included.
   */
  readonly count?: number | undefined;
  /**
   * For `payload`: the body as received, without its `hash`, so that you can see what could not
   * be typed.
   */
  readonly payload?: Readonly<Record<string, unknown>> | undefined;
}

/** Tells of a callback that was not applied. */
export type Report = (error: unknown, details: CallbackErrorDetails) => void;

/** What the receive path needs of the receiver's options, each checked and resolved once. */
export interface PipelineSettings<TContext extends CallbackInboxContext> {
  /** The receiver's verifier: a callback, and a job, is verified with it; its clock is the receiver's. */
  readonly verifier: Verifier;
  /** The account keys are recorded under (`accountName`, else the API key). */
  readonly account: string;
  readonly inbox: CallbackInbox<TContext>;
  readonly confirm: CallbackConfirm<TContext> | undefined;
  readonly retryUnhandled: boolean;
  readonly enqueue: ((job: CallbackJob) => Promise<void>) | undefined;
  /** The receiver's logger, at its level. */
  readonly logger: LevelledLogger;
  /** The receiver's `onError`: told of every callback that could not be applied. */
  readonly onError: Report | undefined;
  /** Without `onError`, failures go to this logger as given (never filtered by level), else to `console.error`. */
  readonly failureLogger: Logger | undefined;
  /** Checks how full the in-memory inbox is after each callback it took or refused (capacity.ts); undefined for any other inbox. */
  readonly watchFill: (() => void) | undefined;
}

/** The receive path of one receiver. */
export interface Pipeline<TContext> {
  /**
   * Registers a handler (`receiver.on`), checked at run time for callers without types.
   * @throws {TypeError} for an event name or a handler that is not one
   */
  on(event: string, handler: (callback: never, context: TContext) => void | Promise<void>): void;
  /** Verifies a body its adapter read and sized, then enqueues or applies it, and answers for it. Never rejects. */
  readonly receive: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  /** Checks a signed job as its callback was checked, then applies it (`receiver.apply`). */
  applyJob(job: unknown, trace: CallbackApplyTrace): Promise<void>;
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
  const { verifier, account, inbox, confirm, retryUnhandled, enqueue, logger, onError, failureLogger, watchFill } = settings;

  // Failures keep their own rule (onError, else the logger's error, else console.error): never filtered.
  const report: Report = (error, details) => {
    try {
      if (onError !== undefined) onError(error, details);
      else if (failureLogger !== undefined) failureLogger.error({ phase: details.phase, trackingCode: details.callback?.payload.tracking_code, status: details.callback?.payload.status, error }, 'payorch: a callback was not applied');
      else console.error('payorch: a callback was not applied', error);
    } catch (reportError) {
      // A failing onError must not take the answer (or the process) down with it.
      console.error('payorch: onError threw', reportError);
    }
  };

  // Refusals of genuine-looking callbacks reach onError (when given) and the console: refusals.ts.
  const refused = refusalHearing({
    logger,
    now: verifier.now,
    report: onError === undefined ? undefined : (error, count) => { report(error, { callback: undefined, phase: 'verify', count }); },
  });

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
    } finally {
      watchFill?.();
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

  async function applyNow(callback: VerifiedCallback, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
    try {
      const outcome = await applyCallback(callback);
      if (outcome !== 'unhandled') trace.processed(outcome);
      return OK;
    } catch (error) {
      return failureAnswer(error);
    }
  }

  // Deferred: a verified callback becomes a job, and the job comes back through the same verifier.
  async function enqueueNow(queue: (job: CallbackJob) => Promise<void>, { callback, signedIn, receivedAt }: Verified, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
    // Sealed at receipt with the current key: it applies whenever it runs, whatever the window.
    const job = verifier.seals.seal(callbackJob(callback, signedIn, account, receivedAt, trace.traceparent()));
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
      callback = checkCallbackJob(job, { verifier, account, nowMs: verifier.now() });
    } catch (error) {
      if (error instanceof CallbackJobError) logger.warn({ reason: error.reason, field: error.field }, error.message);
      throw error;
    }
    trace.verified(callback);
    trace.processed(await applyCallback(callback));
  }

  // Read, not refused: a genuine callback must apply whatever charset its bytes are in. Logged, so
  // that a sender that mislabels its bodies is seen, and names read in a wrong charset found.
  function warnDecoded(decoding: BodyDecoding): void {
    logger.warn({ ...decoding }, `payorch: the callback body was not in the charset its Content-Type declares (${decoding.charset ?? 'none, so UTF-8'}); it was read as ${decoding.decodedAs}`);
  }

  // Sized already, by its adapter: verified once (its headers parsed once, the clock read once),
  // then enqueued or applied.
  async function receive(input: ReceivedInput, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
    let verified: Verified;
    try {
      verified = verifier.verify(input, { onDecoded: warnDecoded, sized: true });
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
    trace.verified(verified.callback);
    return enqueue === undefined ? applyNow(verified.callback, trace) : enqueueNow(enqueue, verified, trace);
  }

  return {
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
    // Never rejects: whatever throws past the answers above is reported and answered 500.
    receive: async (input, trace) => {
      try {
        return await receive(input, trace);
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
