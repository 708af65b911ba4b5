/**
 * The callback receiver: signed deposit callbacks per second that `createCallbackReceiver` serves
 * on loopback through node:http, against a hand-written node:http receiver doing the least a
 * careful one must (spec 5.3 hash with node:crypto, constant-time compare, once-only apply), first
 * with payorch's in-memory inbox against a Set, then with the PostgreSQL inbox against a
 * hand-written BEGIN; INSERT … ON CONFLICT DO NOTHING; COMMIT on the same pool size.
 *
 * Each server runs in its own process (bench/children/receiver-server.ts); this process is the
 * load generator. Every request is a distinct, genuinely signed callback, and one in ten is a
 * redelivery of one sent before to the same server. Every answer must be 200, and each server
 * must have applied exactly the distinct callbacks it was sent, or the figure fails.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import pg from 'pg';
import { PROVIDER } from '../fixtures/accounts.js';
import { responseBodies } from '../fixtures/bodies.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { fixedLoad } from '../lib/load.js';
import type { Delivery } from '../lib/load.js';
import { startServer } from '../lib/processes.js';
import type { ServerProcess } from '../lib/processes.js';
import { format, median } from '../lib/stats.js';
import { startCluster } from '../../test/postgres/cluster.js';
import type { Cluster } from '../../test/postgres/cluster.js';

const TITLE = 'Callback receiver';
const CONCURRENCY = 16;
const POOL_SIZE = 8;
/** Every tenth request is a redelivery. */
const REDELIVERY_EVERY = 10;
const STATUSES = ['completed', 'canceled', 'expired'] as const;
const TARGETS = { memory: 0.95, postgres: 0.9 } as const;
const VARIANTS = ['payorch', 'hand'] as const;
type Variant = (typeof VARIANTS)[number];
type Store = keyof typeof TARGETS;

/** Signs callbacks as the service does and remembers what each server was sent, for redeliveries. */
class Deliveries {
  // Unique per run, so that a database reused across runs never sees a code twice.
  readonly #tag = randomBytes(3).toString('hex').toUpperCase();
  #sequence = 0;
  #pick = 1;
  readonly #sent = new Map<string, Delivery[]>();

  /** `count` deliveries for `server`: new callbacks, and every tenth a redelivery of an earlier one. */
  next(server: string, count: number): Delivery[] {
    const sent = this.#sent.get(server) ?? [];
    this.#sent.set(server, sent);
    return Array.from({ length: count }, (_, i) => {
      if (i % REDELIVERY_EVERY === REDELIVERY_EVERY - 1 && sent.length > 0) {
        // Any earlier callback, recent or old, the same sequence in every run.
        this.#pick = (Math.imul(this.#pick, 1_103_515_245) + 12_345) >>> 0;
        return sent[this.#pick % sent.length]!;
      }
      const delivery = this.#sign(this.#sequence++);
      sent.push(delivery);
      return delivery;
    });
  }

  /** How many distinct callbacks `server` was sent: what its handler must have applied. */
  distinct(server: string): number {
    return this.#sent.get(server)?.length ?? 0;
  }

  #sign(sequence: number): Delivery {
    const timestamp = Math.floor(Date.now() / 1000);
    const trackingCode = `MAN-${this.#tag}${sequence.toString(36).toUpperCase().padStart(6, '0')}-${timestamp - 600}`;
    const status = STATUSES[sequence % STATUSES.length]!;
    const hash = createHash('sha256').update(PROVIDER.apiKey + PROVIDER.secretKey + trackingCode + status + String(timestamp), 'utf8').digest('hex');
    const body = JSON.stringify({ ...(responseBodies.DepositCallback as Record<string, unknown>), tracking_code: trackingCode, status, amount: 100 + (sequence % 5000), timestamp, hash });
    return { headers: { 'content-type': 'application/json', 'x-api-key': PROVIDER.apiKey, 'x-timestamp': String(timestamp), 'x-hash': hash }, body };
  }
}

/** How many distinct callbacks the server's handler applied. */
function appliedBy(server: ServerProcess<unknown>): Promise<number> {
  return new Promise((resolve) => {
    const listener = (message: { type: string; applied?: number }) => {
      if (message.type !== 'applied') return;
      server.child.off('message', listener);
      resolve(message.applied ?? Number.NaN);
    };
    server.child.on('message', listener);
    server.child.send({ type: 'applied' });
  });
}

interface Round {
  readonly rps: number;
  /** Server CPU microseconds per request. */
  readonly cpu: number;
}

interface Settings {
  readonly rounds: number;
  /** Per round and receiver. */
  readonly requests: number;
  /** Sent to each receiver before the rounds. */
  readonly warmup: number;
}

