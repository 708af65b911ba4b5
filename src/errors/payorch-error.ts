/**
 * Base class of every error payorch throws. Catch this to handle any SDK failure.
 *
 * Guards use `name` as well as `instanceof` so that they hold across realms and
 * duplicated installs of the package.
 */
export class PayorchError extends Error {
  override name = 'PayorchError';
}
