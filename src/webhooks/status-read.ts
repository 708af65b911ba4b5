import { isPayorchError, PayorchError } from '../errors/error.js';
import type { VerifiedCallback } from './schemas.js';

/*
 * A card payment's status read from the service (spec 4.9) and applied by `receiver.reconcile`
 * as its callback would have been, and the one read that reconcile, `apply` of its jobs and the
 * CLI share. Written out by hand, not taken from the provider client's schema: payorch/webhooks
 * loads neither the client nor zod.
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
 * import type { CallbackInboxContext, CallbackReceiver } from 'payorch';
 * declare const receiver: CallbackReceiver<CallbackInboxContext>;
 * declare function markPaid(trackingCode: string, amount: number, siteId: number | undefined): Promise<void>;
 * receiver.on('creditCard.success', async (callback) => {
 *   const site = callback.source === 'callback' ? callback.payload.site_id : undefined;
 *   await markPaid(callback.payload.tracking_code, callback.payload.amount, site);
 * });
 * ```
 */
export type AppliedCallback = VerifiedCallback | CardStatusRead;

/** The statuses of a card payment that end it (spec 3.1): what reconcile applies. */
const CARD_END_STATUSES = ['success', 'failed', 'cancelled', 'refunded'] as const satisfies readonly CardEndStatus[];

/** A status that ends a provider card payment (spec 3.1); `pending` does not. */
export type CardEndStatus = 'success' | 'failed' | 'cancelled' | 'refunded';

/** Whether `status` ends a card payment. */
function isCardEndStatus(status: string): status is CardEndStatus {
  return (CARD_END_STATUSES as readonly string[]).includes(status);
}

/**
 * The statuses to apply for a status read, in order, each under its own key: a payment read as
 * refunded was paid first, and a status answer shows the latest status only.
 */
export function statusesToApply(status: CardEndStatus): readonly CardEndStatus[] {
  return status === 'refunded' ? ['success', 'refunded'] : [status];
}

/** The status answer's fields (spec 2.6), its status any text: the service may add statuses. */
export type CardStatusAnswer = Omit<CardStatusReadPayload, 'status'> & { readonly status: string };

/**
 * What `confirmWithCardStatus` and `receiver.reconcile` need of a provider client:
 * `provider.creditCard.getStatus`. Written out so that a receiver that only verifies does not
 * bundle the provider client.
 */
export interface CardStatusSource {
  readonly creditCard: {
    /** Reads a card payment's status from the service (spec 4.9), signed and over TLS; `timeout` in milliseconds for the whole call. */
    getStatus(
      params: { readonly tracking_code: string },
      options?: { readonly timeout?: number | undefined },
    ): Promise<{ readonly data: CardStatusAnswer }>;
  };
}

/** A status as read: an end to apply, or why there is none. */
export type StatusReadResult =
  | { readonly result: 'read'; readonly read: CardStatusRead }
  | { readonly result: 'pending'; readonly status: string }
  | { readonly result: 'not_found' }
  | { readonly result: 'failed'; readonly error: unknown; readonly status?: string | undefined };

// The status answer's fields (spec 2.6), copied one by one: nothing else of an answer reaches a handler.
const PAYLOAD_FIELDS = ['order_id', 'currency', 'username', 'user_id', 'created_at', 'updated_at'] as const;

/**
 * Whether a failed status read is the service saying the code is unknown. The spec does not show
 * it: the card error shape (spec 7.2, `{ success: false, message }`) with HTTP 404 is read as
 * unknown, as the sandbox answers. Anything else (401, 403, a 5xx, a timeout, a proxy's 404
 * page, the service's own unknown-endpoint answer with its `error` field) is a failure: reading
 * a paid order as unknown would have it cancelled.
 */
function isUnknownCode(error: unknown): boolean {
  // By name, not class: the client's error classes stay out of payorch/webhooks. A 404 is a
  // NotFoundError whatever its body; the body tells the service's answer from a proxy's page.
  if (!isPayorchError(error) || error.name !== 'NotFoundError') return false;
  const { status, body } = error as PayorchError & { readonly status?: unknown; readonly body?: unknown };
  if (status !== 404 || typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const answer = body as Readonly<Record<string, unknown>>;
  return answer['success'] === false && typeof answer['message'] === 'string' && !('error' in answer) && !('messages' in answer);
}

/** Reads one card payment's status; never rejects. */
export async function readCardStatus(provider: CardStatusSource, trackingCode: string, clock: () => number): Promise<StatusReadResult> {
  let data: Awaited<ReturnType<CardStatusSource['creditCard']['getStatus']>>['data'];
  try {
    ({ data } = await provider.creditCard.getStatus({ tracking_code: trackingCode }));
  } catch (error) {
    return isUnknownCode(error) ? { result: 'not_found' } : { result: 'failed', error };
  }
  // An answer about another payment (a proxy's cache, a mixed-up gateway) applies nothing.
  if (data.tracking_code !== trackingCode) {
    return { result: 'failed', error: new PayorchError(`creditCard.getStatus answered for another tracking code than ${trackingCode}: nothing applied`) };
  }
  const { status } = data;
  if (!isCardEndStatus(status)) return { result: 'pending', status };
  if (typeof data.amount !== 'number' || !Number.isFinite(data.amount)) {
    return { result: 'failed', status, error: new PayorchError(`creditCard.getStatus answered ${trackingCode} without a numeric amount: nothing applied`) };
  }
  const payload: { -readonly [K in keyof CardStatusReadPayload]: CardStatusReadPayload[K] } = { tracking_code: trackingCode, status, amount: data.amount };
  for (const field of PAYLOAD_FIELDS) {
    const value = data[field];
    if (typeof value === 'string') payload[field] = value;
  }
  return { result: 'read', read: { source: 'status', kind: 'creditCard', payload, readStatus: status, readAt: clock() } };
}

