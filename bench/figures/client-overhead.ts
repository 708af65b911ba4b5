/**
 * Client overhead: the same signed request made by payorch and by bare `fetch` with a hash computed
 * by hand, against a loopback server in another process (wall and CPU time per call), and against
 * a stub fetch that answers at once (the CPU the SDK itself adds, without network noise).
 */
import type { SeenRequest } from '../children/canned-server.js';
import { DEALER, PROVIDER } from '../fixtures/accounts.js';
import { welcome } from '../fixtures/bodies.js';
import { transactionsPage } from '../fixtures/transactions.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { basicHash, unixSeconds } from '../lib/hash.js';
import { compareCalls, medianOf, paired } from '../lib/measure.js';
import type { Variant } from '../lib/measure.js';
import { runChild, startServer } from '../lib/processes.js';
import ky from 'ky';
import { payorch } from '../lib/sdk.js';
import { format } from '../lib/stats.js';

const TITLE = 'Client overhead';
const TARGET = 1.3;
/** CPU payorch may add per `welcome()` beyond ky's own, with a stub fetch. */
// At most 10 µs of payorch's own CPU per call, beyond ky's.
const OWN_CPU_TARGET_US = 10;
const QUERY = { wallet_id: 'W-CANNED', start_date: '2025-03-01', end_date: '2025-03-01', page: 1 } as const;
const CANNED_PAGE = JSON.stringify(transactionsPage(QUERY.wallet_id, QUERY.start_date, QUERY.end_date, 1, 100));

interface Pair {
  readonly call: string;
  readonly bare: Variant;
  readonly payorch: Variant;
  /** The same request through ky alone, called as payorch's transport calls it: ky's own share. */
  readonly ky: Variant;
}

/** What the server saw from the two variants, where it differs beyond timestamp and hash. */
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
  const names = new Set([...Object.keys(bare.query), ...Object.keys(sdk.query)]);
  for (const name of names) {
    if (bare.query[name] !== sdk.query[name]) differences.push(`query ${name}: ${String(bare.query[name])} vs ${String(sdk.query[name])}`);
  }
  for (const name of new Set([...Object.keys(bare.headers), ...Object.keys(sdk.headers)])) {
    if (name === 'x-timestamp' || name === 'x-hash') continue;
    if (bare.headers[name] !== sdk.headers[name]) differences.push(`header ${name}: ${String(bare.headers[name])} vs ${String(sdk.headers[name])}`);
  }
  return differences;
}

function signed(credentials: { apiKey: string; secretKey: string }): Record<string, string> {
  const timestamp = unixSeconds();
  return {
    Accept: 'application/json',
    'Content-Type': 'application/json',
    'X-Api-Key': credentials.apiKey,
    'X-Timestamp': timestamp,
    'X-Hash': basicHash(credentials.apiKey, credentials.secretKey, timestamp),
  };
}

