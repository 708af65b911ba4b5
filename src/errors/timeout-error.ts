import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';
import { callLabel } from './failed-call.js';
import type { FailedCall } from './failed-call.js';

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
  /** The client method that timed out, its API first: `provider.manual.startDeposit`. */
  readonly operation: string;
  /** The method and the full URL of the request, query string included; never its headers, which carry the keys. */
  readonly request: { readonly method: string; readonly url: string };
  /** Made by the SDK when the call outlived `timeout` milliseconds. */
  constructor(timeout: number, call: FailedCall & { readonly outcome?: CallOutcome | undefined }) {
    super(`${callLabel(call)} did not complete within ${timeout} ms`, { outcome: call.outcome ?? 'unknown' });
    this.timeout = timeout;
    this.operation = call.operation;
    this.request = call.request;
  }
}
