import * as z from 'zod/mini';
// zod's builder, not `z.iso.date`: reading the `iso` namespace keeps all of it in a bundle.
import { _isoDate } from 'zod/v4/core';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, openEnum, requiredString, responseBoolean, responseDecimal, responseInteger, strictObject, successFlag } from '../internal/schema-blocks.js';
import { dayNumber } from './date-windows.js';


/**
 * Largest end_date minus start_date that `list()` sends. It refuses only what every reading of
 * the limit refuses; a range of four days covered is left to the service (docs/spec-gaps.md).
 */
const MAX_SPAN_DAYS = 3;

/** Records per page of the transaction list: fixed by the service (spec 4.13, 8). */
const PAGE_SIZE = 100;

// @__NO_SIDE_EFFECTS__
function calendarDate() {
  return _isoDate(z.ZodMiniISODate, { error: 'must be a calendar date YYYY-MM-DD' });
}

const rangeShape = () => ({
  /** The E-IBAN's `wallet_id`, from `dealer.eibans.list()`. Required (spec 4.13). */
  wallet_id: requiredString(),
  /** First day, a calendar date `YYYY-MM-DD` in service time. Required. For `list()` the range is at most 3 days: `end_date` at most 3 days after it (spec 4.13, 7.4, 8); `iterate()` takes any range. */
  start_date: calendarDate(),
  /** Last day, `YYYY-MM-DD`, not before `start_date`. Required. For `list()` at most 3 days after `start_date` (spec 4.13, 7.4, 8); `iterate()` takes any range. */
  end_date: calendarDate(),
});

type Range = { readonly start_date: string; readonly end_date: string };

function checkOrder(range: Range, ctx: z.core.$RefinementCtx): void {
  if (dayNumber(range.end_date) < dayNumber(range.start_date)) {
    ctx.addIssue({ code: 'too_small', origin: 'date', minimum: Date.parse(range.start_date), inclusive: true, path: ['end_date'], message: 'must not be before start_date' });
  }
}

function checkSpan(range: Range, ctx: z.core.$RefinementCtx): void {
  if (dayNumber(range.end_date) - dayNumber(range.start_date) > MAX_SPAN_DAYS) {
    ctx.addIssue({
      code: 'too_big',
      origin: 'date',
      maximum: Date.parse(range.start_date) + MAX_SPAN_DAYS * 86_400_000,
      inclusive: true,
      path: ['end_date'],
      message: `must be at most ${MAX_SPAN_DAYS} days after start_date (the service's limit); iterate() takes any range`,
    });
  }
}

/** Query of one page of E-IBAN transactions (spec 4.13): a range of at most 3 days. */
export const TransactionListParams = /* @__PURE__ */ strictObject(
  () => ({
    ...rangeShape(),
    /** Page number, from 1. (spec 4.13) @default 1 */
    page: z.optional(z.number().check(z.int({ error: 'must be an integer' }), z.positive({ error: 'must be at least 1' }))),
  }),
  z.superRefine((params: Range, ctx) => {
    checkOrder(params, ctx);
    checkSpan(params, ctx);
  }),
);
export type TransactionListParams = z.input<typeof TransactionListParams>;

/** Range of `iterate()`: any number of days, end not before start. */
export const TransactionRangeParams = /* @__PURE__ */ strictObject(rangeShape, /* @__PURE__ */ z.superRefine(checkOrder));
export type TransactionRangeParams = z.input<typeof TransactionRangeParams>;


/** Query of `readNew()`: a wallet, and the cursor of the run before. */
export const ReadNewTransactionsParams = /* @__PURE__ */ strictObject(() => ({
  /** The E-IBAN's `wallet_id`, from `dealer.eibans.list()`. Required (spec 4.13). */
  wallet_id: requiredString(),
  /** The `cursor` the previous run returned, as it was; left out on the first run. The history has no "since" query of its own (spec 4.13). */
  cursor: z.optional(z.string()),
  /** First day the first run reads (no `cursor`), a calendar date `YYYY-MM-DD` in service time (spec 4.13); ignored with a cursor. @default the day `lookBackSeconds` ago */
  start_date: z.optional(calendarDate()),
  /**
   * How far back each run reads again, in seconds, from the time the run before started: records
   * that appear late in the history, or that a page shifting during a read hid, are found by a
   * later run when they are dated within it (spec 4.13 reads by whole days). From 0 to 2592000
   * (30 days). @default 86400 (one day)
   */
  lookBackSeconds: z.optional(z.number().check(z.int({ error: 'must be an integer' }), z.gte(0, { error: 'must be at least 0' }), z.lte(2_592_000, { error: 'must be at most 2592000 (30 days)' }))),
}));
export type ReadNewTransactionsParams = z.input<typeof ReadNewTransactionsParams>;

/** What `readNew()` returns: the transactions not handed out before, and the cursor to store. */
export interface NewTransactions {
  /** Transactions no earlier run with this cursor's line handed out, in the order read. */
  readonly transactions: Transaction[];
  /** Give it to the next run. Opaque text; it holds the ids dated within the look-back (about 20 bytes each). */
  readonly cursor: string;
}

/** Direction of a transaction; the spec shows `incoming` (spec 2.7). */
export const TransactionType = /* @__PURE__ */ openEnum(['incoming']);
export type TransactionType = z.infer<typeof TransactionType>;

