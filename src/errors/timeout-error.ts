import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * The call, retries and body included, did not finish within `timeout` milliseconds. When an
 * attempt had gone on the wire (`outcome` is `unknown`), a payment-creating request may still
 * have been processed: do not send it again; wait for its callback (docs/errors-and-retries.md).
 */
export class TimeoutError extends PayorchError {
  static {
    brand(this, 'TimeoutError');
  }
  /** The limit that ran out, in milliseconds: the client's or the call's `timeout` option. */
  readonly timeout: number;
  /** Made by the SDK when the call outlived `timeout` milliseconds. */
  constructor(timeout: number, outcome: CallOutcome = 'unknown') {
    super(`The request did not complete within ${timeout} ms`, { outcome });
    this.timeout = timeout;
  }
}
