import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/** The caller's `AbortSignal` stopped the call. `cause` holds the signal's reason. */
export class RequestAbortedError extends PayorchError {
  override name = 'RequestAbortedError';
  static {
    brand(this, 'RequestAbortedError');
  }
  /** Made by the SDK when the caller's signal fired; `cause` is the signal's reason. */
  constructor(cause: unknown) {
    super('The request was aborted', { cause });
  }
}
