import type { CallbackInboxContext } from '../../inboxes/inbox.js';
import type { CallbackBody } from '../body.js';
import type { CallbackHeaders } from '../headers.js';
import { isStatusReadJob } from '../job.js';
import type { CardStatusSource } from '../status-read.js';
import type { CallbackReceiverAnswer } from './answer.js';
import { fetchHandler } from './fetch-handler.js';
import { meteredSpans } from './meter.js';
import { callbackSpans } from './callback-spans.js';
import { nodeHandler } from './node-handler.js';
import type { NodeRequestLike, NodeResponseLike } from './node-handler.js';
import { pipeline } from './pipeline.js';
import { bodyReceiver } from './receive-body.js';
import type { EntrySettings } from './receive-body.js';
import { reconciling } from './reconcile.js';
import type { ReconcileOptions, ReconcileResult } from './reconcile.js';
import type { ReceiverSettings } from './settings.js';

/*
 * What a receiver runs when a request comes, built from its settings on its first request (or
 * `apply`, or `reconcile`): the entry points that read and size the body (receive-body.ts,
 * node-handler.ts, fetch-handler.ts), the receive path (pipeline.ts: verify, route, apply once,
 * answer), reconciling (reconcile.ts), and the spans and metrics around each. The build puts these
 * modules in a file of their own, which receiver.ts imports then: importing payorch/webhooks
 * compiles none of it.
 */

/** The parts of a receiver that do its work, each as {@link CallbackReceiver} documents it. */
export interface ReceivePath {
  readonly receive: (input: { readonly headers: CallbackHeaders; readonly body: CallbackBody }) => Promise<CallbackReceiverAnswer>;
  readonly handle: (request: Request) => Promise<Response>;
  readonly nodeHandler: (request: NodeRequestLike, response: NodeResponseLike) => Promise<void>;
  readonly apply: (job: unknown, provider: CardStatusSource | undefined) => Promise<void>;
  readonly reconcile: (options: ReconcileOptions) => Promise<ReconcileResult[]>;
}

/** The receive path of one receiver, over its settings. */
export function receivePath<TContext extends CallbackInboxContext>(settings: ReceiverSettings<TContext>): ReceivePath {
  const spans = meteredSpans(callbackSpans(settings.tracer), settings);
  const pipe = pipeline(settings);
  const reconciler = reconciling({ ...settings, applyRead: pipe.applyRead });
  const entry: EntrySettings = { ...settings, verifyAndApply: pipe.verifyAndApply, spans };
  return {
    handle: fetchHandler(entry),
    nodeHandler: nodeHandler(entry),
    receive: bodyReceiver(entry),
    // A job made by reconcile is applied from a fresh status read; any other is checked as its callback was.
    apply: (job, provider) => spans.inApplySpan(traceparentOf(job), (trace) => (isStatusReadJob(job) ? reconciler.applyJob(job, trace, provider) : pipe.applyJob(job, trace))),
    reconcile: (options) => reconciler.reconcile(options),
  };
}

/** The job's `traceparent`, read without trusting the job's shape (it is checked later). */
function traceparentOf(job: unknown): unknown {
  const context = typeof job === 'object' && job !== null ? (job as { traceContext?: unknown }).traceContext : undefined;
  return typeof context === 'object' && context !== null ? (context as { traceparent?: unknown }).traceparent : undefined;
}
