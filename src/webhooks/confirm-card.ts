import type { AppliedCallback, CardStatusSource } from './status-read.js';
import { MAX_TIMEOUT_MS, checkOptions, declareOptions } from '../core/option-checks.js';
import { RequestValidationError } from '../errors/error.js';

/** Settings of {@link confirmWithCardStatus}. */
export interface ConfirmWithCardStatusOptions {
  /**
   * Milliseconds the status query may take, its retries included, before the callback is answered
   * 500 (and delivered again). Below the time the service waits for an answer (not in the spec;
   * delivery timeouts are commonly 5 to 10 s, the sandbox's 10 s), so that a slow status endpoint
   * ends in a 500 the service sees rather than a delivery it counts as timed out.
   * @default 5000
   * @example 3_000
   */
  readonly timeout?: number | undefined;
}

/** The status query's own deadline: under the delivery timeouts of common senders (5 to 10 s). */
const DEFAULT_CARD_STATUS_TIMEOUT_MS = 5_000;

const WHERE = 'confirmWithCardStatus';
/** @internal */
export const CONFIRM_CARD_OPTIONS = declareOptions<ConfirmWithCardStatusOptions>()([
  { name: 'timeout', rule: { type: 'number', min: 1, max: MAX_TIMEOUT_MS, unit: 'milliseconds' }, default: DEFAULT_CARD_STATUS_TIMEOUT_MS, note: 'keep it under the time the service waits for an answer' },
]);

// Amounts are TRY with kuruş: equal to the cent, whatever float noise the JSON carried.
const cents = (amount: number): number => Math.round(amount * 100);

/**
 * A receiver `confirm` that checks each provider card callback against the service's own record
 * (`provider.creditCard.getStatus`, spec 4.9): the answer must be for the same tracking code, and
 * the status and the amount must agree, or the callback is refused (409, nothing applied; the
 * genuine delivery still applies). The hash of a callback covers tracking_code, status and
 * timestamp only; the status query is signed both ways over TLS, so a changed amount cannot pass.
 *
 * A status read that `receiver.reconcile` applies (`source: 'status'`) passes: it is the
 * service's own answer, read moments before. Other kinds pass unchecked: deposits and withdrawals have no status endpoint in the spec, and
 * neither have dealer card payments (spec 4.13 lists none), so a dealer card callback passes
 * too: compare those with your own record in a `confirm` of your own. A failing or slow status
 * query (past `timeout`) throws, and the callback is answered 500 and delivered again.
 *
 * @throws {TypeError} when `provider` has no `creditCard.getStatus`
 * @throws {RequestValidationError} for an impossible option, or one it does not have, naming it
 * @example
 * ```ts
 * import { confirmWithCardStatus, createCallbackReceiver } from 'payorch';
 * import type { ProviderClient } from 'payorch';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * declare const provider: ProviderClient;
 * const receiver = createCallbackReceiver({ apiKey, secretKey, api: 'provider', confirm: confirmWithCardStatus(provider) });
 * ```
 */
export function confirmWithCardStatus(provider: CardStatusSource, options?: ConfirmWithCardStatusOptions): (callback: AppliedCallback) => Promise<boolean> {
  const source: unknown = provider;
  if (typeof (source as Partial<CardStatusSource> | null)?.creditCard?.getStatus !== 'function') {
    throw new RequestValidationError('confirmWithCardStatus', [{ field: 'provider', rule: 'invalid_argument', message: 'must be a provider client (new ProviderClient({ ... })), whose creditCard.getStatus it calls' }]);
  }
  checkOptions(WHERE, options, CONFIRM_CARD_OPTIONS);
  const timeout = options?.timeout ?? DEFAULT_CARD_STATUS_TIMEOUT_MS;
  return async (callback) => {
    if (callback.kind !== 'creditCard' || callback.source === 'status') return true;
    const { tracking_code: trackingCode, status, amount } = callback.payload;
    const { data } = await provider.creditCard.getStatus({ tracking_code: trackingCode }, { timeout });
    // An answer about another payment (a proxy's cache, a mixed-up gateway) confirms nothing.
    return data.tracking_code === trackingCode && data.status === status && cents(data.amount) === cents(amount);
  };
}
