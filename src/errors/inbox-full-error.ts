import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * The in-memory inbox holds its `maxKeys` keys, none old enough to forget: the callback was not
 * applied, and the receiver answered 500 so that the service delivers it again later. Raise
 * `maxKeys` or use a database inbox (`payorch/postgres`).
 */
export class InboxFullError extends PayorchError {
  static {
    brand(this, 'InboxFullError');
  }
}
