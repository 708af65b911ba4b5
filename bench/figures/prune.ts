/**
 * The prune beside deliveries: the 99th percentile of claims (`inbox.process`, what each delivery
 * waits for) while `prunePostgresInbox` deletes half of a large table, paired with the same claims
 * without a prune, in one run on one table. The prune raises the horizon, waits for the claims
 * under way, then deletes in batches that no claim waits for: the target is a p99 during the prune
 * no more than 100 ms above the p99 without.
 *
 * The table is seeded in SQL (generate_series): half the keys behind the default 90-day horizon,
 * half younger, interleaved in the heap as days of traffic would leave them. Claims run in this
 * process, a closed loop of concurrent workers, each claim a new key of a fresh record.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport } from '../lib/figure.js';
import { format } from '../lib/stats.js';
import { startCluster } from '../../test/postgres/cluster.js';
import type { Cluster } from '../../test/postgres/cluster.js';

const TITLE = 'Prune beside deliveries (PostgreSQL inbox)';
const CONCURRENCY = 8;
const TARGET_MS = 100;
const TABLE = 'bench_prune_inbox';

/** The `q` quantile of `values` (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

runFigure(async ({ quick }) => {
  const keys = quick ? 20_000 : 1_000_000;
  const baselineMs = quick ? 2000 : 10_000;
  const given = process.env['PAYORCH_BENCH_DATABASE_URL'];
  let cluster: Cluster | undefined;
  let url = given === undefined || given === '' ? undefined : given;
  if (url === undefined) {
    cluster = await startCluster();
    url = cluster.url;
  }
  const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY + 2 });
  pool.on('error', () => undefined);
  try {
    const { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } = await import('payorch/postgres');
    await pool.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await createPostgresInboxTable({ pool, table: TABLE });
    const seedStart = performance.now();
    const now = Math.floor(Date.now() / 1000);
    // Even rows 100 days old (behind the horizon), odd rows 10 days old; a second apart within each.
    await pool.query(
      `INSERT INTO ${TABLE} (record_time, merchant_id, tracking_code, statuses)
       SELECT r, 'bench-merchant', 'MAN-SEED' || i || '-' || r, '{completed}'
       FROM generate_series(1, $1::int) AS i, LATERAL (SELECT $2::bigint - (CASE WHEN i % 2 = 0 THEN 100 ELSE 10 END) * 86400 - i / 2 AS r) AS t`,
      [keys, now],
    );
    await pool.query(`VACUUM ANALYZE ${TABLE}`);
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const inbox = createPostgresInbox({ pool, table: TABLE });
    const tag = randomBytes(3).toString('hex').toUpperCase();
    let sequence = 0;
    /** Claims new keys from CONCURRENCY workers until `until` resolves; the latency of each, in ms. */
    async function claims(until: Promise<unknown>): Promise<number[]> {
      const latencies: number[] = [];
      let done = false;
      void until.finally(() => (done = true));
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (!done) {
            const key = { merchantId: 'bench-merchant', trackingCode: `MAN-${tag}${(sequence++).toString(36)}-${String(Math.floor(Date.now() / 1000) - 600)}`, status: 'completed' };
            const start = performance.now();
            const outcome = await inbox.process(key, () => Promise.resolve());
            latencies.push(performance.now() - start);
            if (outcome !== 'applied') throw new Error(`a new key was ${outcome}`);
          }
        }),
      );
      return latencies;
    }

    // Warm-up: connections made, the claim prepared on each.
    await claims(new Promise((resolve) => setTimeout(resolve, 1000)));
    const without = await claims(new Promise((resolve) => setTimeout(resolve, baselineMs)));
    const pruneStart = performance.now();
    const pruning = prunePostgresInbox({ pool, table: TABLE });
    const during = await claims(pruning);
    const deleted = await pruning;
    const pruneSeconds = (performance.now() - pruneStart) / 1000;
    if (deleted !== keys / 2) throw new Error(`the prune deleted ${deleted} keys, not ${keys / 2}`);

    const p99 = { without: quantile(without, 0.99), during: quantile(during, 0.99) };
    const added = p99.during - p99.without;
    const met = added <= TARGET_MS;
    const row = (name: string, values: readonly number[]): string[] => [
      name,
      format.count(values.length),
      format.ms(quantile(values, 0.5)),
      `**${format.ms(quantile(values, 0.99))}**`,
      format.ms(Math.max(...values)),
    ];
    const markdown = [
      `${format.count(keys)} keys in one inbox table, seeded in SQL in ${seedSeconds.toFixed(1)} s (generate_series, then VACUUM ANALYZE): half with records 100 days old, behind the default 90-day horizon, half 10 days old, interleaved. ${CONCURRENCY} workers in this process claim new keys back to back (\`inbox.process\` with a handler that does nothing: BEGIN, the claim, COMMIT), first for ${String(baselineMs / 1000)} s without a prune, then while \`prunePostgresInbox\` runs on the same table, from its start to its end. Latencies are per claim; p99 is the nearest rank. A throwaway local cluster (fsync off, as the tests run it), pool of ${CONCURRENCY + 2}.`,
      '',
      table(['claims', 'count', 'p50', 'p99', 'max'], [row('without a prune', without), row('during the prune', during)]),
      `The prune deleted ${format.count(deleted)} keys in ${pruneSeconds.toFixed(1)} s. p99 during it minus p99 without: **${format.ms(added)}** (target ≤ ${TARGET_MS} ms: ${met ? 'met' : '**not met**'}).`,
      '',
    ].join('\n');
    return {
      title: TITLE,
      markdown,
      headlines: [
        {
          figure: `Prune: p99 of claims while ${format.count(deleted)} of ${format.count(keys)} keys are pruned`,
          payorch: `${format.ms(p99.during)} (prune ${pruneSeconds.toFixed(1)} s)`,
          baseline: `${format.ms(p99.without)} without a prune`,
          target: { text: `≤ +${TARGET_MS} ms`, met },
        },
      ],
    } satisfies FigureReport;
  } finally {
    await pool.end();
    cluster?.stop();
  }
});