/** One movement on an E-IBAN account (spec 2.7). */
export const Transaction = /* @__PURE__ */ lenientObject(() => ({
  /** The transaction's id (spec 2.7). */
  transactionId: z.string(),
  /** Decimal string, for example `"1500.00"` (spec 2.7). */
  amount: responseDecimal(),
  /** The transaction's direction, for example `incoming` (spec 2.7). */
  type: TransactionType,
  /** Free text of the transaction (spec 2.7). */
  description: z.optional(z.string()),
  /** The sender's name (spec 2.7). */
  senderName: z.optional(z.string()),
  /** The sender's IBAN (spec 2.7). */
  senderIban: z.optional(z.string()),
  /** ISO 8601 without offset, for example `2026-03-01T14:05:00` (spec 2.7). */
  date: z.string(),
}));
export interface Transaction extends z.infer<typeof Transaction> {}

/** Where a page stands in the result (spec 4.13); `per_page` is always 100. */
export const Pagination = /* @__PURE__ */ lenientObject(() => ({
  /** This page's number, from 1 (spec 4.13). */
  current_page: responseInteger(),
  /** Records per page: always 100 (spec 4.13, 8). */
  per_page: responseInteger(),
  /** How many transactions the date range holds (spec 4.13). */
  total_records: responseInteger(),
  /** How many pages the date range holds (spec 4.13). */
  total_pages: responseInteger(),
  /** Whether a later page exists (spec 4.13). */
  has_more: responseBoolean(),
}));
export interface Pagination extends z.infer<typeof Pagination> {}

/** One page of E-IBAN transactions (spec 4.13). */
export const TransactionList = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** The dealer's name (spec 4.13). */
  dealer_name: z.optional(z.string()),
  /** The E-IBAN's wallet id the list is for, as sent (spec 4.13). */
  wallet_id: z.optional(z.string()),
  /** The range asked for, each end `YYYY-MM-DD`; at most 3 days (spec 4.13, 8). */
  date_range: z.optional(
    lenientObject(() => ({
      /** First day, `YYYY-MM-DD` (spec 4.13). */
      start_date: z.string(),
      /** Last day, `YYYY-MM-DD` (spec 4.13). */
      end_date: z.string(),
    })),
  ),
  /** Where this page is in the range; 100 records per page (spec 4.13). */
  pagination: Pagination,
  /** This page's transactions, at most 100 (spec 2.7, 8). */
  transactions: z.array(Transaction),
}));
export interface TransactionList extends z.infer<typeof TransactionList> {}

export const transactionListEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'transactions.list',
  method: 'GET',
  path: '/transactions',
  hash: 'basic',
  resendable: true,
  params: TransactionListParams,
  response: TransactionList,
});

/** The endpoint row of page `page` of a window of `iterate()`: the list's, answered as {@link pageOf} checks it. */
export function transactionPageEndpoint(page: number, first: WindowTotals | undefined, previous: ReadonlySet<string>) {
  return { ...transactionListEndpoint, response: pageOf(page, first, previous) };
}

/** What the first page of a window says of the whole window: it fixes the ceiling of its pages. */
export type WindowTotals = Pick<Pagination, 'total_records' | 'total_pages'>;

/**
 * The answer to page `page` of a window of `iterate()`, refusing a page that would make it loop
 * or hand out records twice. Its hard ceiling: a window has at most
 * ceil(total_records / 100) pages (one when it has no records), with total_records as the
 * window's first page gives it, since pages hold 100 records (spec 4.13); a page must be the one
 * asked for, agree with the first page on both totals, say `has_more` exactly when pages remain
 * before `total_pages`, hold at most 100 records and repeat none of the previous page's. A check
 * inside the schema, so that the transport's ResponseValidationError keeps the body exactly as
 * received.
 */
function pageOf(page: number, first: WindowTotals | undefined, previous: ReadonlySet<string>) {
  return TransactionList.check(z.superRefine(({ pagination, transactions }, context) => {
    const fail = (path: string, input: unknown, message: string) => {
      context.addIssue({ code: 'invalid_value', values: [], input, path: ['pagination', path].filter((part) => part !== ''), message });
    };
    const ceiling = Math.max(1, Math.ceil(pagination.total_records / PAGE_SIZE));
    const repeated = transactions.find((transaction) => previous.has(transaction.transactionId));
    if (pagination.current_page !== page) {
      fail('current_page', pagination.current_page, `is ${pagination.current_page}, but page ${page} was asked for`);
    } else if (pagination.has_more && transactions.length === 0) {
      fail('has_more', true, 'is true on a page without transactions');
    } else if (first !== undefined && (pagination.total_records !== first.total_records || pagination.total_pages !== first.total_pages)) {
      fail('total_records', pagination.total_records, `and total_pages changed from ${first.total_records} and ${first.total_pages} on the first page to ${pagination.total_records} and ${pagination.total_pages}`);
    } else if (pagination.total_pages > ceiling) {
      fail('total_pages', pagination.total_pages, `is ${pagination.total_pages}, more than the ${ceiling} that ${pagination.total_records} records of ${PAGE_SIZE} a page fill`);
    } else if (pagination.has_more !== page < pagination.total_pages) {
      fail('has_more', pagination.has_more, `is ${pagination.has_more} on page ${page} of ${pagination.total_pages}`);
    } else if (transactions.length > PAGE_SIZE) {
      context.addIssue({ code: 'too_big', origin: 'array', maximum: PAGE_SIZE, inclusive: true, input: transactions, path: ['transactions'], message: `holds ${transactions.length} records; a page holds at most ${PAGE_SIZE}` });
    } else if (repeated !== undefined) {
      context.addIssue({ code: 'invalid_value', values: [], input: repeated.transactionId, path: ['transactions'], message: `repeats ${repeated.transactionId} of page ${page - 1}: the service did not move to page ${page}` });
    }
  }));
}