interface Comparison {
  readonly payorch: Round[];
  readonly hand: Round[];
}

async function compare(
  store: Store,
  servers: Readonly<Record<Variant, ServerProcess<unknown>>>,
  deliveries: Deliveries,
  { rounds, requests, warmup }: Settings,
): Promise<Comparison> {
  const agents = { payorch: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }), hand: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) };
  const key = (variant: Variant) => `${store}:${variant}`;
  const load = async (variant: Variant, count: number): Promise<Round> => {
    const batch = deliveries.next(key(variant), count);
    const server = servers[variant];
    const cpuBefore = await server.cpu();
    const { ms, failures, firstFailure } = await fixedLoad(server.url, '/webhooks/payorch', batch, { concurrency: CONCURRENCY, agent: agents[variant] });
    const cpuAfter = await server.cpu();
    if (failures > 0) throw new Error(`${variant} receiver (${store}) answered ${failures} of ${count} requests with something other than 200; first: ${String(firstFailure)}`);
    return { rps: (count * 1000) / ms, cpu: (cpuAfter - cpuBefore) / count };
  };
  try {
    // Warm-up: JIT (a node:http server takes a few thousand requests to reach its steady CPU per
    // request), connections, the pool; counted in the applied check, not in the figures.
    for (const variant of VARIANTS) await load(variant, warmup);
    const results: Comparison = { payorch: [], hand: [] };
    for (let round = 0; round < rounds; round++) {
      const order: readonly Variant[] = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const variant of order) results[variant].push(await load(variant, requests));
    }
    for (const variant of VARIANTS) {
      const applied = await appliedBy(servers[variant]);
      const expected = deliveries.distinct(key(variant));
      if (applied !== expected) throw new Error(`${variant} receiver (${store}) applied ${applied} callbacks; it was sent ${expected} distinct ones`);
    }
    return results;
  } finally {
    agents.payorch.destroy();
    agents.hand.destroy();
  }
}

/** Per-round ratios payorch / hand-written, medians: each pair ran back to back. */
function summarize(results: Comparison): { payorch: Round; hand: Round; rpsRatio: number; cpuRatio: number } {
  const pick = (rounds: Round[]): Round => ({ rps: median(rounds.map((r) => r.rps)), cpu: median(rounds.map((r) => r.cpu)) });
  return {
    payorch: pick(results.payorch),
    hand: pick(results.hand),
    rpsRatio: median(results.payorch.map((r, i) => r.rps / results.hand[i]!.rps)),
    cpuRatio: median(results.payorch.map((r, i) => r.cpu / results.hand[i]!.cpu)),
  };
}

async function startPair(store: Store, args: (variant: Variant) => readonly string[]): Promise<Record<Variant, ServerProcess<unknown>>> {
  const payorch = await startServer('children/receiver-server', ['payorch', store, ...args('payorch')]);
  try {
    return { payorch, hand: await startServer('children/receiver-server', ['hand', store, ...args('hand')]) };
  } catch (error) {
    await payorch.stop();
    throw error;
  }
}

const NAMES: Record<Store, { payorch: string; hand: string }> = {
  memory: { payorch: '`createCallbackReceiver` (default in-memory inbox), `nodeHandler`', hand: 'node:http + node:crypto, dedupe in a Set' },
  postgres: { payorch: '`createCallbackReceiver` + `createPostgresInbox` (pg pool)', hand: 'node:http + node:crypto, BEGIN; a lock on the tracking code and INSERT … ON CONFLICT DO NOTHING in one statement; COMMIT (same pool size)' },
};

