import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { inject } from 'vitest';
import type { CallbackJob } from '../../../src/webhooks/index.js';
import { tcpProxy } from '../../helpers/deferred.js';
import { deferredScenarios } from '../../helpers/deferred-scenarios.js';

// Deferred callbacks on pg-boss: the receiver's pg-boss reaches PostgreSQL through a proxy the
// test can take down; the workers' pg-boss expires a job whose worker vanished.
const QUEUE = 'payorch-callbacks';
const KILL_QUEUE = 'payorch-callbacks-kill';
// Its own schema: the pg-boss example (test/examples) works a queue of the same name meanwhile.
const SCHEMA = 'pgboss_deferred_test';
const url = inject('postgresUrl');
const database = new URL(url);

let workerBoss: PgBoss;
let senderBoss: PgBoss;
let proxy: Awaited<ReturnType<typeof tcpProxy>>;
let inspect: pg.Pool;

deferredScenarios({
  name: 'pg-boss',
  prefix: 'pb',
  store: 'A queue database',
  recovers: 'expires its job',
  async start(apply, killCode) {
    inspect = new pg.Pool({ connectionString: url, max: 1 });
    inspect.on('error', () => undefined);
    // Supervision every second, so that a job whose worker vanished expires within the test.
    workerBoss = new PgBoss({ connectionString: url, schema: SCHEMA, schedule: false, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
    workerBoss.on('error', () => undefined);
    await workerBoss.start();
    for (const name of [QUEUE, KILL_QUEUE]) await workerBoss.createQueue(name);
    proxy = await tcpProxy(Number(database.port));
    senderBoss = new PgBoss({ supervise: false, schedule: false, schema: SCHEMA, host: '127.0.0.1', port: proxy.port, user: database.username, database: database.pathname.slice(1), migrate: false });
    senderBoss.on('error', () => undefined);
    await senderBoss.start();
    const workerId = await workerBoss.work<CallbackJob>(QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => apply(job!.data));
    return async (job) => {
      const kill = job.payload['tracking_code'] === killCode;
      await senderBoss.send(kill ? KILL_QUEUE : QUEUE, job, { retryLimit: 5, retryDelay: 0, expireInSeconds: kill ? 1 : 30 });
      workerBoss.notifyWorker(workerId);
    };
  },
  async stop() {
    await senderBoss.stop({ graceful: false }).catch(() => undefined);
    await workerBoss.stop({ graceful: false }).catch(() => undefined);
    await proxy.close();
    await inspect.end();
  },
  async drained() {
    const { rows } = await inspect.query<{ count: string }>(`SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state IN ('active', 'retry', 'created')`, [QUEUE]);
    return Number(rows[0]?.count ?? 0) === 0;
  },
  down: () => proxy.down(),
  up: () => proxy.up(),
  killWorker: () => ({ WORKER_ENGINE: 'pgboss', WORKER_PGBOSS_SCHEMA: SCHEMA, WORKER_QUEUE: KILL_QUEUE }),
  async workKillQueue(apply) {
    await workerBoss.work<CallbackJob>(KILL_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => apply(job!.data));
  },
});