/** What a caller without payorch writes: fetch, check the status, read the JSON. */
async function bareJson(fetcher: typeof fetch, url: string, init: RequestInit): Promise<unknown> {
  const response = await fetcher(url, init);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

/**
 * ky asked for what payorch's transport asks of it (src/internal/transport.ts): the same options,
 * no hook, the unsigned headers given to ky and the two signing headers set on ky's Request in the
 * fetch ky calls, then the body read as text and parsed. What payorch adds beyond this is its own.
 */
const transportKy = ky.create({ timeout: false, retry: 0, throwHttpErrors: false, redirect: 'manual' });
async function kyJson(fetcher: typeof fetch, url: string, method: 'GET' | 'POST', headers: Record<string, string>): Promise<unknown> {
  const { 'X-Timestamp': timestamp = '', 'X-Hash': hash = '', ...unsigned } = headers;
  const signal = new AbortController().signal;
  const response = await transportKy(url, {
    method,
    headers: unsigned,
    fetch: (input, init) => {
      const request = input as Request;
      request.headers.set('X-Timestamp', timestamp);
      request.headers.set('X-Hash', hash);
      return fetcher(request, { ...init, signal });
    },
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return JSON.parse(await response.text()) as unknown;
}

/**
 * The calls measured, made through `fetcher` (the global fetch, or a stub). payorch gets it as its
 * `fetch` option only for a stub: against the server, its clients are made as a user makes them,
 * without one (the transport calls the global fetch more cheaply than a custom one, which it must
 * hand ky's whole Request).
 */
function pairs(base: string, fetcher: typeof fetch, label: string, custom: boolean): Pair[] {
  const own = custom ? { fetch: fetcher } : {};
  const provider = new payorch.ProviderClient({ baseUrl: base, apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, ...own });
  const dealer = new payorch.DealerClient({ baseUrl: base, apiKey: DEALER.apiKey, secretKey: DEALER.secretKey, ...own });
  const query = new URLSearchParams(Object.entries(QUERY).map(([name, value]) => [name, String(value)])).toString();
  return [
    {
      call: `\`provider.welcome()\`${label}`,
      bare: { name: 'bare', call: () => bareJson(fetcher, `${base}/api/provider/welcome`, { method: 'POST', headers: signed(PROVIDER) }) },
      payorch: { name: 'payorch', call: () => provider.welcome() },
      ky: { name: 'ky', call: () => kyJson(fetcher, `${base}/api/provider/welcome`, 'POST', signed(PROVIDER)) },
    },
    {
      call: `\`dealer.transactions.list()\`, one page of 100 records (${format.bytes(Buffer.byteLength(CANNED_PAGE))})${label}`,
      bare: { name: 'bare', call: () => bareJson(fetcher, `${base}/api/dealer/transactions?${query}`, { method: 'GET', headers: signed(DEALER) }) },
      payorch: { name: 'payorch', call: () => dealer.transactions.list(QUERY) },
      ky: { name: 'ky', call: () => kyJson(fetcher, `${base}/api/dealer/transactions?${query}`, 'GET', signed(DEALER)) },
    },
  ];
}

/** A fetch that answers every request at once with the canned body for its path. */
function stubFetch(input: string | URL | Request): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const body = url.includes('/transactions') ? CANNED_PAGE : JSON.stringify(welcome);
  return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }));
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  const server = await startServer('children/canned-server');
  try {
    // As the goal is judged from outside: rounds of 200 calls per variant, interleaved, the order
    // rotated each round. Shorter rounds let one variant's garbage be collected during the other's
    // calls, which flatters the heavier one (bench/findings.md).
    const settings = quick ? { rounds: 3, calls: 200, warmup: 200 } : { rounds: 9, calls: 200, warmup: 600 };
    const rows: string[][] = [];
    const headlines: Headline[] = [];
    const notes: string[] = [];
    // Read at call time, as payorch does, so that both variants use the same fetch (msw or any other patch).
    const globalFetch: typeof fetch = (input, init) => fetch(input, init);
    for (const pair of pairs(server.url, globalFetch, '', false)) {
      const differences = await wireDifferences(server.url, pair);
      if (differences.length > 0) notes.push(`${pair.call}: the two requests differ on the wire: ${differences.join('; ')}.`);
      const timings = await compareCalls([pair.bare, pair.payorch], settings);
      const wall = { bare: medianOf(timings, 'bare', 'wall'), payorch: medianOf(timings, 'payorch', 'wall') };
      const cpu = { bare: medianOf(timings, 'bare', 'cpu'), payorch: medianOf(timings, 'payorch', 'cpu') };
      const ratio = paired(timings, 'payorch', 'bare', 'wall', 'ratio');
      rows.push([
        pair.call,
        `${format.us(wall.bare)} ${format.spread(timings.get('bare')!.wall)}`,
        `${format.us(wall.payorch)} ${format.spread(timings.get('payorch')!.wall)}`,
        `**${format.ratio(ratio)}**`,
        format.us(cpu.bare),
        format.us(cpu.payorch),
        `**${format.us(paired(timings, 'payorch', 'bare', 'cpu', 'difference'))}**`,
      ]);
      headlines.push({ figure: `${TITLE}: ${pair.call.replace(/, one page.*/, '')}`, payorch: `${format.us(wall.payorch)}/call`, baseline: `${format.us(wall.bare)}/call (fetch)`, ratio, target: { text: `≤ ${TARGET}x`, met: ratio <= TARGET } });
    }

    const stubSettings = quick ? { rounds: 5, calls: 200, warmup: 200 } : { rounds: 21, calls: 1_000, warmup: 2_000 };
    const stubRows: string[][] = [];
    for (const [index, pair] of pairs(server.url, stubFetch, ', stub fetch', true).entries()) {
      const timings = await compareCalls([pair.bare, pair.ky, pair.payorch], stubSettings);
      const cpu = { bare: medianOf(timings, 'bare', 'cpu'), ky: medianOf(timings, 'ky', 'cpu'), payorch: medianOf(timings, 'payorch', 'cpu') };
      const own = paired(timings, 'payorch', 'ky', 'cpu', 'difference');
      stubRows.push([
        pair.call,
        format.us(cpu.bare),
        format.us(cpu.ky),
        format.us(cpu.payorch),
        `**${format.us(paired(timings, 'payorch', 'bare', 'cpu', 'difference'))}**`,
        format.us(paired(timings, 'ky', 'bare', 'cpu', 'difference')),
        `**${format.us(own)}**`,
      ]);
      if (index === 0) {
        headlines.push({ figure: `${TITLE}: payorch's own CPU per \`welcome()\` beyond ky, stub fetch`, payorch: format.us(own), baseline: `ky alone adds ${format.us(paired(timings, 'ky', 'bare', 'cpu', 'difference'))} to bare fetch`, target: { text: `≤ ${OWN_CPU_TARGET_US} µs`, met: own <= OWN_CPU_TARGET_US } });
      }
    }

    const retainedCalls = quick ? 2_000 : 20_000;
    const retained: string[][] = [];
    for (const [variant, label] of [
      ['bare', 'bare (stub fetch, JSON read)'],
      ['payorch', '`provider.welcome()`'],
      ['payorch-signal', "`provider.welcome({ signal })`, one long-lived signal"],
    ] as const) {
      const { retainedBytes } = await runChild<{ retainedBytes: number }>('children/retained', [variant, String(retainedCalls)], ['--expose-gc']);
      retained.push([label, format.mib(retainedBytes), `${(retainedBytes / retainedCalls).toFixed(0)} B`]);
    }

    const markdown = [
      `One request in flight at a time against a loopback node:http server in another process, which checks X-Api-Key, X-Timestamp and X-Hash and answers canned JSON. The baseline is global \`fetch\` with the same headers, the basic hash computed with node:crypto, \`response.ok\` checked and \`response.json()\` read; payorch adds request validation, the response schema, the retry policy, the deadline and typed errors. ${settings.rounds} rounds of ${settings.calls} calls per variant, alternating which goes first, after ${settings.warmup} warm-up calls. Times are medians of the rounds (± half the interquartile range); the ratio and the CPU added are medians of each round's pair (payorch over, or minus, the bare run next to it), which keeps a load that comes and goes on a shared machine out of the comparison. CPU is \`process.cpuUsage()\` of the client process divided by the calls.`,
      '',
      table(['call', 'bare fetch', 'payorch', 'ratio (target ≤ 1.30x)', 'CPU bare', 'CPU payorch', 'CPU added by payorch'], rows),
      notes.length === 0 ? 'Both variants put the same method, path, query, headers (apart from X-Timestamp and X-Hash, which change every second) and body on the wire, and both signatures verified.\n' : `${notes.join('\n\n')}\n`,
      `The same calls through a stub \`fetch\` that answers at once with the same body (payorch gets it as its \`fetch\` option, the baseline calls it directly): the CPU payorch itself adds per call, free of network, undici and scheduling noise. A third variant makes the same request through ky alone, created and called exactly as payorch's transport does (\`timeout: false\`, \`retry: 0\`, \`throwHttpErrors: false\`, \`redirect: 'manual'\`, the signing headers set on ky's Request and the deadline's signal given in the fetch ky calls) and parses the JSON: payorch minus that variant is payorch's own work beyond ky (signing, validation, the schema, the deadline, the retry policy, typed errors). ${stubSettings.rounds} rounds of ${stubSettings.calls} calls; medians; differences are paired per round.`,
      '',
      table(['call', 'CPU bare', 'CPU ky alone', 'CPU payorch', 'added by payorch', 'of which ky', "payorch's own beyond ky"], stubRows),
      `Heap still in use after ${format.count(retainedCalls)} calls through the stub fetch, each call complete, after a full collection (a fresh \`node --expose-gc\` process per row): what finished calls leave behind while their deadline's timer is still pending.`,
      '',
      table(['calls', 'heap retained', 'per call'], retained),
    ].join('\n');
    return { title: TITLE, markdown, headlines };
  } finally {
    await server.stop();
  }
});
