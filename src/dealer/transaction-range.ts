import { RequestValidationError } from '../errors/error.js';
import type { ValidationIssue } from '../errors/error.js';
import { englishMessage } from '../internal/english.js';
import { dayNumber } from './date-windows.js';

/** A range of `iterate()` once checked: exactly its three fields. */
export interface TransactionRange {
  readonly wallet_id: string;
  readonly start_date: string;
  readonly end_date: string;
}

// zod's ISO date (zod/v4/core regexes, `date`): a real calendar day, leap years included.
const CALENDAR_DATE = /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))$/;
const FIELDS = ['wallet_id', 'start_date', 'end_date'] as const;
const DATE_MESSAGE = 'must be a calendar date YYYY-MM-DD';

/**
 * `iterate()`'s range check, without zod: `iterate()` refuses a bad range at once, synchronously,
 * and zod is loaded only by a client's first call (src/dealer/calls.ts). The same issues, in the
 * same order and words, as TransactionRangeParams gives through parseRequest:
 * test/dealer/transaction-range.test.ts holds the two to each other.
 * @throws {RequestValidationError} naming each field and rule that failed
 */
export function checkTransactionRange(operation: string, input: unknown): TransactionRange {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new RequestValidationError(operation, [{ field: '', rule: 'invalid_type', message: englishMessage({ code: 'invalid_type', expected: 'object', input }) }]);
  }
  const given = input as Readonly<Record<string, unknown>>;
  const issues: ValidationIssue[] = [];
  // A wrong type stops the whole-object check (the order of the dates); a wrong format or an unknown field does not.
  let typed = true;
  for (const field of FIELDS) {
    const value = given[field];
    if (typeof value !== 'string') {
      // The dates' own words name any failure of theirs, a wrong type too (zod's `error` of the schema).
      const message = field === 'wallet_id' ? englishMessage({ code: 'invalid_type', expected: 'string', input: value }) : DATE_MESSAGE;
      issues.push({ field, rule: 'invalid_type', message });
      typed = false;
    } else if (field === 'wallet_id' ? !/\S/.test(value) : !CALENDAR_DATE.test(value)) {
      issues.push({ field, rule: 'invalid_format', message: field === 'wallet_id' ? 'is required' : DATE_MESSAGE });
    }
  }
  const unknown = Object.keys(given).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    issues.push({ field: unknown.join(', '), rule: 'unrecognized_keys', message: 'is not a field of this request' });
  }
  const range = { wallet_id: given['wallet_id'], start_date: given['start_date'], end_date: given['end_date'] } as TransactionRange;
  if (typed && dayNumber(range.end_date) < dayNumber(range.start_date)) {
    issues.push({ field: 'end_date', rule: 'too_small', message: 'must not be before start_date' });
  }
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
  return range;
}
