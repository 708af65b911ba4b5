import PgBoss from 'pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { signCallback } from '../../../src/webhooks/index.js';
import type { CallbackJob } from '../../../src/webhooks/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { applications, applyingReceiver, createLedger, enqueuingReceiver, startWorkerProcess, tcpProxy, waitFor } from '../../helpers/deferred.js';
import type { Behaviour } from '../../helpers/deferred.js';
import { deliver, serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

// Deferred callbacks on pg-boss 10 against the real PostgreSQL of the postgres project: the
// receiver answers once pg-boss stored the job (through a proxy the test can take down), and
// workers apply it with the PostgreSQL inbox, in this process or in one that is killed.
const LEDGER = 'deferred_pgboss_ledger';
const QUEUE = 'payorch-callbacks';
const KILL_QUEUE = 'payorch-callbacks-kill';
const url = inject('postgresUrl');
const database = new URL(url);

let pool: pg.Pool;
let workerBoss: PgBoss;
let senderBoss: PgBoss;
let proxy: Awaited<ReturnType<typeof tcpProxy>>;
let served: Served;
const behaviours = new Map<string, Behaviour>();
let applying: ReturnType<typeof applyingReceiver>;
let workerId: string;

// Its own schema: the pg-boss example (test/examples) works a queue of the same name meanwhile.
const SCHEMA = 'pgboss_deferred_test';
const bossOptions = { supervise: false, schedule: false, schema: SCHEMA } as const;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  await createLedger(pool, LEDGER);
  // The workers' pg-boss expires a job whose worker vanished: maintenance every second.
  workerBoss = new PgBoss({ connectionString: url, schema: SCHEMA, schedule: false, maintenanceIntervalSeconds: 1, monitorStateIntervalSeconds: 60 });
  workerBoss.on('error', () => undefined);
  await workerBoss.start();
  for (const name of [QUEUE, KILL_QUEUE]) await workerBoss.createQueue(name);
  proxy = await tcpProxy(Number(database.port));
  senderBoss = new PgBoss({ ...bossOptions, host: '127.0.0.1', port: proxy.port, user: database.username, database: database.pathname.slice(1), migrate: false });
  senderBoss.on('error', () => undefined);
  await senderBoss.start();
  applying = applyingReceiver(pool, LEDGER, (code) => behaviours.get(code) ?? {});
  workerId = await workerBoss.work<CallbackJob>(QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => applying.receiver.apply(job!.data));
  const receiver = enqueuingReceiver(async (job) => {
    const kill = job.payload['tracking_code'] === 'MAN-pbkill05-1763812000';
    await senderBoss.send(kill ? KILL_QUEUE : QUEUE, job, { retryLimit: 5, retryDelay: 0, expireInSeconds: kill ? 1 : 30 });
    workerBoss.notifyWorker(workerId);
  });
  served = await serveNode(receiver.nodeHandler);
}, 30_000);

afterAll(async () => {
  await served.close();
  await senderBoss.stop({ graceful: false, wait: true }).catch(() => undefined);
  await workerBoss.stop({ graceful: false, wait: true }).catch(() => undefined);
  await proxy.close();
  await pool.query(`DROP TABLE IF EXISTS ${LEDGER}`);
  await pool.end();
}, 30_000);

function deposit(trackingCode: string, timestamp?: number) {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, timestamp === undefined ? PROVIDER : { ...PROVIDER, timestamp });
}

const appliedOnce = (code: string) => async () => (await applications(pool, LEDGER, code)).length > 0;

test('answers in milliseconds while the handler takes seconds, and the callback is applied once', async () => {
  const code = 'MAN-pbslow01-1763812000';
  behaviours.set(code, { handlerMs: 1500 });
  const started = performance.now();
  expect(await deliver(served.url, deposit(code))).toEqual({ status: 200, body: { success: true } });
  expect(performance.now() - started).toBeLessThan(500);
  expect(await applications(pool, LEDGER, code)).toEqual([]);
  await waitFor(appliedOnce(code), 8000, 'the slow handler to commit');
  expect(await applications(pool, LEDGER, code)).toEqual([{ status: 'completed', worker: 'test' }]);
});

test('a handler that fails twice is retried by pg-boss and applied exactly once', async () => {
  const code = 'MAN-pbfail02-1763812000';
  behaviours.set(code, { failures: 2 });
  expect((await deliver(served.url, deposit(code))).status).toBe(200);
  await waitFor(appliedOnce(code), 8000, 'the third attempt to commit');
  expect(applying.attempts.get(code)).toBe(3);
  expect(await applications(pool, LEDGER, code)).toHaveLength(1);
});

test('duplicates and a re-signed copy become four jobs and one application', async () => {
  const code = 'MAN-pbdup03-1763812000';
  const first = deposit(code);
  const resigned = deposit(code, Math.floor(Date.now() / 1000) + 1);
  const answers = await Promise.all([first, first, first, resigned].map((delivery) => deliver(served.url, delivery)));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
  await waitFor(async () => (await workerBoss.getQueueSize(QUEUE)) === 0 && !(await activeJobs(QUEUE)), 8000, 'every copy to be worked');
  expect(await applications(pool, LEDGER, code)).toHaveLength(1);
});

test('a queue that is down answers 500 and records nothing; the redelivery is queued and applied', async () => {
  const code = 'MAN-pbdown04-1763812000';
  const delivery = deposit(code);
  await proxy.down();
  try {
    expect(await deliver(served.url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_queued' } });
  } finally {
    await proxy.up();
  }
  expect(await applications(pool, LEDGER, code)).toEqual([]);
  await waitFor(async () => (await deliver(served.url, delivery)).status === 200, 5000, 'the queue to take the redelivery');
  await waitFor(appliedOnce(code), 8000, 'the redelivery to be applied');
  expect(await applications(pool, LEDGER, code)).toHaveLength(1);
});

test('a worker killed with SIGKILL mid-handler: pg-boss expires its job, another worker applies it exactly once', async () => {
  const code = 'MAN-pbkill05-1763812000';
  const child = startWorkerProcess({ WORKER_ENGINE: 'pgboss', WORKER_PGBOSS_SCHEMA: SCHEMA, WORKER_QUEUE: KILL_QUEUE, WORKER_PG_URL: url, WORKER_LEDGER: LEDGER, WORKER_HANDLER_MS: '30000' });
  try {
    await child.line('ready', 10_000);
    expect((await deliver(served.url, deposit(code))).status).toBe(200);
    await child.line(`started ${code}`, 8000);
  } finally {
    await child.kill();
  }
  // The killed worker's transaction rolled back with its connection: nothing of it is left.
  await workerBoss.work<CallbackJob>(KILL_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => applying.receiver.apply(job!.data));
  await waitFor(appliedOnce(code), 10_000, 'the expired job to be applied by the other worker');
  expect(await applications(pool, LEDGER, code)).toEqual([{ status: 'completed', worker: 'test' }]);
}, 30_000);

async function activeJobs(queue: string): Promise<boolean> {
  const { rows } = await pool.query<{ count: string }>(`SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state IN ('active', 'retry', 'created')`, [queue]);
  return Number(rows[0]?.count ?? 0) > 0;
}
