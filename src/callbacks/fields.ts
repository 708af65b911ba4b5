import type { CallbackKind } from './kinds.js';

/*
 * The fields of each callback body (spec 6), as data: one table per kind, from which both the
 * exported zod schemas (schemas.ts) and verification's reader (read-payload.ts) are made. The
 * reader needs no schema library, so a route that only verifies callbacks bundles no zod and
 * reads a body in a fraction of a schema's time (docs/decisions.md, bench/RESULTS.md).
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

/** One field of a callback body: its type, and whether the body may leave it out (or send `null`). */
export interface FieldSpec {
  readonly type: FieldType;
  readonly optional?: true;
}

/** The fields of one callback kind, in the order of the spec's table. */
export type FieldTable = Readonly<Record<string, FieldSpec>>;

const TEXT = { type: 'text' } as const;
const STATUS = { type: 'status' } as const;
const NUMBER = { type: 'number' } as const;
const INTEGER = { type: 'integer' } as const;
const OPTIONAL_ID = { type: 'id', optional: true } as const;
const OPTIONAL_NUMBER = { type: 'number', optional: true } as const;
const OPTIONAL_INTEGER = { type: 'integer', optional: true } as const;
const OPTIONAL_BOOLEAN = { type: 'boolean', optional: true } as const;

// The fields of deposit and withdrawal callbacks, in the order of spec 6.2.
const PROVIDER_TRANSACTION_FIELDS = {
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: TEXT,
  /** The service's internal transaction id (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  tx_id: OPTIONAL_ID,
  /** The end status; the hash covers it (spec 5.3, 6.2, 6.3). */
  status: STATUS,
  /** The final approved or rejected amount in TRY, a number (spec 6.2). Not covered by the hash: compare it with your record before acting on it. */
  amount: NUMBER,
  /** The customer's username (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  username: OPTIONAL_ID,
  /** The customer's full name (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  fullname: OPTIONAL_ID,
  /** The customer's identifier in your system (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  user_id: OPTIONAL_ID,
  /** The site's id, an integer (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  site_id: OPTIONAL_INTEGER,
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: INTEGER,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: TEXT,
} as const;

/** Body of a deposit callback (spec 6.2): manual, E-IBAN and third-party deposits. */
export const DEPOSIT_CALLBACK_FIELDS = PROVIDER_TRANSACTION_FIELDS satisfies FieldTable;

/**
 * Body of a withdrawal callback (spec 6.3). `iban` is optional: what crypto and wallet
 * withdrawals carry instead is not shown (spec 6.6), and any such field is kept.
 */
export const WITHDRAWAL_CALLBACK_FIELDS = {
  ...PROVIDER_TRANSACTION_FIELDS,
  /** The recipient's IBAN: manual, E-IBAN and bank withdrawals (spec 6.3). Not covered by the hash: it decides nothing on its own. */
  iban: OPTIONAL_ID,
} as const satisfies FieldTable;

const CARD_FAILURE_FIELDS = {
  /** The failure's code; only when the payment failed (spec 6.4, 6.5). Not covered by the hash: it decides nothing on its own. */
  error_code: OPTIONAL_ID,
  /** The failure's text; only when the payment failed (spec 6.4, 6.5). Not covered by the hash: it decides nothing on its own. */
  error_message: OPTIONAL_ID,
} as const;

/** Body of a provider card callback (spec 6.4). */
export const CREDIT_CARD_CALLBACK_FIELDS = {
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: TEXT,
  /** The payment gateway's order id (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  order_id: OPTIONAL_ID,
  /** `success`, `failed` or `cancelled`; the hash covers it (spec 5.3, 6.4). */
  status: STATUS,
  /** The amount in TRY, a number (spec 6.4, 6.5). Not covered by the hash: compare it with your record before acting on it. */
  amount: NUMBER,
  /** The currency: `TRY` (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  currency: OPTIONAL_ID,
  /** The customer's username (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  username: OPTIONAL_ID,
  /** The customer's identifier in your system (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  user_id: OPTIONAL_ID,
  /** The site's id, an integer (spec 6.2). Not covered by the hash: it decides nothing on its own. */
  site_id: OPTIONAL_INTEGER,
  /** The customer's name (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_name: OPTIONAL_ID,
  /** The customer's email address (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_email: OPTIONAL_ID,
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: INTEGER,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: TEXT,
  ...CARD_FAILURE_FIELDS,
} as const satisfies FieldTable;

/**
 * Body of a dealer card callback (spec 6.5). Which fields a failure leaves out is not shown,
 * so everything but the signed fields is optional.
 */
export const DEALER_CREDIT_CARD_CALLBACK_FIELDS = {
  /** Whether the payment succeeded (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  success: OPTIONAL_BOOLEAN,
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: TEXT,
  /** The payment gateway's order id (spec 6.4, 6.5). Not covered by the hash: it decides nothing on its own. */
  order_id: OPTIONAL_ID,
  /** `success` or `failed` (an expired payment is reported as `failed`); the hash covers it (spec 5.3, 6.5). */
  status: STATUS,
  /** The amount in TRY, a number (spec 6.4, 6.5). Not covered by the hash: compare it with your record before acting on it. */
  amount: OPTIONAL_NUMBER,
  /** The currency: `TRY` (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  currency: OPTIONAL_ID,
  /** The customer's name (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_name: OPTIONAL_ID,
  /** The customer's email address (spec 6.4). Not covered by the hash: it decides nothing on its own. */
  customer_email: OPTIONAL_ID,
  /** The customer's phone number (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  customer_phone: OPTIONAL_ID,
  /** Text about the status (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  status_message: OPTIONAL_ID,
  /** When the payment completed, ISO 8601 (spec 6.5). Not covered by the hash: it decides nothing on its own. */
  completed_at: OPTIONAL_ID,
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: INTEGER,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: TEXT,
  ...CARD_FAILURE_FIELDS,
} as const satisfies FieldTable;

/**
 * Body of a callback whose tracking code has a prefix spec 2.1 does not list (the service added a
 * payment method): only the signed fields are typed, everything else is kept as sent. It reaches
 * the `'*'` handlers only.
 */
export const UNKNOWN_CALLBACK_FIELDS = {
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: TEXT,
  /** The end status; the hash covers it (spec 5.3, 6). */
  status: STATUS,
  /** The amount, a number: every kind of spec 6 carries one; not required of a kind nobody has described. Not covered by the hash: compare it with your record before acting on it. */
  amount: OPTIONAL_NUMBER,
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: INTEGER,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: TEXT,
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
