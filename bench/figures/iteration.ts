/**
 * Iteration: every transaction of a 10-day range through `dealer.transactions.iterate`, at two
 * sizes, each run in its own process; time and peak memory against a bare fetch loop.
 */
import { CHECKPOINT } from '../lib/iteration.js';
import type { IterationRun } from '../lib/iteration.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { runChild, startServer } from '../lib/processes.js';
import { format, median } from '../lib/stats.js';

const TITLE = 'Iteration';

runFigure(async ({ quick }): Promise<FigureReport> => {
  const sizes = quick ? [2_000, 20_000] : [10_000, 100_000];
  const runs = quick ? 1 : 3;
  const variants = ['bare', 'payorch'] as const;
  const server = await startServer('children/canned-server');
  const results = new Map<string, IterationRun[]>();
  try {
    for (let run = 0; run < runs; run++) {
      for (const size of sizes) {
        for (const variant of variants) {
          const key = `${variant} ${size}`;
          const result = await runChild<IterationRun>('children/iterate', [server.url, variant, String(size)], ['--expose-gc']);
          results.set(key, [...(results.get(key) ?? []), result]);
        }
      }
    }
  } finally {
    await server.stop();
  }

  const summary = (variant: string, size: number) => {
    const list = results.get(`${variant} ${size}`) ?? [];
    return {
      ms: median(list.map((r) => r.ms)),
      liveHeap: median(list.map((r) => r.peakLiveHeap)),
      peakHeap: median(list.map((r) => r.peakHeap)),
      peakRss: median(list.map((r) => r.peakRss)),
    };
  };
  const rows: string[][] = [];
  const headlines: Headline[] = [];
  for (const size of sizes) {
    const bare = summary('bare', size);
    const sdk = summary('payorch', size);
    for (const [name, s] of [['bare fetch loop', bare], ['payorch `iterate()`', sdk]] as const) {
      rows.push([format.count(size), name, format.ms(s.ms), format.perSecond((size * 1000) / s.ms), format.mib(s.liveHeap), format.mib(s.peakHeap), format.mib(s.peakRss)]);
    }
    headlines.push({ figure: `${TITLE}: ${format.count(size)} records, time`, payorch: format.ms(sdk.ms), baseline: `${format.ms(bare.ms)} (fetch loop)`, ratio: sdk.ms / bare.ms });
  }
  const [small, large] = sizes as [number, number];
  const flat = (variant: string) => summary(variant, large).liveHeap / summary(variant, small).liveHeap;
  headlines.push({
    figure: `${TITLE}: live heap, ${format.count(large)} vs ${format.count(small)} records`,
    payorch: `${format.mib(summary('payorch', large).liveHeap)} vs ${format.mib(summary('payorch', small).liveHeap)}`,
    baseline: `${format.mib(summary('bare', large).liveHeap)} vs ${format.mib(summary('bare', small).liveHeap)} (fetch loop)`,
    ratio: flat('payorch'),
    target: { text: 'flat (< 1.25x)', met: flat('payorch') < 1.25 },
  });

  const markdown = [
    `Every transaction of a 10-day range (windows of at most three days, pages of 100: spec 4.13, 7.4, 8), served by the canned loopback server in another process, consumed one record at a time. Each run is a fresh \`node --expose-gc\` process. The live heap is \`heapUsed\` right after a forced full collection every ${format.count(CHECKPOINT)} records (the highest reading; it starts at the heap before the first request): what the walk keeps alive, and what must not grow with the records. Peak heapUsed (garbage included) and RSS are sampled every millisecond and every 500 records. The time excludes the forced collections. ${runs === 1 ? 'One run' : `${runs} runs`} per size and variant; medians.`,
    '',
    table(['records', 'variant', 'time', 'records/s', 'live heap (max)', 'peak heapUsed', 'peak RSS'], rows),
    `Live heap at ${format.count(large)} records over ${format.count(small)}: payorch ${format.ratio(flat('payorch'))}, bare loop ${format.ratio(flat('bare'))} (1.00x is perfectly flat).`,
    '',
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
