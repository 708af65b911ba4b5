import { assertNever } from '../core/assert-never.js';
import { safeParseTrackingCode } from '../core/tracking-code.js';
import { CallbackVerificationError } from '../errors/callback-verification-error.js';
import type { CallbackKind } from './kinds.js';

// CC codes name provider and dealer card payments alike (spec 2.1); their bodies differ
// (spec 6.4, 6.5). A field of one side only tells them apart.
const DEALER_ONLY = ['success', 'status_message', 'customer_phone', 'completed_at'] as const;
const PROVIDER_ONLY = ['site_id', 'username', 'user_id'] as const;

function hasAny(body: Readonly<Record<string, unknown>>, fields: readonly string[]): boolean {
  return fields.some((field) => Object.hasOwn(body, field) && body[field] !== undefined);
}

function cardKind(body: Readonly<Record<string, unknown>>): CallbackKind {
  const dealer = hasAny(body, DEALER_ONLY);
  const provider = hasAny(body, PROVIDER_ONLY);
  if (dealer && !provider) return 'dealerCreditCard';
  if (provider && !dealer) return 'creditCard';
  throw new CallbackVerificationError(
    'unknown_kind',
    `a CC tracking code with ${dealer ? 'both provider and dealer' : 'neither provider nor dealer'} card fields; pass kind: 'creditCard' or 'dealerCreditCard'`,
  );
}

/**
 * Tells which callback a body is: from the tracking code prefix (spec 2.1), and for card
 * payments from the fields only a provider or only a dealer card body has.
 *
 * @throws {CallbackVerificationError} `unknown_kind` when the prefix is unknown, names a transfer,
 * or a card body has the fields of both sides or of neither
 */
export function detectCallbackKind(body: Readonly<Record<string, unknown>>): CallbackKind {
  const code = body['tracking_code'];
  const parsed = typeof code === 'string' ? safeParseTrackingCode(code) : undefined;
  if (parsed === undefined || !parsed.success) {
    throw new CallbackVerificationError('unknown_kind', 'tracking_code has no prefix of spec 2.1; pass kind');
  }
  switch (parsed.data.direction) {
    case 'deposit':
      return 'deposit';
    case 'withdrawal':
      return 'withdrawal';
    case 'card':
      return cardKind(body);
    case 'transfer':
      throw new CallbackVerificationError('unknown_kind', 'transfers have no callback (spec 6.1); pass kind');
    default:
      return assertNever(parsed.data);
  }
}
