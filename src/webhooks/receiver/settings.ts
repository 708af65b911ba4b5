import type { LevelledLogger } from '../../core/log-level.js';
import type { MeterLike } from '../../core/metrics.js';
import type { TracerLike } from '../../core/tracing.js';
import type { CallbackInbox, CallbackInboxContext } from '../../inboxes/inbox.js';
import type { MemoryInboxFill } from '../../inboxes/memory.js';
import type { CallbackJob } from '../job.js';
import type { Verifier } from '../verify.js';
import type { CallbackConfirm } from './apply-once.js';
import type { OnCallbackError, Report } from './report.js';
import type { HandlerRoutes } from './routes.js';

/*
 * What a receiver's options come to once checked and resolved, at its creation: the one object
 * its receive path (receive-path.ts, loaded on the first request) is built from. Types only, so
 * that the receiver and the receive path share them without importing each other.
 */

/** A receiver's options, each checked and resolved once. */
export interface ReceiverSettings<TContext extends CallbackInboxContext> {
  /** The receiver's verifier: a callback, and a job, is verified with it; its clock is the receiver's. */
  readonly verifier: Verifier;
  /** The merchant keys are recorded under (`merchantId`, else a digest of the API key). */
  readonly merchantId: string;
  readonly inbox: CallbackInbox<TContext>;
  /** How full the in-memory inbox is (warned of, metered); undefined for any other inbox. */
  readonly fill: MemoryInboxFill | undefined;
  /** True when no inbox was given: the default in-memory one, which reconcile warns of once. */
  readonly inMemoryInbox: boolean;
  readonly confirm: CallbackConfirm<TContext> | undefined;
  readonly retryUnhandled: boolean;
  readonly enqueue: ((job: CallbackJob) => Promise<void>) | undefined;
  /** The receiver's logger, at its level. */
  readonly logger: LevelledLogger;
  /** The receiver's `onError`: told of every callback that could not be applied, and of refusals of genuine-looking ones. */
  readonly onError: OnCallbackError | undefined;
  /** Tells of a callback that was not applied: `onError`, else the logger's `error`, else `console.error`. */
  readonly report: Report;
  /** The handlers `receiver.on` registered, from its creation on. */
  readonly routes: HandlerRoutes<TContext>;
  readonly tracer: TracerLike | undefined;
  readonly meter: MeterLike | undefined;
  /** The largest body read, in bytes (`maxBodyBytes`). */
  readonly maxBodyBytes: number;
}
