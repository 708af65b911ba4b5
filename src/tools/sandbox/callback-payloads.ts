import { assertNever } from '../../internal/assert-never.js';
import type { Credentials } from '../../internal/signer.js';
import { formatIsoLocal } from './clock.js';
import type { Fixtures } from './fixtures.js';
import type { SignCallbackPayload } from '../../webhooks/sign.js';
import type { CallbackKind } from '../../webhooks/kinds.js';
import type { StoredRecord } from './records.js';

/**
 * The unsigned body of the callback `kind` for `record` (spec 6.2 to 6.5), before `timestamp`
 * and `hash`; `expired` when its lifetime ran out.
 */
export function callbackPayload(kind: CallbackKind, record: StoredRecord, expired: boolean): SignCallbackPayload {
  const params = record.params;
  const base = { tracking_code: record.code, status: record.status };
  switch (kind) {
    case 'deposit':
      return { ...base, tx_id: record.txId, amount: record.amount, ...customerOf(params), site_id: record.siteId ?? 0 };
    case 'withdrawal':
      return { ...base, tx_id: record.txId, amount: record.amount, ...customerOf(params), site_id: record.siteId ?? 0, ...destinationOf(params) };
    case 'creditCard':
      return {
        ...base,
        order_id: record.orderId ?? '',
        amount: record.amount,
        currency: 'TRY',
        username: stringOrEmpty(params['username']),
        user_id: stringOrEmpty(params['user_id']),
        site_id: record.siteId ?? 0,
        customer_name: `${stringOrEmpty(params['firstname'])} ${stringOrEmpty(params['lastname'])}`.trim(),
        customer_email: stringOrEmpty(params['email']),
        ...(record.status === 'failed' ? { error_code: 'PAYMENT_FAILED', error_message: 'The payment was declined' } : {}),
      };
    case 'dealerCreditCard': {
      const succeeded = record.status === 'success';
      return {
        success: succeeded,
        ...base,
        order_id: record.orderId ?? '',
        amount: record.amount,
        currency: 'TRY',
        customer_name: `${stringOrEmpty(params['firstname'])} ${stringOrEmpty(params['lastname'])}`.trim(),
        customer_email: stringOrEmpty(params['email']),
        customer_phone: stringOrEmpty(params['phone']),
        status_message: succeeded ? 'Payment completed' : expired ? 'Payment expired' : 'Payment failed',
        // On failure the error fields replace the success-only ones (6.5).
        ...(succeeded
          ? { completed_at: formatIsoLocal(record.completedAt ?? record.updatedAt) }
          : { error_code: expired ? 'PAYMENT_EXPIRED' : 'PAYMENT_FAILED', error_message: expired ? 'The payment was not completed in time' : 'The payment was declined' }),
      };
    }
    default:
      return assertNever(kind);
  }
}

/** The account whose keys sign the callback: the dealer's for dealer card payments, else the provider's. */
export function signerOf(kind: CallbackKind, fixtures: Fixtures): Credentials {
  return kind === 'dealerCreditCard' ? fixtures.dealer : fixtures.provider;
}

function customerOf(params: Readonly<Record<string, unknown>>): { username: string; fullname: string; user_id: string } {
  return { username: stringOrEmpty(params['username']), fullname: stringOrEmpty(params['fullname']), user_id: stringOrEmpty(params['user_id']) };
}

/** Where a withdrawal goes: the IBAN (6.3); crypto and wallet withdrawals have none, so their own fields stand in (6.6). */
function destinationOf(params: Readonly<Record<string, unknown>>): Record<string, string> {
  if (typeof params['iban'] === 'string') return { iban: params['iban'] };
  const fields: Record<string, string> = {};
  for (const name of ['crypto_type', 'wallet_address', 'wallet_number']) {
    const value = params[name];
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

const stringOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');
