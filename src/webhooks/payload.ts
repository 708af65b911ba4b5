import { assertNever } from '../internal/assert-never.js';
import { PROTOTYPE_KEYS } from '../internal/prototype-keys.js';
import type { ValidationIssue } from '../errors/error.js';
import type { Api } from '../core/api.js';
import type { TrackingCodeDirection } from '../core/tracking-code.js';
import type { CallbackKind } from './kinds.js';

/*
 * The fields of each callback body (spec 6), as data: one table per kind, from which both the
 * exported zod schemas (schemas.ts) and verification's reader (`readPayload`, below) are made. The
 * reader needs no schema library, so a route that only verifies callbacks bundles no zod and
 * runs no schema per body (docs/decisions.md).
 * No zod here: importing this file must not pull it into a bundle.
 */

/**
 * How a field is read. Lenient like every answer: variants a server plausibly sends are
 * normalised to the documented type (PHP's JSON_NUMERIC_CHECK turns numeric text into numbers).
 * - `text`: a JSON string as sent (the signed `tracking_code` and `hash`);
 * - `status`: a JSON string as sent; each kind's schema types it with its known statuses;
 * - `id`: a string; a number is kept as its decimal text;
 * - `number`: a finite number; a numeric string ("250.00") is converted;
 * - `integer`: a safe integer; an integer string ("12") is converted;
 * - `boolean`: a boolean; 1/0 and "true"/"false" are converted.
 */
export type FieldType = 'text' | 'status' | 'id' | 'number' | 'integer' | 'boolean';

/**
 * One field of a callback body: its type, whether the body may leave it out (or send `null`), a
 * value a real callback could carry (what the sandbox and `payorch trigger` send when they have
 * none of their own), and the one status it comes with, where the spec sends it with one only.
 */
export interface FieldSpec {
  readonly type: FieldType;
  readonly optional?: true;
  readonly example: string | number | boolean;
  readonly only?: string;
}

/** The fields of one callback kind, in the order of the spec's table. */
export type FieldTable = Readonly<Record<string, FieldSpec>>;

/** SHA-256 of nothing: the shape of a hash, for the examples. */
const HASH_EXAMPLE = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// The signature's fields, last (before a card payment's failure fields) in every kind's table.
const SIGNED_FIELDS = {
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: { type: 'integer', example: 1763812345 },
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: { type: 'text', example: HASH_EXAMPLE },
} as const;

