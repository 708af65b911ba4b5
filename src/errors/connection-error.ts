import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * No usable answer came back: the connection was refused, reset, or broke mid-body.
 * `refused` is true only when the service cannot have received the request (`outcome` is then
 * `not_sent`; otherwise `unknown`).
 */
export class ConnectionError extends PayorchError {
  override name = 'ConnectionError';
  static {
    brand(this, 'ConnectionError');
  }
  readonly refused: boolean;
  /** Made by the SDK when no answer came back; `refused` says whether the service can have seen the request. */
  constructor(message: string, options: { cause: unknown; refused: boolean; outcome?: CallOutcome | undefined }) {
    super(message, { cause: options.cause, outcome: options.outcome ?? (options.refused ? 'not_sent' : 'unknown') });
    this.refused = options.refused;
  }
}
