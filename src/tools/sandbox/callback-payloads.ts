import { CALLBACK_FIELDS } from '../../webhooks/payload.js';
import type { FieldTable } from '../../webhooks/payload.js';
import type { Credentials } from '../../internal/signer.js';
import { formatIsoLocal } from './clock.js';
import type { Fixtures } from './fixtures.js';
import type { SignCallbackPayload } from '../../webhooks/sign.js';
import type { CallbackKind } from '../../webhooks/kinds.js';
import type { StoredRecord } from './records.js';

/** The fields of its table that a `kind` callback at `status` carries: each, but one the spec sends with another status only. */
export function callbackFields(kind: CallbackKind, status: string): string[] {
  return Object.entries(CALLBACK_FIELDS[kind] as FieldTable).flatMap(([field, spec]) => (spec.only === undefined || spec.only === status ? [field] : []));
}

/**
 * The unsigned body of a `kind` callback at `status`, built from the kind's field table (spec 6.2
 * to 6.5): each field it carries at that status, from `values` where they hold it (an `undefined`
 * there leaves the field out), else its example; a value for a field of no table of this kind is
 * not sent. Then `beyond`: fields the spec does not list that the service sends (6.6).
 * `timestamp` and `hash` are left to signCallback.
 */
export function callbackBody(kind: CallbackKind, status: string, values: Readonly<Record<string, unknown>>, beyond: Readonly<Record<string, string>> = {}): SignCallbackPayload {
  const body: Record<string, unknown> = {};
  for (const field of callbackFields(kind, status)) {
    if (field === 'timestamp' || field === 'hash') continue;
    const value = Object.hasOwn(values, field) ? values[field] : (CALLBACK_FIELDS[kind] as FieldTable)[field]?.example;
    if (value !== undefined) body[field] = value;
  }
  return { ...body, ...beyond, status } as SignCallbackPayload;
}

/**
 * The unsigned body of the callback `kind` for `record` (spec 6.2 to 6.5), before `timestamp`
 * and `hash`; `expired` when its lifetime ran out. What the record holds fills the table's fields.
 */
export function callbackPayload(kind: CallbackKind, record: StoredRecord, expired: boolean): SignCallbackPayload {
  const params = record.params;
  const succeeded = record.status === 'success';
  const failure = expired ? { error_code: 'PAYMENT_EXPIRED', error_message: 'The payment was not completed in time' } : { error_code: 'PAYMENT_FAILED', error_message: 'The payment was declined' };
  return callbackBody(kind, record.status, {
    tracking_code: record.code,
    tx_id: record.txId,
    amount: record.amount,
    site_id: record.siteId ?? 0,
    username: stringOrEmpty(params['username']),
    fullname: stringOrEmpty(params['fullname']),
    user_id: stringOrEmpty(params['user_id']),
    // Where a withdrawal goes: the IBAN (6.3); crypto and wallet withdrawals have none, so their own fields stand in (6.6).
    iban: typeof params['iban'] === 'string' ? params['iban'] : undefined,
    order_id: record.orderId ?? '',
    currency: 'TRY',
    customer_name: `${stringOrEmpty(params['firstname'])} ${stringOrEmpty(params['lastname'])}`.trim(),
    customer_email: stringOrEmpty(params['email']),
    customer_phone: stringOrEmpty(params['phone']),
    success: succeeded,
    status_message: succeeded ? 'Payment completed' : expired ? 'Payment expired' : 'Payment failed',
    completed_at: formatIsoLocal(record.completedAt ?? record.updatedAt),
    ...failure,
  }, kind === 'withdrawal' ? destinationOf(params) : {});
}

/** The account whose keys sign the callback: the dealer's for dealer card payments, else the provider's. */
export function signerOf(kind: CallbackKind, fixtures: Fixtures): Credentials {
  return kind === 'dealerCreditCard' ? fixtures.dealer : fixtures.provider;
}

/** The fields that stand in for a crypto or wallet withdrawal's IBAN, which the spec does not show (6.6). */
export const UNSHOWN_DESTINATION_FIELDS = ['crypto_type', 'wallet_address', 'wallet_number'] as const;

/** The fields beyond the table that say where a crypto or wallet withdrawal goes. */
function destinationOf(params: Readonly<Record<string, unknown>>): Record<string, string> {
  const fields: Record<string, string> = {};
  if (typeof params['iban'] === 'string') return fields;
  for (const name of UNSHOWN_DESTINATION_FIELDS) {
    const value = params[name];
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

const stringOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');
