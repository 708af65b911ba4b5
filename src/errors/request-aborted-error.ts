import { PayorchError } from './payorch-error.js';

/** The caller's `AbortSignal` stopped the call. `cause` holds the signal's reason. */
export class RequestAbortedError extends PayorchError {
  override name = 'RequestAbortedError';
  constructor(cause: unknown) {
    super('The request was aborted', { cause });
  }
}
