/**
 * Client overhead: the same signed request made by payorch and by bare `fetch` with a hash computed
 * by hand, against a loopback server in another process. Wall time and CPU time per call.
 */
import type { SeenRequest } from '../children/canned-server.js';
import { DEALER, PROVIDER } from '../fixtures/accounts.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { basicHash, unixSeconds } from '../lib/hash.js';
import { compareCalls, medianOf } from '../lib/measure.js';
import type { Variant } from '../lib/measure.js';
import { startServer } from '../lib/processes.js';
import { payorch } from '../lib/sdk.js';
import { format } from '../lib/stats.js';

const TITLE = 'Client overhead';
const TARGET = 1.15;
const QUERY = { wallet_id: 'W-CANNED', start_date: '2025-03-01', end_date: '2025-03-01', page: 1 } as const;

interface Pair {
  readonly call: string;
  readonly bare: Variant;
  readonly payorch: Variant;
}

/** Fails the run when what the server saw from the two variants differs beyond timestamp and hash. */
async function wireDifferences(base: string, pair: Pair): Promise<string[]> {
  const seen = async (variant: Variant): Promise<SeenRequest> => {
    await variant.call();
    return (await (await fetch(`${base}/__last`)).json()) as SeenRequest;
  };
  const bare = await seen(pair.bare);
  const sdk = await seen(pair.payorch);
  const differences: string[] = [];
  if (!bare.signatureValid || !sdk.signatureValid) differences.push('a signature did not verify');
  for (const field of ['method', 'path', 'body'] as const) {
    if (bare[field] !== sdk[field]) differences.push(`${field}: ${JSON.stringify(bare[field])} vs ${JSON.stringify(sdk[field])}`);
  }
  if (JSON.stringify(bare.query) !== JSON.stringify(Object.fromEntries(Object.keys(bare.query).map((k) => [k, sdk.query[k]]))) || Object.keys(bare.query).length !== Object.keys(sdk.query).length) {
    differences.push(`query: ${JSON.stringify(bare.query)} vs ${JSON.stringify(sdk.query)}`);
  }
  const names = new Set([...Object.keys(bare.headers), ...Object.keys(sdk.headers)]);
  for (const name of [...names].sort()) {
    if (name === 'x-timestamp' || name === 'x-hash') continue;
    if (bare.headers[name] !== sdk.headers[name]) differences.push(`header ${name}: ${String(bare.headers[name])} vs ${String(sdk.headers[name])}`);
  }
  return differences;
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  const server = await startServer('children/canned-server');
  try {
    const base = server.url;
    const sign = (credentials: { apiKey: string; secretKey: string }) => {
      const timestamp = unixSeconds();
      return { 'X-Api-Key': credentials.apiKey, 'X-Timestamp': timestamp, 'X-Hash': basicHash(credentials.apiKey, credentials.secretKey, timestamp) };
    };
    const bareJson = async (url: string, init: RequestInit): Promise<unknown> => {
      const response = await fetch(url, init);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.json();
    };

    const provider = new payorch.ProviderClient({ baseUrl: base, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey });
    const pairs: Pair[] = [
      {
        call: '`provider.welcome()`',
        bare: {
          name: 'bare',
          call: () =>
            bareJson(`${base}/api/provider/welcome`, {
              method: 'POST',
              headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...sign(PROVIDER) },
            }),
        },
        payorch: { name: 'payorch', call: () => provider.welcome() },
      },
    ];
    {
      const dealer = new payorch.DealerClient({ baseUrl: base, apiKey: DEALER.apiKey, secretKey: DEALER.secretKey });
      const query = new URLSearchParams(Object.entries(QUERY).map(([k, v]) => [k, String(v)])).toString();
      pairs.push({
        call: '`dealer.transactions.list()` (one page, 100 records, 23 KB)',
        bare: {
          name: 'bare',
          call: () =>
            bareJson(`${base}/api/dealer/transactions?${query}`, {
              method: 'GET',
              headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...sign(DEALER) },
            }),
        },
        payorch: { name: 'payorch', call: () => dealer.transactions.list(QUERY) },
      });
    }

    const settings = quick ? { rounds: 5, calls: 50, warmup: 100 } : { rounds: 31, calls: 100, warmup: 600 };
    const rows: string[][] = [];
    const headlines: Headline[] = [];
    const notes: string[] = [];
    for (const pair of pairs) {
      const differences = await wireDifferences(base, pair);
      if (differences.length > 0) notes.push(`${pair.call}: the two requests differ on the wire: ${differences.join('; ')}.`);
      const timings = await compareCalls([pair.bare, pair.payorch], settings);
      const wall = { bare: medianOf(timings, 'bare', 'wall'), payorch: medianOf(timings, 'payorch', 'wall') };
      const cpu = { bare: medianOf(timings, 'bare', 'cpu'), payorch: medianOf(timings, 'payorch', 'cpu') };
      const ratio = wall.payorch / wall.bare;
      rows.push([
        pair.call,
        `${format.us(wall.bare)} ${format.spread(timings.get('bare')!.wall)}`,
        `${format.us(wall.payorch)} ${format.spread(timings.get('payorch')!.wall)}`,
        `**${format.ratio(ratio)}**`,
        format.us(cpu.bare),
        format.us(cpu.payorch),
        `**${format.us(cpu.payorch - cpu.bare)}**`,
      ]);
      headlines.push({
        figure: `${TITLE}: ${pair.call}`,
        payorch: `${format.us(wall.payorch)}/call`,
        baseline: `${format.us(wall.bare)}/call (fetch)`,
        ratio,
        target: { text: `< ${TARGET}x`, met: ratio < TARGET },
      });
    }

    const markdown = [
      `One request in flight at a time against a loopback node:http server in another process, which checks X-Api-Key, X-Timestamp and X-Hash and answers canned JSON. The baseline is global \`fetch\` with the same headers, the basic hash computed with node:crypto, \`response.ok\` checked and \`response.json()\` read; payorch adds request validation, the response schema, retries, the deadline and typed errors. ${settings.rounds} rounds of ${settings.calls} calls per variant, alternating which goes first, after ${settings.warmup} warm-up calls; medians of the rounds (± half the interquartile range). CPU is \`process.cpuUsage()\` of the client process divided by the calls.`,
      '',
      table(['call', 'bare fetch', 'payorch', 'ratio (target < 1.15x)', 'CPU bare', 'CPU payorch', 'CPU added by payorch'], rows),
      notes.length === 0 ? 'Both variants put the same method, path, query, headers (apart from X-Timestamp and X-Hash, which change every second) and body on the wire, and both signatures verified.' : notes.join('\n\n'),
      '',
    ].join('\n');
    return { title: TITLE, markdown, headlines };
  } finally {
    await server.stop();
  }
});
