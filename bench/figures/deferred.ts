/**
 * Deferred callbacks: answers per second of a receiver whose `enqueue` stores each verified
 * callback as a pg-boss job, beside the same receiver applying inline with the PostgreSQL inbox,
 * on the same database. The answer waits for pg-boss's INSERT only, so it is the acknowledgement
 * the service gets, whatever the handlers cost later.
 *
 * Both receivers run in this process with the load generator (node:http, loopback): the figure
 * is the pair's ratio more than either absolute number. Every request is a distinct, genuinely
 * signed callback; every answer must be 200, and the queue must hold exactly one job per request.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { PROVIDER } from '../fixtures/accounts.js';
import { responseBodies } from '../fixtures/bodies.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport } from '../lib/figure.js';
import { fixedLoad } from '../lib/load.js';
import type { Delivery } from '../lib/load.js';
import { format, median } from '../lib/stats.js';
import { startCluster } from '../../test/postgres/cluster.js';

const TITLE = 'Deferred callbacks (pg-boss)';
const CONCURRENCY = 16;
const POOL_SIZE = 8;
const QUEUE = 'payorch-bench-callbacks';

const tag = randomBytes(3).toString('hex').toUpperCase();
let sequence = 0;
function deliveries(count: number): Delivery[] {
  return Array.from({ length: count }, () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const trackingCode = `MAN-${tag}${(sequence++).toString(36).toUpperCase().padStart(6, '0')}-${timestamp - 600}`;
    const hash = createHash('sha256').update(PROVIDER.apiKey + PROVIDER.secretKey + trackingCode + 'completed' + String(timestamp), 'utf8').digest('hex');
    const body = JSON.stringify({ ...(responseBodies.DepositCallback as Record<string, unknown>), tracking_code: trackingCode, status: 'completed', amount: 100, timestamp, hash });
    return { headers: { 'content-type': 'application/json', 'x-api-key': PROVIDER.apiKey, 'x-timestamp': String(timestamp), 'x-hash': hash }, body };
  });
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  const { createCallbackReceiver } = await import('payorch/webhooks');
  const { createPostgresInboxTable, createPostgresInbox } = await import('payorch/postgres');
  const given = process.env['PAYORCH_BENCH_DATABASE_URL'];
  const cluster = given === undefined || given === '' ? await startCluster() : undefined;
  const url = cluster?.url ?? given ?? '';
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  pool.on('error', () => undefined);
  const boss = new PgBoss({ connectionString: url, max: POOL_SIZE, supervise: false, schedule: false });
  boss.on('error', () => undefined);
  try {
    await createPostgresInboxTable({ pool });
    await boss.start();
    await boss.createQueue(QUEUE);
    const deferred = createCallbackReceiver({ ...PROVIDER, enqueue: async (job) => {
      await boss.send(QUEUE, job);
    } });
    const inline = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool }) });
    inline.on('deposit', () => undefined);
    const servers = await Promise.all(
      [deferred, inline].map(
        (receiver) =>
          new Promise<{ url: string; close: () => void }>((resolve) => {
            const server = createServer((request, response) => void receiver.nodeHandler(request, response));
            server.listen(0, '127.0.0.1', () => {
              resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() });
            });
          }),
      ),
    );
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const settings = quick ? { rounds: 2, requests: 300, warmup: 200 } : { rounds: 5, requests: 2000, warmup: 1000 };
    const rps: [number[], number[]] = [[], []];
    for (const server of servers) await fixedLoad(server.url, '/', deliveries(settings.warmup), { concurrency: CONCURRENCY, agent });
    for (let round = 0; round < settings.rounds; round++) {
      // Alternating which goes first.
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const result = await fixedLoad(servers[index]!.url, '/', deliveries(settings.requests), { concurrency: CONCURRENCY, agent });
        if (result.failures > 0) throw new Error(`${result.failures} answers were not 200: ${result.firstFailure ?? ''}`);
        rps[index as 0 | 1].push(settings.requests / (result.ms / 1000));
      }
    }
    const queued = Number((await pool.query<{ count: string }>('SELECT count(*) FROM pgboss.job WHERE name = $1', [QUEUE])).rows[0]?.count);
    const expected = settings.warmup + settings.rounds * settings.requests;
    if (queued !== expected) throw new Error(`the queue holds ${queued} jobs; ${expected} callbacks were answered 200`);
    agent.destroy();
    for (const server of servers) server.close();
    const [deferredRps, inlineRps] = [median(rps[0]), median(rps[1])];
    const ratios = rps[0].map((value, round) => value / rps[1][round]!);
    return {
      title: TITLE,
      markdown: [
        `Both receivers in one process with the load generator: ${CONCURRENCY} keep-alive connections on loopback, ${settings.rounds} rounds of ${settings.requests} distinct signed deposit callbacks each after ${settings.warmup} of warm-up, alternating which goes first; medians. Deferred: \`enqueue\` is \`boss.send\` into pg-boss 12 (pool of ${POOL_SIZE}); inline: the PostgreSQL inbox (pool of ${POOL_SIZE}) with one handler that does nothing. The queue must hold one job per 200.`,
        '',
        table(
          ['receiver', 'answers/s', 'ratio to inline'],
          [
            ['`enqueue` into pg-boss (deferred)', `**${format.perSecond(deferredRps)}**`, format.ratio(median(ratios))],
            ['PostgreSQL inbox, applied inline', format.perSecond(inlineRps), '1.00x'],
          ],
        ),
      ].join('\n'),
      headlines: [{ figure: 'Deferred: answers/s with `enqueue` into pg-boss, to inline with the PostgreSQL inbox', payorch: format.perSecond(deferredRps), baseline: `${format.perSecond(inlineRps)} inline`, ratio: median(ratios) }],
    };
  } finally {
    await boss.stop({ graceful: false }).catch(() => undefined);
    await pool.end();
    cluster?.stop();
  }
});
