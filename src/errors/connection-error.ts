import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * No usable answer came back: the connection was refused, reset, or broke mid-body.
 * `refused` is true only when the service cannot have received the request (`outcome` is then
 * `not_sent`; otherwise `unknown`).
 */
export class ConnectionError extends PayorchError {
  static {
    brand(this, 'ConnectionError');
  }
  /**
   * `true` when the connection was refused (`ECONNREFUSED` or the platform's equivalent): nothing
   * reached the service, so no money moved and even a payment-creating call is safe to send
   * again. `false` for a reset, a closed socket or a body cut off mid-answer: the service may have
   * received the request and acted on it.
   */
  readonly refused: boolean;
  /** Made by the SDK when no answer came back; `refused` says whether the service can have seen the request. */
  constructor(message: string, options: { cause: unknown; refused: boolean; outcome?: CallOutcome | undefined }) {
    super(message, { cause: options.cause, outcome: options.outcome ?? (options.refused ? 'not_sent' : 'unknown') });
    this.refused = options.refused;
  }
}
