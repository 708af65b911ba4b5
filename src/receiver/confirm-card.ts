import type { VerifiedCallback } from '../callbacks/schemas.js';

/**
 * What {@link confirmWithCardStatus} needs of a provider client: `provider.creditCard.getStatus`.
 * Written out so that a receiver that only verifies does not bundle the provider client.
 */
export interface CardStatusSource {
  readonly creditCard: {
    /** Reads a card payment's status from the service (spec 4.9), signed and over TLS. */
    getStatus(params: { readonly tracking_code: string }): Promise<{ readonly data: { readonly status: string; readonly amount: number } }>;
  };
}

// Amounts are TRY with kuruş: equal to the cent, whatever float noise the JSON carried.
const cents = (amount: number): number => Math.round(amount * 100);

/**
 * A receiver `confirm` that checks each provider card callback against the service's own record
 * (`provider.creditCard.getStatus`, spec 4.9): the status and the amount must agree, or the
 * callback is refused (409, nothing applied; the genuine delivery still applies). The hash of a
 * callback covers tracking_code, status and timestamp only; the status query is signed both
 * ways over TLS, so a changed amount cannot pass.
 *
 * Other kinds pass unchecked: deposits and withdrawals have no status endpoint in the spec, and
 * neither have dealer card payments (spec 4.13 lists none), so a dealer card callback passes
 * too: compare those with your own record in a `confirm` of your own. A failing status query
 * throws, and the callback is answered 500 and delivered again.
 *
 * @example
 * ```ts
 * const receiver = createCallbackReceiver({ apiKey, secretKey, account: 'provider', confirm: confirmWithCardStatus(provider) });
 * ```
 */
export function confirmWithCardStatus(provider: CardStatusSource): (callback: VerifiedCallback) => Promise<boolean> {
  const source: unknown = provider;
  if (typeof (source as Partial<CardStatusSource> | null)?.creditCard?.getStatus !== 'function') {
    throw new TypeError('confirmWithCardStatus: pass a provider client (createProviderClient), whose creditCard.getStatus it calls');
  }
  return async (callback) => {
    if (callback.kind !== 'creditCard') return true;
    const { data } = await provider.creditCard.getStatus({ tracking_code: callback.payload.tracking_code });
    return data.status === callback.payload.status && cents(data.amount) === cents(callback.payload.amount);
  };
}
