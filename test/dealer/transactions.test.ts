import { delay, http } from 'msw';
import { describe, expect, test } from 'vitest';
import { APIError, DealerClient, RequestAbortedError, RequestValidationError, ResponseValidationError } from '../../src/index.js';
import type { DealerErrorCode, Transaction } from '../../src/index.js';
import { DEALER_URL, transactionsAnswer } from '../helpers/dealer-answers.js';
import { BASE_URL, DEALER, capture, expectSigned } from '../helpers/wire.js';
import type { WireRequest } from '../helpers/wire.js';
import { server, useMsw } from '../mocks/server.js';

useMsw();

const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 0 });
const WALLET = 'WLT-A1';
const week = { wallet_id: WALLET, start_date: '2026-03-01', end_date: '2026-03-03' };

interface WireTransaction {
  transactionId: string;
  amount: string;
  type: string;
  description: string;
  senderName: string;
  senderIban: string;
  date: string;
}

/** `count` records of one day in time order; the first at midnight, the last at 23:59:59. */
function day(date: string, count: number): WireTransaction[] {
  return Array.from({ length: count }, (_, index) => {
    const seconds = count === 1 ? 0 : Math.round((index * 86_399) / (count - 1));
    const time = new Date(seconds * 1000).toISOString().slice(11, 19);
    return {
      transactionId: `TX-${date}-${String(index).padStart(3, '0')}`,
      amount: `${(index % 7) * 100 + 10}.50`,
      type: 'incoming',
      description: `Ödeme ${index}`,
      senderName: 'Ada Yılmaz',
      senderIban: 'TR330006100519786457841326',
      date: `${date}T${time}`,
    };
  });
}

/** A list of days of March 2026 with their record counts, flattened in date order. */
function march(counts: readonly number[]): WireTransaction[] {
  return counts.flatMap((count, index) => day(`2026-03-${String(index + 1).padStart(2, '0')}`, count));
}

/**
 * A service that pages `records` as spec 4.13 does: it keeps the records whose calendar day lies
 * in start_date..end_date (both included), 100 to a page. `fail` may replace any answer.
 */
function serve(records: readonly WireTransaction[], fail?: (query: URLSearchParams) => Response | undefined): WireRequest[] {
  return capture('get', `${DEALER_URL}/transactions`, (_attempt, request) => {
    const query = request.url.searchParams;
    const failure = fail?.(query);
    if (failure !== undefined) return failure;
    const window = { wallet_id: query.get('wallet_id') ?? '', start_date: query.get('start_date') ?? '', end_date: query.get('end_date') ?? '' };
    const page = Number(query.get('page') ?? '1');
    const inWindow = records.filter((record) => record.date.slice(0, 10) >= window.start_date && record.date.slice(0, 10) <= window.end_date);
    return transactionsAnswer(window, page, inWindow.slice((page - 1) * 100, page * 100), inWindow.length);
  });
}

/** The query of a request as `start..end#page`. */
const asked = (request: WireRequest) => `${request.url.searchParams.get('start_date')}..${request.url.searchParams.get('end_date')}#${request.url.searchParams.get('page')}`;

/** The requests a window of `count` records must cost: one per page, one for an empty window. */
const pagesOf = (window: string, count: number) => Array.from({ length: Math.max(1, Math.ceil(count / 100)) }, (_, index) => `${window}#${index + 1}`);

