import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * The call, retries and body included, did not finish within `timeout` milliseconds.
 * A payment-creating request that timed out may still have been processed: check its status
 * before trying again.
 */
export class TimeoutError extends PayorchError {
  override name = 'TimeoutError';
  static {
    brand(this, 'TimeoutError');
  }
  /** The limit that ran out, in milliseconds: the client's or the call's `timeout` option. */
  readonly timeout: number;
  /** Made by the SDK when the call outlived `timeout` milliseconds. */
  constructor(timeout: number) {
    super(`The request did not complete within ${timeout} ms`);
    this.timeout = timeout;
  }
}