runFigure(async ({ quick }): Promise<FigureReport> => {
  const deliveries = new Deliveries();
  const rows: string[][] = [];
  const headlines: Headline[] = [];
  const notes: string[] = [];
  const settings: Record<Store, Settings> = quick
    ? { memory: { rounds: 2, requests: 400, warmup: 400 }, postgres: { rounds: 2, requests: 200, warmup: 200 } }
    : { memory: { rounds: 9, requests: 5000, warmup: 10_000 }, postgres: { rounds: 7, requests: 2000, warmup: 4000 } };

  const record = (store: Store, results: Comparison) => {
    const s = summarize(results);
    const met = s.rpsRatio >= TARGETS[store];
    rows.push([
      store === 'memory' ? 'in memory' : 'PostgreSQL',
      `${format.perSecond(s.hand.rps)} (${format.us(s.hand.cpu)} CPU)`,
      `**${format.perSecond(s.payorch.rps)}** (${format.us(s.payorch.cpu)} CPU)`,
      `**${format.ratio(s.rpsRatio)}**`,
      format.ratio(s.cpuRatio),
      `≥ ${format.ratio(TARGETS[store])} ${met ? 'met' : '**not met**'}`,
    ]);
    headlines.push({
      figure: `Receiver: requests/s ${store === 'memory' ? 'with the in-memory inbox' : 'with the PostgreSQL inbox'}, over a hand-written node:http receiver`,
      payorch: `${format.perSecond(s.payorch.rps)} (${format.ratio(s.rpsRatio)} of hand-written; server CPU ${format.us(s.payorch.cpu)}/request)`,
      baseline: `${format.perSecond(s.hand.rps)} (${format.us(s.hand.cpu)}/request)`,
      target: { text: `≥ ${format.ratio(TARGETS[store])}`, met },
    });
  };

  const memory = await startPair('memory', () => []);
  try {
    record('memory', await compare('memory', memory, deliveries, settings.memory));
  } finally {
    await memory.payorch.stop();
    await memory.hand.stop();
  }

  // PostgreSQL: the throwaway cluster of the tests (test/postgres/cluster.ts), or a server of yours.
  const given = process.env['PAYORCH_BENCH_DATABASE_URL'];
  let cluster: Cluster | undefined;
  let url: string | undefined = given === undefined || given === '' ? undefined : given;
  try {
    if (url === undefined) {
      cluster = await startCluster();
      url = cluster.url;
    }
    const probe = new pg.Client({ connectionString: url });
    await probe.connect();
    await probe.query('SELECT 1');
    await probe.end();
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    rows.push(['PostgreSQL', `skipped: PostgreSQL could not start or be reached (${reason})`, '', '', '', '']);
    headlines.push({ figure: 'Receiver: requests/s with the PostgreSQL inbox', payorch: 'skipped: PostgreSQL could not start or be reached', baseline: '' });
    cluster?.stop();
    cluster = undefined;
    url = undefined;
  }
  if (url !== undefined) {
    try {
      const pair = await startPair('postgres', (variant) => [url, String(POOL_SIZE), `bench_inbox_${variant}`]);
      try {
        record('postgres', await compare('postgres', pair, deliveries, settings.postgres));
      } finally {
        await pair.payorch.stop();
        await pair.hand.stop();
      }
      notes.push(
        `PostgreSQL: ${cluster === undefined ? 'the server of PAYORCH_BENCH_DATABASE_URL' : 'a throwaway local cluster (fsync off, as the tests run it)'}; each receiver has a pool of ${POOL_SIZE} and its own table. payorch's inbox runs BEGIN (with its lock_timeout), the claim (one INSERT … ON CONFLICT DO UPDATE on the tracking code's row, which returns the statuses applied before), the handler, then, in one round trip, a check that the transaction under way is the one that claimed the key (a PL/pgSQL \`DO\` block) and COMMIT (ROLLBACK for a duplicate); the hand-written one gives the same guarantees, that check apart (once per account, tracking code and status; one status of a tracking code at a time): BEGIN, one statement that takes a transaction lock on the tracking code (\`pg_advisory_xact_lock\`) and runs an INSERT … ON CONFLICT DO NOTHING into a table with PRIMARY KEY (account, tracking_code, status), COMMIT. In memory, both handlers are synchronous, so the hand-written Set applies one status of a code at a time too. PostgreSQL's own CPU is in neither CPU column.`,
      );
    } finally {
      cluster?.stop();
    }
  }

  const markdown = [
    `Each receiver runs in its own process, served by node:http on loopback; this process loads it with ${CONCURRENCY} keep-alive connections, each sending its next callback as soon as the previous answer is read. Rounds of a fixed number of requests (${settings.memory.requests} in memory, ${settings.postgres.requests} with PostgreSQL; ${settings.memory.rounds} and ${settings.postgres.rounds} rounds after a warm-up of ${settings.memory.warmup} and ${settings.postgres.warmup} requests per receiver), payorch and hand-written alternating which goes first; figures are medians, ratios are medians of each round's pair (payorch / hand-written: higher is better for requests/s, lower for CPU). Every request is a distinct deposit callback (spec 6.2) signed as spec 5.3 says, one in ten a redelivery of one sent before; every answer must be 200 and each receiver must have applied each distinct callback exactly once, or the figure fails. Both receivers have one handler that counts. Server CPU is \`process.cpuUsage()\` of the serving process per request: the load generator shares the two cores, so requests/s is bounded by both processes while CPU per request is the receiver's own cost.`,
    '',
    table(['store', 'hand-written requests/s (server CPU per request)', 'payorch', 'ratio (requests/s)', 'ratio (server CPU)', 'target (requests/s)'], rows),
    `payorch: ${NAMES.memory.payorch}; ${NAMES.postgres.payorch}. Hand-written: ${NAMES.memory.hand}; ${NAMES.postgres.hand}.`,
    '',
    ...notes.flatMap((note) => [note, '']),
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
