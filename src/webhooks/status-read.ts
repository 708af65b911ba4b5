import type { VerifiedCallback } from './schemas.js';

/*
 * A card payment's status read from the service (spec 4.9) and applied by `receiver.reconcile`
 * as its callback would have been. Written out by hand, not taken from the provider client's
 * schema: payorch/webhooks loads neither the client nor zod.
 */

/**
 * The fields of a card status answer (spec 2.6), and only those: no `site_id`, customer name or
 * e-mail, `timestamp` or `hash`, which a callback carries and the status answer does not.
 */
export interface CardStatusReadPayload {
  /** The card payment's tracking code, `CC-...` (spec 2.1). */
  readonly tracking_code: string;
  /** The payment gateway's order id (spec 2.6). */
  readonly order_id?: string | undefined;
  /**
   * The status applied: `success`, `failed`, `cancelled`, or `refunded` (spec 3.1; a refunded
   * payment is applied as `success` first, then as `refunded`: see {@link CardStatusRead.readStatus}).
   */
  readonly status: CardEndStatus;
  /** The amount in TRY (spec 2.6). */
  readonly amount: number;
  /** The currency: `TRY` (spec 2.6). */
  readonly currency?: string | undefined;
  /** The customer's username, as sent when the payment was created (spec 2.6). */
  readonly username?: string | undefined;
  /** The customer's identifier in your system, as sent when the payment was created (spec 2.6). */
  readonly user_id?: string | undefined;
  /** When the payment was created, ISO 8601 with offset (spec 2.6). */
  readonly created_at?: string | undefined;
  /** When the payment last changed, ISO 8601 with offset (spec 2.6). */
  readonly updated_at?: string | undefined;
}

/**
 * A provider card payment's end status read from the service by `receiver.reconcile`, handed to
 * `confirm` and the handlers in place of the callback that never came. Nothing of it is signed by
 * the merchant's own secret: it is the answer of a signed status query over TLS.
 */
export interface CardStatusRead {
  /** Where it came from: the status endpoint (spec 4.9), not a callback. */
  readonly source: 'status';
  readonly kind: 'creditCard';
  readonly payload: CardStatusReadPayload;
  /**
   * The status the service answered. It differs from `payload.status` only for a payment read as
   * `refunded`: its `success` is applied first (with `readStatus: 'refunded'`), then `refunded`.
   */
  readonly readStatus: CardEndStatus;
  /** When the status was read, in milliseconds since the epoch. */
  readonly readAt: number;
}

/**
 * What `confirm` and the handlers get: a verified callback (`source: 'callback'`) or a card
 * payment's status read by `receiver.reconcile` (`source: 'status'`). Narrow on `source` to read
 * what only a callback carries (`site_id`, customer fields, `timestamp`, `hash`, `ageSeconds`).
 *
 * @example
 * ```ts
 * receiver.on('creditCard.success', async (callback) => {
 *   const site = callback.source === 'callback' ? callback.payload.site_id : undefined;
 *   await markPaid(callback.payload.tracking_code, callback.payload.amount, site);
 * });
 * ```
 */
export type AppliedCallback = VerifiedCallback | CardStatusRead;

/** The statuses of a card payment that end it (spec 3.1): what reconcile applies. */
export const CARD_END_STATUSES = ['success', 'failed', 'cancelled', 'refunded'] as const;

/** A status that ends a provider card payment (spec 3.1); `pending` does not. */
export type CardEndStatus = (typeof CARD_END_STATUSES)[number];

/** Whether `status` ends a card payment. */
export function isCardEndStatus(status: string): status is CardEndStatus {
  return (CARD_END_STATUSES as readonly string[]).includes(status);
}

/**
 * The statuses to apply for a status read, in order, each under its own key: a payment read as
 * refunded was paid first, and a status answer shows the latest status only.
 */
export function statusesToApply(status: CardEndStatus): readonly CardEndStatus[] {
  return status === 'refunded' ? ['success', 'refunded'] : [status];
}
