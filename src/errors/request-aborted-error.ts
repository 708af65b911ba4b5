import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';
import { callLabel } from './failed-call.js';
import type { FailedCall } from './failed-call.js';

/**
 * The caller's `AbortSignal` stopped the call. `cause` holds the signal's reason; `outcome` says
 * which side of the wire it stopped on: `not_sent` when no attempt had been handed to `fetch`
 * (the service cannot have received it), `unknown` once one had, since `fetch` cannot tell
 * whether its bytes left.
 */
export class RequestAbortedError extends PayorchError {
  static {
    brand(this, 'RequestAbortedError');
  }
  /** The client method that was stopped, its API first: `provider.manual.startDeposit`. */
  readonly operation: string;
  /** The method and the full URL of the request, query string included; never its headers, which carry the keys. */
  readonly request: { readonly method: string; readonly url: string };
  /** Made by the SDK when the caller's signal fired; `cause` is the signal's reason. */
  constructor(cause: unknown, call: FailedCall & { readonly outcome?: CallOutcome | undefined }) {
    const outcome = call.outcome ?? 'unknown';
    const label = callLabel(call);
    super(outcome === 'unknown' ? `${label} was aborted after it was sent: the service may have received it` : `${label} was aborted before it was sent`, { cause, outcome });
    this.operation = call.operation;
    this.request = call.request;
  }
}
