import { expect, test } from 'vitest';
import { checkTransactionRange } from '../../src/dealer/transaction-range.js';
import { TransactionRangeParams } from '../../src/dealer/transactions.js';
import { RequestValidationError } from '../../src/errors/error.js';
import { parseRequest } from '../../src/internal/validation.js';

// iterate() refuses a bad range synchronously, before zod is loaded (src/dealer/calls.ts), with
// a check of its own: it must refuse exactly what the zod schema refuses, with the same issues.
const range = { wallet_id: 'WLT-1', start_date: '2026-03-01', end_date: '2026-03-31' };
const inputs: unknown[] = [
  range,
  { ...range, start_date: '2024-02-29', end_date: '2024-02-29' },
  { ...range, end_date: '2026-02-29' },
  { ...range, start_date: '2026-13-01' },
  { ...range, start_date: '2026-03-10', end_date: '2026-03-01' },
  { ...range, wallet_id: '   ' },
  { ...range, wallet_id: ' ', start_date: '2026-03-10', end_date: '2026-03-01' },
  { ...range, wallet_id: 7 },
  { ...range, wallet_id: undefined },
  { start_date: '2026-03-10', end_date: '2026-03-01' },
  { ...range, page: 2 },
  { ...range, page: 2, extra: true, start_date: '2026-03-10', end_date: '2026-03-01' },
  { ...range, start_date: 20260301 },
  { ...range, start_date: '2026-3-1' },
  { ...range, start_date: '2026-03-01T00:00:00Z' },
  {},
  null,
  undefined,
  'WLT-1',
  [range],
];

function outcome(check: () => unknown): unknown {
  try {
    return { value: check() };
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    return { message: error.message, issues: error.issues };
  }
}

test.each(inputs.map((input) => [input === undefined ? 'undefined' : JSON.stringify(input), input]))('the range %s is checked as TransactionRangeParams checks it', (_, input) => {
  const bySchema = outcome(() => parseRequest('transactions.iterate', TransactionRangeParams, input));
  expect(outcome(() => checkTransactionRange('transactions.iterate', input))).toEqual(bySchema);
});