async function collect(iterable: AsyncIterable<Transaction>): Promise<{ seen: string[]; error: unknown }> {
  const seen: string[] = [];
  try {
    for await (const transaction of iterable) seen.push(transaction.transactionId);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

describe('dealer.transactions.list', () => {
  test('GETs /api/dealer/transactions with the query string and no body, and returns the page', async () => {
    const records = day('2026-03-01', 2);
    const answer = transactionsAnswer(week, 1, records, 2);
    const seen = capture('get', `${DEALER_URL}/transactions`, answer);
    const result = await dealer.transactions.list({ end_date: '2026-03-03', start_date: '2026-03-01', wallet_id: WALLET });

    expect(seen).toHaveLength(1);
    const request = seen[0]!;
    expect(request.method).toBe('GET');
    expect(request.url.pathname).toBe('/api/dealer/transactions');
    expect(request.url.search).toBe('?wallet_id=WLT-A1&start_date=2026-03-01&end_date=2026-03-03');
    expectSigned(request, DEALER);
    expect(request.body).toBe('');
    expect(result).toEqual(answer);
    expect(result.pagination).toEqual({ current_page: 1, per_page: 100, total_records: 2, total_pages: 1, has_more: false });
  });

  test('sends page when given, and encodes the wallet id', async () => {
    const seen = capture('get', `${DEALER_URL}/transactions`, transactionsAnswer(week, 2, [], 100));
    await dealer.transactions.list({ ...week, wallet_id: 'W&1 x', page: 2 }).catch(() => undefined);
    expect(seen[0]!.url.search).toBe('?wallet_id=W%261+x&start_date=2026-03-01&end_date=2026-03-03&page=2');
  });

  test('hands amounts over as decimal strings and pagination as numbers and a boolean', async () => {
    const record = { ...day('2026-03-01', 1)[0]!, amount: 1500.5 };
    const pagination = { current_page: '1', per_page: '100', total_records: '101', total_pages: '2', has_more: 1 };
    capture('get', `${DEALER_URL}/transactions`, { ...transactionsAnswer(week, 1, [record], 101), pagination });
    const result = await dealer.transactions.list(week);
    expect(result.transactions[0]!.amount).toBe('1500.5');
    expect(result.pagination).toEqual({ current_page: 1, per_page: 100, total_records: 101, total_pages: 2, has_more: true });
  });

  test('refuses a range of more than 3 days after start_date and sends nothing', async () => {
    const seen = serve([]);
    const error = await dealer.transactions.list({ ...week, end_date: '2026-03-05' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([
      { field: 'end_date', rule: 'too_big', message: "must be at most 3 days after start_date (the service's limit); iterate() takes any range" },
    ]);
    expect(seen).toHaveLength(0);
  });

  test('sends end_date 3 days after start_date, leaving that reading of the limit to the service', async () => {
    const seen = serve([]);
    await dealer.transactions.list({ ...week, end_date: '2026-03-04' });
    expect(seen.map(asked)).toEqual(['2026-03-01..2026-03-04#null']);
  });

  test('refuses end_date before start_date', async () => {
    const error = await dealer.transactions.list({ ...week, start_date: '2026-03-03', end_date: '2026-03-02' }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'end_date', rule: 'too_small', message: 'must not be before start_date' }]);
  });

  test.each([
    ['a day that does not exist', '2026-02-30'],
    ['a date without leading zeros', '2026-3-1'],
    ['a date and time', '2026-03-01T00:00:00'],
  ])('refuses %s as start_date', async (_label, startDate) => {
    const error = await dealer.transactions.list({ ...week, start_date: startDate }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'start_date', rule: 'invalid_format', message: 'must be a calendar date YYYY-MM-DD' }]);
  });

  test('accepts a range across a leap day and a year end', async () => {
    const seen = serve([]);
    await dealer.transactions.list({ ...week, start_date: '2028-02-28', end_date: '2028-03-02' });
    await dealer.transactions.list({ ...week, start_date: '2026-12-31', end_date: '2027-01-02' });
    expect(seen).toHaveLength(2);
  });

  test.each([
    ['0', 0, 'too_small'],
    ['1.5', 1.5, 'invalid_type'],
  ])('refuses page %s', async (_label, page, rule) => {
    const error = await dealer.transactions.list({ ...week, page }).catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues.map((issue) => [issue.field, issue.rule])).toEqual([['page', rule]]);
  });

  // Spec 7.4 does not show the field or the HTTP status of a code.
  test.each<[DealerErrorCode, 'code' | 'error_code' | 'error', number]>([
    ['DATE_RANGE_EXCEEDED', 'error', 400],
    ['INVALID_DATE_RANGE', 'code', 422],
    ['WALLET_NOT_ASSIGNED', 'error_code', 403],
  ])('surfaces %s from the %s field (HTTP %i) as an APIError with that code', async (code, field, status) => {
    const answer = { success: false, [field]: code, message: `Refused: ${code}` };
    capture('get', `${DEALER_URL}/transactions`, () => Response.json(answer, { status }));
    const error = await dealer.transactions.list(week).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).code).toBe(code);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).body).toEqual(answer);
  });

  test('is retried after a 503, since reading twice moves no money', async () => {
    const seen = capture('get', `${DEALER_URL}/transactions`, (attempt) => (attempt === 1 ? Response.json({ success: false }, { status: 503 }) : transactionsAnswer(week, 1, [], 0)));
    const retrying = new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 1 });
    await retrying.transactions.list(week);
    expect(seen).toHaveLength(2);
  });
});

