import { brand } from './brand.js';

/**
 * What a failed call tells about whether the service acted on it, and so whether money may
 * have moved:
 *
 * - `not_sent`: nothing reached the service, or it cannot have received it: input refused before
 *   sending, the connection refused, the call aborted or out of time before an attempt went on
 *   the wire. Sending it again cannot create a second record.
 * - `refused`: the service answered with a refusal (spec 7.1 to 7.4 bodies, a 4xx status,
 *   `success: false`): nothing was created.
 * - `unknown`: it may have been processed: a timeout, reset or abort after the attempt went on
 *   the wire, a 5xx or 3xx, an answer payorch cannot read. Do not send a payment again: wait for
 *   its callback, or read its status where the service has an endpoint for it
 *   (docs/errors-and-retries.md).
 *
 * Read-only calls report it too; for them nothing can be created, so every outcome is safe to retry.
 */
export type CallOutcome = 'not_sent' | 'refused' | 'unknown';

/**
 * Base class of every error payorch throws. Catch this to handle any SDK failure, and read
 * `outcome` to know whether money may have moved.
 *
 * Every subclass sets its own `name`, so an error stays recognisable where `instanceof` fails
 * (an error from another realm or another copy of the package).
 *
 * @example
 * ```ts
 * try {
 *   await provider.manual.startDeposit(params);
 * } catch (error) {
 *   if (error instanceof PayorchError && error.outcome === 'unknown') console.error('the deposit may exist: wait for its callback');
 *   throw error;
 * }
 * ```
 */
export class PayorchError extends Error {
  static {
    brand(this, 'PayorchError');
  }
  /**
   * Whether the service may have acted on the call, and so whether money may have moved:
   * - `not_sent`: nothing reached the service (input refused, name not resolved, connection
   *   refused, TLS handshake failed, aborted before sending). Sending it again is safe.
   * - `refused`: the service answered with a refusal (a 4xx, `success: false`); nothing was created.
   * - `unknown`: it may have been processed (a timeout or reset after sending, a 5xx, an answer
   *   payorch cannot read). Do not send a payment again: wait for its callback, or read its status
   *   (docs/errors-and-retries.md).
   *
   * Errors that do not come from a call to the service (a refused callback, a local check) say
   * `unknown` unless they know better; every error a client method raises sets it.
   */
  // The values written out, not `CallOutcome`: a hover then shows them without a second one.
  readonly outcome: 'not_sent' | 'refused' | 'unknown';

  /** Made by the SDK's error classes: the standard `cause`, and the call's {@link CallOutcome} (`unknown` when not given). */
  constructor(message?: string, options: { readonly cause?: unknown; readonly outcome?: CallOutcome | undefined } = {}) {
    // Only a given cause becomes `cause`: Error defines the property whenever the key is present.
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    // The one unsure default: a failure nobody classified must not read as "safe to resend".
    this.outcome = options.outcome ?? 'unknown';
  }
}
