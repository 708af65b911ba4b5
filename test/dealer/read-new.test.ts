import { describe, expect, test } from 'vitest';
import { DealerClient, RequestValidationError } from '../../src/index.js';
import { BASE_URL, DEALER } from '../helpers/wire.js';

// dealer.transactions.readNew against a history that changes between runs and while it is read:
// a fetch of the test's own, serving spec 4.13's answer from a list the test changes, oldest
// first, 100 a page, through the whole client (signing, transport, parsing).

const DAY_MS = 86_400_000;
const WALLET = 'WLT-A1';

interface Row {
  readonly id: string;
  readonly at: number;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A history service: `rows` may be changed at any time, `onPage` runs before each page is answered. */
function history(rows: Row[], onPage: (page: number, start: string) => void = () => undefined) {
  let requests = 0;
  const fetch = (input: Request | URL | string): Promise<Response> => {
    requests++;
    const url = new URL(input instanceof Request ? input.url : String(input));
    const query = (name: string) => url.searchParams.get(name) ?? '';
    const page = Number(query('page') || '1');
    onPage(page, query('start_date'));
    const from = Date.parse(`${query('start_date')}T00:00:00Z`);
    const to = Date.parse(`${query('end_date')}T00:00:00Z`) + DAY_MS;
    const inRange = rows.filter((row) => row.at >= from && row.at < to).sort((a, b) => a.at - b.at);
    const totalPages = Math.ceil(inRange.length / 100);
    const body = {
      success: true,
      wallet_id: query('wallet_id'),
      date_range: { start_date: query('start_date'), end_date: query('end_date') },
      pagination: { current_page: page, per_page: 100, total_records: inRange.length, total_pages: totalPages, has_more: page < totalPages },
      transactions: inRange.slice((page - 1) * 100, page * 100).map((row) => ({
        transactionId: row.id,
        amount: '10.00',
        type: 'incoming',
        description: 'FAST',
        senderName: 'Ada Yılmaz',
        senderIban: 'TR330006100519786457841326',
        date: new Date(row.at).toISOString().slice(0, 19),
      })),
    };
    return Promise.resolve(Response.json(body));
  };
  return { dealer: new DealerClient({ baseUrl: BASE_URL, ...DEALER, fetch, maxRetries: 0 }), requests: () => requests };
}

function rowsOn(prefix: string, count: number, startMs: number, stepMs: number): Row[] {
  return Array.from({ length: count }, (_, index) => ({ id: `${prefix}${String(index).padStart(4, '0')}`, at: startMs + index * stepMs }));
}

const ids = (list: readonly { transactionId: string }[]) => list.map((transaction) => transaction.transactionId);

describe('dealer.transactions.readNew', () => {
  test('hands out each transaction once across runs, window edges and pages that shift while read', async () => {
    const now = Date.now();
    const midnight = Math.floor(now / DAY_MS) * DAY_MS;
    // Four days back: two windows of 3 days, three pages today.
    const rows = [...rowsOn('OLD', 30, midnight - 4 * DAY_MS, 3_600_000), ...rowsOn('TDY', 250, midnight, 1000)];
    let shifted = false;
    const { dealer } = history(rows, (page, start) => {
      // While page 2 of today's window is read, 7 records dated earlier today appear: every later
      // record moves 7 places down, across a page edge.
      if (page === 2 && start === day(midnight - DAY_MS) && !shifted) {
        shifted = true;
        rows.push(...rowsOn('LATE', 7, midnight + 10, 1));
      }
    });

    const first = await dealer.transactions.readNew({ wallet_id: WALLET, start_date: day(midnight - 4 * DAY_MS) });
    expect(shifted).toBe(true);
    expect(new Set(ids(first.transactions)).size).toBe(first.transactions.length);
    rows.push(...rowsOn('NEW', 3, now - 1000, 1));
    const second = await dealer.transactions.readNew({ wallet_id: WALLET, cursor: first.cursor, start_date: '2000-01-01' });
    const third = await dealer.transactions.readNew({ wallet_id: WALLET, cursor: second.cursor });

    const handedOut = [...ids(first.transactions), ...ids(second.transactions), ...ids(third.transactions)];
    expect(handedOut.toSorted()).toEqual(rows.map((row) => row.id).toSorted());
    // The shift hid the late records from the first run (they came before the page it was on); the
    // second run's look-back finds them.
    expect(ids(first.transactions).filter((id) => id.startsWith('LATE'))).toEqual([]);
    expect(ids(second.transactions).toSorted()).toEqual(['LATE0000', 'LATE0001', 'LATE0002', 'LATE0003', 'LATE0004', 'LATE0005', 'LATE0006', 'NEW0000', 'NEW0001', 'NEW0002']);
    expect(third.transactions).toEqual([]);
  });

  test('is at least once: a run whose cursor was not stored (a crash) is handed out again by the next', async () => {
    const now = Date.now();
    const rows = rowsOn('TX', 5, now - 60_000, 1000);
    const { dealer } = history(rows);
    const first = await dealer.transactions.readNew({ wallet_id: WALLET });
    rows.push(...rowsOn('MORE', 2, now - 1000, 1));
    const lost = await dealer.transactions.readNew({ wallet_id: WALLET, cursor: first.cursor });
    const again = await dealer.transactions.readNew({ wallet_id: WALLET, cursor: first.cursor });
    expect(ids(lost.transactions)).toEqual(['MORE0000', 'MORE0001']);
    expect(ids(again.transactions)).toEqual(ids(lost.transactions));
    expect(ids(first.transactions)).toHaveLength(5);
  });

  test.each([
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ lookBackSeconds: -1 }, 'lookBackSeconds'],
    [{ lookBackSeconds: 2_592_001 }, 'lookBackSeconds'],
    [{ start_date: '2026-02-30' }, 'start_date'],
    [{ wallet_id: ' ' }, 'wallet_id'],
  ])('refuses %o before sending, naming it', async (bad, field) => {
    const { dealer, requests } = history([]);
    const error: unknown = await dealer.transactions.readNew({ wallet_id: WALLET, ...bad }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.field).toBe(field);
    expect(requests()).toBe(0);
  });

  test("refuses another wallet's cursor", async () => {
    const { dealer } = history([]);
    const { cursor } = await dealer.transactions.readNew({ wallet_id: WALLET });
    await expect(dealer.transactions.readNew({ wallet_id: 'WLT-B2', cursor })).rejects.toThrow(/cursor: belongs to another wallet_id/);
  });
});