describe('dealer.transactions.iterate', () => {
  // 2026-03-01..10: windows of 250 (3 pages), 0, 120 (2 pages) and 5 records.
  const tenDays = march([100, 100, 50, 0, 0, 0, 60, 0, 60, 5]);
  const tenDayRequests = [
    ...pagesOf('2026-03-01..2026-03-03', 250),
    ...pagesOf('2026-03-04..2026-03-06', 0),
    ...pagesOf('2026-03-07..2026-03-09', 120),
    ...pagesOf('2026-03-10..2026-03-10', 5),
  ];
  const tenDayRange = { wallet_id: WALLET, start_date: '2026-03-01', end_date: '2026-03-10' };

  test('reads 10 days in windows of 3 calendar days, page by page, every record once and in date order', async () => {
    const seen = serve(tenDays);
    const { seen: ids, error } = await collect(dealer.transactions.iterate(tenDayRange));
    expect(error).toBeUndefined();
    expect(seen.map(asked)).toEqual(tenDayRequests);
    expect(ids).toEqual(tenDays.map((record) => record.transactionId));
    for (const request of seen) {
      expectSigned(request, DEALER);
      expect(request.url.searchParams.get('wallet_id')).toBe(WALLET);
    }
  });

  test('collects the same records with toArray(), typed and normalised', async () => {
    serve(tenDays);
    const all = await dealer.transactions.iterate(tenDayRange).toArray();
    expect(all).toEqual(tenDays);
    expect(all[0]).toMatchObject({ transactionId: 'TX-2026-03-01-000', date: '2026-03-01T00:00:00', amount: '10.50' });
  });

  test('makes one request for each empty window and yields nothing for it', async () => {
    const seen = serve([]);
    expect(await dealer.transactions.iterate(tenDayRange).toArray()).toEqual([]);
    expect(seen.map(asked)).toEqual(['2026-03-01..2026-03-03#1', '2026-03-04..2026-03-06#1', '2026-03-07..2026-03-09#1', '2026-03-10..2026-03-10#1']);
  });

  test('fetches a page only when the one before has been read: at most one page is held', async () => {
    const seen = serve(tenDays);
    const iterator = dealer.transactions.iterate(tenDayRange)[Symbol.asyncIterator]();
    await iterator.next();
    expect(seen).toHaveLength(1);
    for (let read = 1; read < 100; read++) await iterator.next();
    expect(seen).toHaveLength(1);
    const next = await iterator.next();
    expect(next.value).toMatchObject({ transactionId: 'TX-2026-03-02-000', date: '2026-03-02T00:00:00' });
    expect(seen).toHaveLength(2);
    await iterator.return(undefined);
  });

  test('starts again from the first day each time it is iterated', async () => {
    const seen = serve(tenDays);
    const iterable = dealer.transactions.iterate(tenDayRange);
    expect(await iterable.toArray()).toHaveLength(375);
    expect(await iterable.toArray()).toHaveLength(375);
    expect(seen).toHaveLength(tenDayRequests.length * 2);
  });

  test('throws a failure mid-way to the caller after the records before it, and asks for nothing more', async () => {
    const seen = serve(tenDays, (query) =>
      query.get('start_date') === '2026-03-07' && query.get('page') === '2' ? Response.json({ success: false, message: 'database down' }, { status: 500 }) : undefined,
    );
    const { seen: ids, error } = await collect(dealer.transactions.iterate(tenDayRange));
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(500);
    expect(ids).toEqual(tenDays.slice(0, 350).map((record) => record.transactionId));
    expect(seen.map(asked)).toEqual(tenDayRequests.slice(0, 6));
  });

  test('rejects toArray() with a failure mid-way rather than returning part of the range', async () => {
    serve(tenDays, (query) => (query.get('start_date') === '2026-03-04' ? Response.json({ success: false, error: 'WALLET_NOT_ASSIGNED', message: 'no' }, { status: 403 }) : undefined));
    const error = await dealer.transactions.iterate(tenDayRange).toArray().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).code).toBe('WALLET_NOT_ASSIGNED');
  });

  test('throws a malformed page mid-way as ResponseValidationError instead of skipping its records', async () => {
    serve(tenDays, (query) =>
      query.get('start_date') === '2026-03-07'
        ? Response.json(transactionsAnswer(tenDayRange, 1, [{ ...tenDays[0]!, amount: 'n/a' }], 1))
        : undefined,
    );
    const { seen: ids, error } = await collect(dealer.transactions.iterate(tenDayRange));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.field)).toEqual(['transactions.0.amount']);
    expect(ids).toHaveLength(250);
  });

  test('refuses a page that says more follow but holds nothing, rather than asking forever', async () => {
    const endless = { ...transactionsAnswer(week, 1, [], 0), pagination: { current_page: 1, per_page: 100, total_records: 0, total_pages: 0, has_more: true } };
    const seen = capture('get', `${DEALER_URL}/transactions`, endless);
    const error = await dealer.transactions.iterate(week).toArray().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([{ field: 'pagination.has_more', rule: 'invalid_value', message: 'is true on a page without transactions' }]);
    expect(seen).toHaveLength(1);
  });

  test('keeps the refused page exactly as received in rawBody, numeric strings and all', async () => {
    const endless = { ...transactionsAnswer(week, 1, [], 0), pagination: { current_page: '1', per_page: '100', total_records: '0', total_pages: '0', has_more: 'true' } };
    capture('get', `${DEALER_URL}/transactions`, endless);
    const error = await dealer.transactions.iterate(week).toArray().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).rawBody).toBe(JSON.stringify(endless));
  });

  test('refuses a page other than the one asked for, rather than repeating records', async () => {
    const records = day('2026-03-01', 150);
    // A service that ignores `page` and sends the first page every time.
    const seen = capture('get', `${DEALER_URL}/transactions`, transactionsAnswer(week, 1, records.slice(0, 100), 150));
    const { seen: ids, error } = await collect(dealer.transactions.iterate(week));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]).toMatchObject({ field: 'pagination.current_page', message: 'is 1, but page 2 was asked for' });
    expect(ids).toHaveLength(100);
    expect(seen).toHaveLength(2);
  });

  /** An answer per page number; a test service that answers past a loop's 5th request with a 500, so old code ends too. */
  type Pager = (page: number) => object;
  const page = (number: number, records: readonly WireTransaction[], pagination: Record<string, unknown>) => ({ ...transactionsAnswer(week, number, records, 0), pagination: { current_page: number, per_page: 100, ...pagination } });
  const first250 = day('2026-03-01', 250);
  test.each<[string, Pager, number, string]>([
    ['has_more stays true while total_pages is 1', (n) => page(n, day('2026-03-01', 3), { total_records: 3, total_pages: 1, has_more: true }), 0, 'pagination.has_more'],
    ['has_more is false while total_pages says 3 pages', (n) => page(n, first250.slice(0, 100), { total_records: 250, total_pages: 3, has_more: false }), 0, 'pagination.has_more'],
    ['the service ignores page and sends the same records, numbered as asked', (n) => page(n, first250.slice(0, 100), { total_records: 250, total_pages: 3, has_more: n < 3 }), 100, 'transactions'],
    ['total_pages is beyond what total_records fill', (n) => page(n, day('2026-03-01', 5), { total_records: 5, total_pages: 1000, has_more: true }), 0, 'pagination.total_pages'],
    ['the totals grow on a later page', (n) => page(n, first250.slice((n - 1) * 100, n * 100), { total_records: 250 * n, total_pages: 3 * n, has_more: true }), 100, 'pagination.total_records'],
    ['a page holds more than 100 records', (n) => page(n, first250.slice(0, 150), { total_records: 250, total_pages: 3, has_more: true }), 0, 'transactions'],
  ])('refuses a window where %s, rather than looping or handing out records twice', async (_name, pager, handedOut, field) => {
    const seen = capture('get', `${DEALER_URL}/transactions`, (attempt, request) =>
      attempt > 5 ? new Response('loop', { status: 500 }) : pager(Number(request.url.searchParams.get('page'))),
    );
    const { seen: ids, error } = await collect(dealer.transactions.iterate(week));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.field)).toEqual([field]);
    expect(ids).toHaveLength(handedOut);
    expect(new Set(ids).size).toBe(ids.length);
    expect(seen.length).toBeLessThanOrEqual(2);
  });

  test('stops at total_pages with toArray(), every record once', async () => {
    capture('get', `${DEALER_URL}/transactions`, (_attempt, request) => {
      const n = Number(request.url.searchParams.get('page'));
      return page(n, first250.slice((n - 1) * 100, n * 100), { total_records: 250, total_pages: 3, has_more: n < 3 });
    });
    const all = await dealer.transactions.iterate(week).toArray();
    expect(all.map((transaction) => transaction.transactionId)).toEqual(first250.map((record) => record.transactionId));
  });

  test('stops with RequestAbortedError when the signal aborts between two records, and sends nothing more', async () => {
    const seen = serve(tenDays);
    const controller = new AbortController();
    const ids: string[] = [];
    const error = await (async () => {
      for await (const transaction of dealer.transactions.iterate(tenDayRange, { signal: controller.signal })) {
        ids.push(transaction.transactionId);
        if (ids.length === 5) controller.abort(new Error('enough'));
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).cause).toEqual(new Error('enough'));
    expect(ids).toHaveLength(5);
    expect(seen).toHaveLength(1);
  });

  test('stops with RequestAbortedError when the signal aborts during a request', async () => {
    const controller = new AbortController();
    let requests = 0;
    server.use(
      http.get(`${DEALER_URL}/transactions`, async () => {
        requests++;
        controller.abort();
        await delay('infinite');
      }),
    );
    const error = await dealer.transactions.iterate(tenDayRange, { signal: controller.signal }).toArray().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(requests).toBe(1);
  });

  test('sends nothing when the signal is already aborted', async () => {
    const seen = serve(tenDays);
    const error = await dealer.transactions.iterate(tenDayRange, { signal: AbortSignal.abort() }).toArray().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(seen).toHaveLength(0);
  });

  test('refuses a range whose end is before its start at once, before anything is sent', () => {
    const seen = serve([]);
    expect(() => dealer.transactions.iterate({ ...tenDayRange, start_date: '2026-03-10', end_date: '2026-03-01' })).toThrow(RequestValidationError);
    expect(() => dealer.transactions.iterate({ ...tenDayRange, end_date: '2026-02-29' })).toThrow(/end_date: must be a calendar date YYYY-MM-DD/);
    expect(seen).toHaveLength(0);
  });

  test('iterates 30 days of 2,500 transactions with exactly the window and page requests they need, losing and repeating none', async () => {
    // Records per day of 2026-03-01..30, per window: 350, 100, 200, 0, 301, 299, 450, 1, 500, 299.
    const counts = [100, 150, 100, 0, 100, 0, 50, 50, 100, 0, 0, 0, 101, 100, 100, 99, 100, 100, 150, 150, 150, 0, 0, 1, 200, 200, 100, 100, 99, 100];
    const records = march(counts);
    expect(records).toHaveLength(2500);
    const windowTotals = [350, 100, 200, 0, 301, 299, 450, 1, 500, 299];
    const windows = ['01..03', '04..06', '07..09', '10..12', '13..15', '16..18', '19..21', '22..24', '25..27', '28..30'].map((days) =>
      days.replace(/(\d\d)\.\.(\d\d)/, '2026-03-$1..2026-03-$2'),
    );
    const expected = windows.flatMap((window, index) => pagesOf(window, windowTotals[index]!));
    expect(expected).toHaveLength(29);

    const seen = serve(records);
    const ids: string[] = [];
    const dates: string[] = [];
    for await (const transaction of dealer.transactions.iterate({ wallet_id: WALLET, start_date: '2026-03-01', end_date: '2026-03-30' })) {
      ids.push(transaction.transactionId);
      dates.push(transaction.date);
    }

    expect(seen.map(asked)).toEqual(expected);
    expect(ids).toEqual(records.map((record) => record.transactionId));
    expect(new Set(ids).size).toBe(2500);
    expect(dates).toEqual([...dates].sort());
    // Records at midnight on a window's first day come once, from that window.
    expect(ids.filter((id) => id === 'TX-2026-03-13-000')).toHaveLength(1);
    expect(records.find((record) => record.transactionId === 'TX-2026-03-13-000')!.date).toBe('2026-03-13T00:00:00');
  });
});
