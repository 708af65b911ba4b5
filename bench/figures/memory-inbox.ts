/**
 * What the default inbox holds: heap per key of the in-memory inbox behind `createCallbackReceiver`,
 * filled with distinct genuine callbacks, against a bare `Set` of the same key strings; and what
 * that means for the defaults (100,000 keys kept 30 days): the memory at the limit and the daily
 * volume it carries before new callbacks are refused. Each row is a fresh `node --expose-gc`
 * process (bench/children/inbox-fill.ts).
 */
import { runFigure, table } from '../lib/figure.js';
import type { Headline } from '../lib/figure.js';
import { format, median } from '../lib/stats.js';
import { runChild } from '../lib/processes.js';

const TITLE = 'In-memory inbox: memory per key';
const DEFAULT_MAX_KEYS = 100_000;
const RETENTION_DAYS = 30;

interface Fill {
  readonly heapBytes: number;
  readonly rssBytes: number;
}

runFigure(async ({ quick }) => {
  const sizes = quick ? [10_000] : [10_000, DEFAULT_MAX_KEYS];
  const runs = quick ? 1 : 3;
  const rows: string[][] = [];
  const headlines: Headline[] = [];
  for (const keys of sizes) {
    const measured: Record<'payorch' | 'set', Fill[]> = { payorch: [], set: [] };
    for (let run = 0; run < runs; run++) {
      for (const variant of ['payorch', 'set'] as const) {
        measured[variant].push(await runChild<Fill>('children/inbox-fill', [variant, String(keys)], ['--expose-gc']));
      }
    }
    const perKey = (variant: 'payorch' | 'set', field: keyof Fill) => median(measured[variant].map((fill) => fill[field] / keys));
    const heap = perKey('payorch', 'heapBytes');
    const setHeap = perKey('set', 'heapBytes');
    rows.push([
      format.count(keys),
      `${heap.toFixed(0)} B`,
      format.mib(heap * keys),
      `${perKey('payorch', 'rssBytes').toFixed(0)} B`,
      `${setHeap.toFixed(0)} B`,
    ]);
    if (keys === sizes.at(-1)) {
      headlines.push({ figure: `${TITLE}: heap per key, ${format.count(keys)} keys`, payorch: `${heap.toFixed(0)} B`, baseline: `${setHeap.toFixed(0)} B (a bare Set of the same keys)`, ratio: heap / setHeap });
    }
  }
  const markdown = [
    `Distinct, genuinely signed deposit callbacks sent one at a time through \`receiver.receive\` of a \`createCallbackReceiver\` with its default inbox (\`createMemoryInbox()\`), each answered 200; the tracking codes have the spec's shape (\`MAN-\` + 8 characters + Unix seconds), the account is the API key. The heap is \`process.memoryUsage().heapUsed\` after five full collections (\`node --expose-gc\`, \`gc()\`) before the first callback and after the last, in a fresh process per row, after 2,000 warm-up callbacks on another receiver that is dropped before the measure; divided by the keys. RSS is the process's growth over the same span (it includes the heap's free room and is not returned at once). The baseline adds the same key strings (account, tracking code and status) to a bare \`Set\`: the least a once-only store in memory can hold. Medians of ${runs} process${runs === 1 ? '' : 'es'} per variant.`,
    '',
    table(['keys', 'heap per key', 'heap for these keys', 'RSS growth per key', 'bare Set per key'], rows),
    `With the defaults (\`maxKeys\` ${format.count(DEFAULT_MAX_KEYS)}, \`retentionSeconds\` ${RETENTION_DAYS} days) a receiver carries about ${format.count(DEFAULT_MAX_KEYS / RETENTION_DAYS)} callbacks a day (\`maxKeys\` / retention in days) before its inbox is full of keys it cannot forget yet and new callbacks are answered 500.`,
    '',
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
