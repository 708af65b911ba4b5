import { assertNever } from '../core/assert-never.js';
import type { TrackingCodeDirection } from '../core/tracking-code.js';
import type { CallbackKind } from './kinds.js';
import type { Api } from '../core/endpoint.js';

// CC codes name provider and dealer card payments alike (spec 2.1); their bodies differ
// (spec 6.4, 6.5). Which account the receiver's keys belong to decides; without it, a field of
// one side only is a hint. The fields are unsigned: they may choose between the two card kinds,
// never refuse a callback whose hash verified.
const DEALER_ONLY = ['status_message', 'customer_phone', 'completed_at'] as const;
const PROVIDER_ONLY = ['site_id', 'username', 'user_id'] as const;

/** Which API the receiver's keys belong to: the provider's or the dealer's (spec 5.2). */

function hasAny(body: Readonly<Record<string, unknown>>, fields: readonly string[]): boolean {
  return fields.some((field) => Object.hasOwn(body, field) && body[field] !== undefined && body[field] !== null);
}

function cardKind(body: Readonly<Record<string, unknown>>, account: Api | undefined): CallbackKind {
  if (account !== undefined) return account === 'dealer' ? 'dealerCreditCard' : 'creditCard';
  // `success` is left out: a provider body that carries it is still a provider body. A body with
  // fields of neither side (or both) reads as the provider's, whose schema asks no more.
  return hasAny(body, DEALER_ONLY) && !hasAny(body, PROVIDER_ONLY) ? 'dealerCreditCard' : 'creditCard';
}

/** The callback kind of a tracking code already read: its direction, and for cards the account or the body's fields. */
export function kindOfDirection(direction: Exclude<TrackingCodeDirection, 'transfer'>, body: Readonly<Record<string, unknown>>, account: Api | undefined): CallbackKind {
  switch (direction) {
    case 'deposit':
      return 'deposit';
    case 'withdrawal':
      return 'withdrawal';
    case 'card':
      return cardKind(body, account);
    default:
      return assertNever(direction);
  }
}
