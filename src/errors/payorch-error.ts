import { brand } from './brand.js';

/**
 * Base class of every error payorch throws. Catch this to handle any SDK failure.
 *
 * Every subclass sets its own `name`, so an error stays recognisable where `instanceof` fails
 * (an error from another realm or another copy of the package).
 */
export class PayorchError extends Error {
  override name = 'PayorchError';
  static {
    brand(this, 'PayorchError');
  }
}
