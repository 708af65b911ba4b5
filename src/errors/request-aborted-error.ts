import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';

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
  /** Made by the SDK when the caller's signal fired; `cause` is the signal's reason. */
  constructor(cause: unknown, outcome: CallOutcome = 'unknown') {
    super(outcome === 'unknown' ? 'The request was aborted after it was sent: the service may have received it' : 'The request was aborted before it was sent', { cause, outcome });
  }
}
