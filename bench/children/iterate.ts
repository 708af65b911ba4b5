/**
 * One iteration run in a fresh process (so that its memory peak is its own): walks every
 * transaction of a 10-day range from the canned server, with payorch's iterator or with bare fetch,
 * and reports time and peak memory. Arguments: <server url> <payorch|bare> <records>.
 * Run with --expose-gc so that the starting heap is measured clean.
 */
import { DEALER } from '../fixtures/accounts.js';
import { addDays } from '../fixtures/transactions.js';
import { basicHash, unixSeconds } from '../lib/hash.js';
import { CHECKPOINT, RANGE, RANGE_DAYS } from '../lib/iteration.js';
import type { IterationRun } from '../lib/iteration.js';
import { payorch } from '../lib/sdk.js';

const [base = '', variant = '', recordsText = ''] = process.argv.slice(2);
const expected = Number(recordsText);
const walletId = `PERDAY-${expected / RANGE_DAYS}`;

let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  const { heapUsed, rss } = process.memoryUsage();
  if (heapUsed > peakHeap) peakHeap = heapUsed;
  if (rss > peakRss) peakRss = rss;
};

/** What a caller without payorch writes: windows of three days, pages until has_more is false. */
async function* bare(): AsyncGenerator {
  for (let start: string = RANGE.start_date; start <= RANGE.end_date; start = addDays(start, 3)) {
    const end = addDays(start, 2) < RANGE.end_date ? addDays(start, 2) : RANGE.end_date;
    for (let page = 1; ; page++) {
      const timestamp = unixSeconds();
      const query = new URLSearchParams({ wallet_id: walletId, start_date: start, end_date: end, page: String(page) });
      const response = await fetch(`${base}/api/dealer/transactions?${query.toString()}`, {
        headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-Api-Key': DEALER.apiKey, 'X-Timestamp': timestamp, 'X-Hash': basicHash(DEALER.apiKey, DEALER.secretKey, timestamp) },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { transactions: unknown[]; pagination: { has_more: boolean } };
      yield* body.transactions;
      if (!body.pagination.has_more) break;
    }
  }
}

function source(): AsyncIterable<unknown> {
  if (variant === 'bare') return bare();
  return new payorch.DealerClient({ baseUrl: base, apiKey: DEALER.apiKey, secretKey: DEALER.secretKey }).transactions.iterate({ wallet_id: walletId, ...RANGE });
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const iterable = source();
gc();
const { heapUsed: startHeap, rss: startRss } = process.memoryUsage();
peakHeap = startHeap;
peakRss = startRss;
const sampler = setInterval(sample, 1);
const start = performance.now();
let records = 0;
let peakLiveHeap = startHeap;
let gcMs = 0;
for await (const record of iterable) {
  if (record === undefined) throw new Error('undefined record');
  records++;
  if (records % 500 === 0) sample();
  if (records % CHECKPOINT === 0) {
    const gcStart = performance.now();
    gc();
    gcMs += performance.now() - gcStart;
    peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed);
  }
}
const ms = performance.now() - start - gcMs;
clearInterval(sampler);
sample();
if (records !== expected) throw new Error(`${variant}: ${records} records, expected ${expected}`);
const run: IterationRun = { ms, records, startHeap, peakHeap, peakLiveHeap, startRss, peakRss };
process.send?.(run);
