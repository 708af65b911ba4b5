import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * No usable answer came back: the connection was refused, reset, or broke mid-body.
 * `refused` is true only when the service cannot have received the request.
 */
export class ConnectionError extends PayorchError {
  override name = 'ConnectionError';
  static {
    brand(this, 'ConnectionError');
  }
  readonly refused: boolean;
  /** Made by the SDK when no answer came back; `refused` says whether the service can have seen the request. */
  constructor(message: string, options: { cause: unknown; refused: boolean }) {
    super(message, { cause: options.cause });
    this.refused = options.refused;
  }
}
