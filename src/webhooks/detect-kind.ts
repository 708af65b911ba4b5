import { assertNever } from '../internal/assert-never.js';
import type { Api } from '../core/api.js';
import type { TrackingCodeDirection } from '../core/tracking-code.js';
import type { CallbackKind } from './kinds.js';

// How a verified callback's kind is told: here, and nowhere else. verifyCallback calls it once the
// hash verified; receiver.apply gets its kind from verifyCallback, never from the job.

/** Which tracking codes each kind may carry (spec 2.1 and 6.1). */
export const DIRECTION_OF_KIND = {
  deposit: 'deposit',
  withdrawal: 'withdrawal',
  creditCard: 'card',
  dealerCreditCard: 'card',
} as const satisfies Record<CallbackKind, TrackingCodeDirection>;

// CC codes name provider and dealer card payments alike (spec 2.1); their bodies differ
// (spec 6.4, 6.5). Which API the receiver's keys belong to decides; without it, a field of
// one side only is a hint. The fields are unsigned: they may choose between the two card kinds,
// never refuse a callback whose hash verified.
const DEALER_ONLY = ['status_message', 'customer_phone', 'completed_at'] as const;
const PROVIDER_ONLY = ['site_id', 'username', 'user_id'] as const;

function hasAny(body: Readonly<Record<string, unknown>>, fields: readonly string[]): boolean {
  return fields.some((field) => Object.hasOwn(body, field) && body[field] !== undefined && body[field] !== null);
}

function cardKind(body: Readonly<Record<string, unknown>>, api: Api | undefined): CallbackKind {
  if (api !== undefined) return api === 'dealer' ? 'dealerCreditCard' : 'creditCard';
  // `success` is left out: a provider body that carries it is still a provider body. A body with
  // fields of neither side (or both) reads as the provider's, whose schema asks no more.
  return hasAny(body, DEALER_ONLY) && !hasAny(body, PROVIDER_ONLY) ? 'dealerCreditCard' : 'creditCard';
}

/**
 * The kind of a callback whose signature verified. A prefix spec 2.1 does not list is `unknown`;
 * a callback verified from its body alone is a dealer card callback (only the receiver's word lets
 * it through); else the receiver's `kind`, else the tracking code's direction and, for cards, the
 * API or the body's fields.
 */
export function kindOfCallback(
  direction: Exclude<TrackingCodeDirection, 'transfer'> | 'unknown',
  signedInBody: boolean,
  body: Readonly<Record<string, unknown>>,
  told: { readonly kind?: CallbackKind | undefined; readonly api?: Api | undefined },
): CallbackKind | 'unknown' {
  if (direction === 'unknown') return 'unknown';
  if (signedInBody) return 'dealerCreditCard';
  if (told.kind !== undefined) return told.kind;
  switch (direction) {
    case 'deposit':
      return 'deposit';
    case 'withdrawal':
      return 'withdrawal';
    case 'card':
      return cardKind(body, told.api);
    default:
      return assertNever(direction);
  }
}