// The fields of deposit and withdrawal callbacks, in the order of spec 6.2.
const PROVIDER_TRANSACTION_FIELDS = {
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: { type: 'text', example: 'MAN-a8Xk29Qp-1763812000' },
  /** The service's internal transaction id (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  tx_id: { type: 'id', optional: true, example: 'TX1763812000' },
  /** The end status; the hash covers it (spec 5.3, 6.2, 6.3). */
  status: { type: 'status', example: 'completed' },
  /** The final approved or rejected amount in TRY, a number (spec 6.2). Not covered by the hash: compare it with your record before acting on it. */
  amount: { type: 'number', example: 250 },
  /** The customer's username (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  username: { type: 'id', optional: true, example: 'ada' },
  /** The customer's full name (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  fullname: { type: 'id', optional: true, example: 'Ada Yılmaz' },
  /** The customer's identifier in your system (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  user_id: { type: 'id', optional: true, example: 'u-1001' },
  /** The site's id, an integer (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  site_id: { type: 'integer', optional: true, example: 1 },
  ...SIGNED_FIELDS,
} as const;

/** The fields of `DepositCallback` (spec 6.2). */
export const DEPOSIT_CALLBACK_FIELDS = PROVIDER_TRANSACTION_FIELDS satisfies FieldTable;

/** The fields of `WithdrawalCallback` (spec 6.3), whose doc says why `iban` is optional. */
export const WITHDRAWAL_CALLBACK_FIELDS = {
  ...PROVIDER_TRANSACTION_FIELDS,
  /** The recipient's IBAN: manual, E-IBAN and bank withdrawals (spec 6.3). Not covered by the hash: it decides nothing on its own. */
  iban: { type: 'id', optional: true, example: 'TR330006100519786457841326' },
} as const satisfies FieldTable;

const CARD_FAILURE_FIELDS = {
  /** The failure's code; only when the payment failed (spec 6.4, 6.5). Not covered by the hash: it decides nothing on its own. */
  error_code: { type: 'id', optional: true, example: 'CARD_DECLINED', only: 'failed' },
  /** The failure's text; only when the payment failed (spec 6.4, 6.5). Not covered by the hash: it decides nothing on its own. */
  error_message: { type: 'id', optional: true, example: 'The card was declined by the issuer', only: 'failed' },
} as const;

/** The fields of `CreditCardCallback` (spec 6.4). */
export const CREDIT_CARD_CALLBACK_FIELDS = {
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: { type: 'text', example: 'CC-k3J9x-1763812000' },
  /** The payment gateway's order id (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  order_id: { type: 'id', optional: true, example: 'ORD-55' },
  /** `success`, `failed` or `cancelled`; the hash covers it (spec 5.3, 6.4). */
  status: { type: 'status', example: 'success' },
  /** The amount in TRY, a number (spec 6.4, 6.5). Not covered by the hash: compare it with your record before acting on it. */
  amount: { type: 'number', example: 150 },
  /** The currency: `TRY` (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  currency: { type: 'id', optional: true, example: 'TRY' },
  /** The customer's username (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  username: { type: 'id', optional: true, example: 'ada' },
  /** The customer's identifier in your system (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  user_id: { type: 'id', optional: true, example: 'u-1001' },
  /** The site's id, an integer (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  site_id: { type: 'integer', optional: true, example: 1 },
  /** The customer's name (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_name: { type: 'id', optional: true, example: 'Ada Yılmaz' },
  /** The customer's email address (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_email: { type: 'id', optional: true, example: 'ada@example.com' },
  ...SIGNED_FIELDS,
  ...CARD_FAILURE_FIELDS,
} as const satisfies FieldTable;

/** The fields of `DealerCreditCardCallback` (spec 6.5), whose doc says why most are optional. */
export const DEALER_CREDIT_CARD_CALLBACK_FIELDS = {
  /** Whether the payment succeeded (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  success: { type: 'boolean', optional: true, example: true },
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: { type: 'text', example: 'CC-k3J9x-1763812400' },
  /** The payment gateway's order id (spec 6.4, 6.5). Not covered by the hash: it decides nothing on its own. */
  order_id: { type: 'id', optional: true, example: 'ORD-77' },
  /** `success` or `failed` (an expired payment is reported as `failed`); the hash covers it (spec 5.3, 6.5). */
  status: { type: 'status', example: 'success' },
  /** The amount in TRY, a number (spec 6.4, 6.5). Not covered by the hash: compare it with your record before acting on it. */
  amount: { type: 'number', optional: true, example: 450 },
  /** The currency: `TRY` (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  currency: { type: 'id', optional: true, example: 'TRY' },
  /** The customer's name (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_name: { type: 'id', optional: true, example: 'Ada Yılmaz' },
  /** The customer's email address (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_email: { type: 'id', optional: true, example: 'ada@example.com' },
  /** The customer's phone number (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  customer_phone: { type: 'id', optional: true, example: '+905551112233' },
  /** Text about the status (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  status_message: { type: 'id', optional: true, example: 'Payment completed' },
  /** When the payment completed, ISO 8601 (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  completed_at: { type: 'id', optional: true, example: '2025-11-22T11:56:10+00:00', only: 'success' },
  ...SIGNED_FIELDS,
  ...CARD_FAILURE_FIELDS,
} as const satisfies FieldTable;

/** The fields of `UnknownCallback`: a tracking code prefix spec 2.1 does not list. */
export const UNKNOWN_CALLBACK_FIELDS = {
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: { type: 'text', example: 'XYZ-a8Xk29Qp-1763812000' },
  /** The end status; the hash covers it (spec 5.3, 6). */
  status: { type: 'status', example: 'completed' },
  /** The amount, a number: every kind of spec 6 carries one; not required of a kind nobody has described. Not covered by the hash: compare it with your record before acting on it. */
  amount: { type: 'number', optional: true, example: 250 },
  ...SIGNED_FIELDS,
} as const satisfies FieldTable;

/**
 * The table of each kind verification reads, `unknown` (a prefix spec 2.1 does not list) included.
 * `satisfies` makes a kind added to kinds.ts a compile error here until it has a table.
 */
export const CALLBACK_FIELDS = {
  deposit: DEPOSIT_CALLBACK_FIELDS,
  withdrawal: WITHDRAWAL_CALLBACK_FIELDS,
  creditCard: CREDIT_CARD_CALLBACK_FIELDS,
  dealerCreditCard: DEALER_CREDIT_CARD_CALLBACK_FIELDS,
  unknown: UNKNOWN_CALLBACK_FIELDS,
} as const satisfies Record<CallbackKind | 'unknown', FieldTable>;

/*
 * Reads a verified callback body by its field table: what the kind's zod schema (schemas.ts)
 * does, by hand. One loop and no allocation per field, where the schema runs a union per field;
 * test/webhooks/payload.test.ts holds the two to the same output on generated bodies.
 */

const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;
const INTEGER_TEXT = /^-?\d+$/;

/** What `readField` returns for a value of the wrong type: no value is this object. */
const INVALID: unique symbol = Symbol('invalid');

/** One field's value normalised to its type, or `INVALID`. */
export function readField(type: FieldType, value: unknown): unknown {
  switch (type) {
    case 'text':
    case 'status':
      return typeof value === 'string' ? value : INVALID;
    case 'id':
      if (typeof value === 'string') return value;
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : INVALID;
    case 'number':
      if (typeof value === 'number') return Number.isFinite(value) ? value : INVALID;
      return typeof value === 'string' && NUMERIC_TEXT.test(value.trim()) ? Number(value.trim()) : INVALID;
    case 'integer':
      if (typeof value === 'number') return Number.isSafeInteger(value) ? value : INVALID;
      return typeof value === 'string' && INTEGER_TEXT.test(value.trim()) ? Number(value.trim()) : INVALID;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === 'true') return true;
      return value === 0 || value === 'false' ? false : INVALID;
    default:
      return assertNever(type);
  }
}

const EXPECTED: Record<FieldType, string> = {
  text: 'expected a string',
  status: 'expected a string',
  id: 'expected a string or a number',
  number: 'expected a number or a numeric string',
  integer: 'expected an integer or an integer string',
  boolean: 'expected a boolean, 1/0 or "true"/"false"',
};

function kindOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : `a ${typeof value}`;
}

/** The issue of a field whose value `readField` refused: what the type takes, and the value's kind (never the value). */
export function fieldIssue(field: string, type: FieldType, value: unknown): ValidationIssue {
  return value === undefined ? { field, rule: 'required', message: 'is required' } : { field, rule: 'invalid_type', message: `${EXPECTED[type]}, got ${kindOfValue(value)}` };
}

/** A payload read by its table, or what kept it from being read. */
export type ReadResult =
  | { readonly success: true; readonly data: Record<string, unknown> }
  | { readonly success: false; readonly issues: readonly ValidationIssue[] };

// Each table's fields as a list, made once: reading a payload walks it on every callback.
const TABLE_ENTRIES = new WeakMap<FieldTable, readonly (readonly [string, FieldSpec])[]>();
function entriesOf(fields: FieldTable): readonly (readonly [string, FieldSpec])[] {
  let entries = TABLE_ENTRIES.get(fields);
  if (entries === undefined) TABLE_ENTRIES.set(fields, (entries = Object.entries(fields)));
  return entries;
}

/**
 * The body's declared fields normalised to their types, then every other field as sent but
 * `__proto__`, `constructor` and `prototype` (the same object the kind's lenient schema returns).
 * `null` in an optional field reads as absent (`undefined`); the caller's body is not changed. A field `given` a value takes it instead
 * of the body's, unread (the signed values that verified, in place of their copies).
 */
export function readPayload(fields: FieldTable, body: Readonly<Record<string, unknown>>, given: Readonly<Record<string, unknown>> = {}): ReadResult {
  const data: Record<string, unknown> = {};
  let issues: ValidationIssue[] | undefined;
  for (const [key, field] of entriesOf(fields)) {
    const forced = given[key];
    if (forced !== undefined) {
      data[key] = forced;
      continue;
    }
    const value = body[key];
    if (value === undefined || (value === null && field.optional === true)) {
      if (field.optional === true) {
        if (Object.hasOwn(body, key)) data[key] = undefined;
      } else {
        (issues ??= []).push(fieldIssue(key, field.type, undefined));
      }
      continue;
    }
    const read = readField(field.type, value);
    if (read === INVALID) (issues ??= []).push(fieldIssue(key, field.type, value));
    else data[key] = read;
  }
  if (issues !== undefined) return { success: false, issues };
  for (const key of Object.keys(body)) {
    if (Object.hasOwn(fields, key) || PROTOTYPE_KEYS.has(key)) continue;
    data[key] = body[key];
  }
  return { success: true, data };
}

// How a verified callback's kind is told, and so which table its payload is read by: here, and
// nowhere else. verifyCallback calls it once the hash verified; receiver.apply gets its kind from
// verifyCallback, never from the job.

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
