/**
 * Deferred callbacks under a steady load (pg-boss): a receiver whose `enqueue` is payorch/pg-boss's,
 * and two worker processes set up as docs/deferred.md shows, with every default
 * (bench/children/pgboss-worker.ts), on one PostgreSQL on loopback. Callbacks arrive at a fixed
 * rate for a fixed time: new deposits, redeliveries of some already answered, and forgeries. One
 * worker is killed (SIGKILL) with jobs in hand a third of the way in; the other goes on alone.
 *
 * It reports what the receiver accepted and how fast it answered, whether every accepted deposit
 * was applied exactly once (the handler writes each credit into a table), how large the backlog
 * grew, how long after the killed worker died its jobs were applied, and how long the backlog
 * took to drain once the load stopped. Bounded: a fixed count of requests, and a drain deadline.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { PROVIDER } from '../fixtures/accounts.js';
import { responseBodies } from '../fixtures/bodies.js';
import { runFigure, table } from '../lib/figure.js';
import { send } from '../lib/load.js';
import type { Delivery } from '../lib/load.js';
import { startServer } from '../lib/processes.js';
import type { ServerProcess } from '../lib/processes.js';
import { format } from '../lib/stats.js';
import { startCluster } from '../../test/postgres/cluster.js';

const TITLE = 'Deferred callbacks under load (pg-boss soak)';
const QUEUE = 'payorch-callbacks';
const DRAIN_DEADLINE_MS = 5 * 60_000;

const tag = randomBytes(3).toString('hex').toUpperCase();
let sequence = 0;
function deposit(forged: boolean): Delivery & { code: string } {
  const timestamp = Math.floor(Date.now() / 1000);
  const code = `MAN-${tag}${(sequence++).toString(36).toUpperCase().padStart(6, '0')}-${timestamp - 600}`;
  const hash = createHash('sha256').update(PROVIDER.apiKey + (forged ? 'not-the-secret' : PROVIDER.secretKey) + code + 'completed' + String(timestamp), 'utf8').digest('hex');
  const body = JSON.stringify({ ...(responseBodies.DepositCallback as Record<string, unknown>), tracking_code: code, status: 'completed', amount: 100, timestamp, hash });
  return { code, headers: { 'content-type': 'application/json', 'x-api-key': PROVIDER.apiKey, 'x-timestamp': String(timestamp), 'x-hash': hash }, body };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

runFigure(async ({ quick }) => {
  const { createCallbackReceiver } = await import('payorch/webhooks');
  const { createPostgresInboxTable, createPostgresInbox } = await import('payorch/postgres');
  const { createPgBossDeadLetterTable, createPgBossQueue } = await import('payorch/pg-boss');
  const settings = quick ? { rate: 50, seconds: 20 } : { rate: 100, seconds: 90 };
  const cluster = await startCluster();
  const pool = new pg.Pool({ connectionString: cluster.url });
  pool.on('error', () => undefined);
  const boss = new PgBoss({ connectionString: cluster.url });
  boss.on('error', () => undefined);
  const workers: ServerProcess<number>[] = [];
  try {
    await boss.start();
    await createPostgresInboxTable({ pool });
    await createPgBossDeadLetterTable({ pool });
    await pool.query('CREATE TABLE soak_ledger (tracking_code text NOT NULL, worker text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())');
    const queue = createPgBossQueue({ boss, pool });
    const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool }), enqueue: queue.enqueue, logLevel: 'off' });
    receiver.on('deposit.completed', () => undefined);
    const server = createServer((request, response) => void receiver.nodeHandler(request, response));
    const url = await new Promise<string>((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      });
    });
    for (const name of ['a', 'b']) workers.push(await startServer<number>('children/pgboss-worker', [cluster.url, name]));

    // The load: one request every 1/rate s, whatever the answers take. Every 20th a redelivery of
    // a deposit answered before, every 50th a forgery (a hash made with another secret).
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const accepted = new Set<string>();
    const answered: Delivery[] = [];
    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    let forgedAccepted = 0;
    const backlog: number[] = [];
    const sampling = setInterval(() => {
      void pool.query<{ count: number }>("SELECT count(*)::int AS count FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry')", [QUEUE]).then(({ rows }) => backlog.push(rows[0]?.count ?? 0), () => undefined);
    }, 1000);
    const total = settings.rate * settings.seconds;
    const killAt = Math.floor(total / 3);
    let killedAt = 0;
    let stuck: string[] = [];
    const inFlight: Promise<void>[] = [];
    const started = performance.now();
    for (let index = 0; index < total; index += 1) {
      const due = started + (index * 1000) / settings.rate;
      const wait = due - performance.now();
      if (wait > 1) await pause(wait);
      if (index === killAt) {
        // Out of `workers`: a dead process has nothing left to stop.
        workers.shift()?.child.kill('SIGKILL');
        killedAt = performance.now();
        // What the killed worker held stays active: the other settles its own in milliseconds.
        setTimeout(() => {
          void pool.query<{ id: string }>("SELECT id FROM pgboss.job WHERE name = $1 AND state = 'active'", [QUEUE]).then(({ rows }) => (stuck = rows.map((row) => row.id)));
        }, 2000);
      }
      const kind = index % 50 === 13 ? 'forged' : index % 20 === 7 && answered.length > 0 ? 'again' : 'new';
      const delivery = kind === 'again' ? (answered[(index * 7) % answered.length] as Delivery & { code: string }) : deposit(kind === 'forged');
      const sentAt = performance.now();
      inFlight.push(
        send({ url, method: 'POST', path: '/', body: delivery.body, headers: () => delivery.headers }, agent).then(({ status }) => {
          latencies.push(performance.now() - sentAt);
          statuses.set(`${kind} ${status}`, (statuses.get(`${kind} ${status}`) ?? 0) + 1);
          if (status !== 200) return;
          if (kind === 'forged') forgedAccepted += 1;
          if (kind === 'new') {
            accepted.add((delivery as { code: string }).code);
            answered.push(delivery);
          }
        }, (error: unknown) => {
          // A connection the server closed (it closes after a refusal): counted, not retried.
          const key = `${kind} ${(error as { code?: string }).code ?? 'error'}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }),
      );
    }
    await Promise.all(inFlight);
    const loadEnded = performance.now();
    const loadSeconds = (loadEnded - started) / 1000;
    const atLoadEnd = (await pool.query<{ codes: number }>('SELECT count(DISTINCT tracking_code)::int AS codes FROM soak_ledger')).rows[0]?.codes ?? 0;

    // The drain: until every accepted deposit is in the ledger, or the deadline.
    const ledger = async () => (await pool.query<{ codes: number; rows: number }>('SELECT count(DISTINCT tracking_code)::int AS codes, count(*)::int AS rows FROM soak_ledger')).rows[0] ?? { codes: 0, rows: 0 };
    let applied = await ledger();
    while (applied.codes < accepted.size && performance.now() - loadEnded < DRAIN_DEADLINE_MS) {
      await pause(200);
      applied = await ledger();
    }
    const drained = performance.now();
    clearInterval(sampling);
    const stuckDone = stuck.length === 0 ? undefined : (await pool.query<{ last: number | null }>("SELECT extract(epoch FROM max(completed_on))::float8 AS last FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state = 'completed'", [stuck])).rows[0]?.last;
    const stuckLeft = stuck.length === 0 ? 0 : ((await pool.query<{ left: number }>("SELECT count(*)::int AS left FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state <> 'completed'", [stuck])).rows[0]?.left ?? 0);
    const killedEpoch = (Date.now() - (performance.now() - killedAt)) / 1000;
    const codes = new Set((await pool.query<{ tracking_code: string }>('SELECT tracking_code FROM soak_ledger')).rows.map((row) => row.tracking_code));
    const strays = [...codes].filter((code) => !accepted.has(code)).length;
    const twice = applied.rows - applied.codes;
    const deadLetters = (await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM payorch_dead_letters')).rows[0]?.count ?? 0;
    agent.destroy();
    server.close();
    if (applied.codes < accepted.size) throw new Error(`${accepted.size - applied.codes} of ${accepted.size} accepted deposits were not applied within ${DRAIN_DEADLINE_MS / 1000} s of the load's end`);
    if (twice > 0 || strays > 0 || forgedAccepted > 0) throw new Error(`applied twice: ${twice}; applied without being accepted: ${strays}; forgeries accepted: ${forgedAccepted}`);

    const drainSeconds = (drained - loadEnded) / 1000;
    const recovery = stuckDone === undefined || stuckDone === null ? 'none in hand' : `${(stuckDone - killedEpoch).toFixed(1)} s (${stuck.length} jobs, ${stuckLeft} left)`;
    const rows: string[][] = [
      ['requests sent', `${total} in ${loadSeconds.toFixed(1)} s (${settings.rate}/s asked)`],
      ['answers', [...statuses].sort().map(([key, count]) => `${key}: ${count}`).join(', ')],
      ['answer time p50 / p99 / max', `${format.ms(percentile(latencies, 50))} / ${format.ms(percentile(latencies, 99))} / ${format.ms(Math.max(...latencies))}`],
      ['deposits accepted (200, new)', String(accepted.size)],
      ['applied once / twice / never / forged', `${applied.codes} / ${twice} / ${accepted.size - applied.codes} / ${forgedAccepted}`],
      ['dead letters', String(deadLetters)],
      ['backlog (jobs waiting) max / at the load’s end', `${Math.max(0, ...backlog)} / ${backlog.at(-1) ?? 0}`],
      ['applied when the load stopped', `${atLoadEnd} of ${accepted.size}`],
      ['killed worker’s jobs applied after its death', recovery],
      ['drain after the load stopped', `${drainSeconds.toFixed(1)} s`],
    ];
    return {
      title: TITLE,
      markdown: [
        `One receiver (this process, \`enqueue\` of \`createPgBossQueue({ boss, pool })\`, the PostgreSQL inbox) and two worker processes as docs/deferred.md sets them up, every default (\`batchSize\` 10, \`localConcurrency\` 4, a 1 s polling interval, \`heartbeatSeconds\` 20, pg-boss's own supervision every 60 s), one PostgreSQL on loopback. ${settings.rate} signed deposit callbacks a second for ${settings.seconds} s: every 20th a redelivery of one answered before, every 50th a forgery. Worker a is killed (SIGKILL) after a third of the requests; b goes on alone. The handler writes each credit into a table in the inbox's transaction.`,
        '',
        table(['', ''], rows),
      ].join('\n'),
      headlines: [{ figure: 'Deferred soak: accepted deposits applied once, drain after the load (pg-boss, defaults)', payorch: `${applied.codes} of ${accepted.size}`, baseline: `drained ${drainSeconds.toFixed(1)} s after; killed worker's jobs ${recovery}` }],
    };
  } finally {
    for (const worker of workers) await worker.stop();
    await boss.stop({ graceful: false }).catch(() => undefined);
    await pool.end();
    cluster.stop();
  }
});
