// The queue-adapter contract (payorch/testing) on payorch/pg-boss, against pg-boss 12 on a real
// PostgreSQL: each case gets queues and a dead letters' table of its own.
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { createPgBossDeadLetterTable, createPgBossQueue } from '../../src/queues/pg-boss/index.js';
import { queueContract } from '../../src/testing/index.js';
import { expireQueues } from './helpers.js';

const SCHEMA = 'pgboss_queue_contract';
const url = inject('postgresUrl');
let boss: PgBoss;
let pool: pg.Pool;
const tables: string[] = [];

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url, max: 6 });
  pool.on('error', () => undefined);
  boss = new PgBoss({ connectionString: url, schema: SCHEMA, schedule: false, supervise: false });
  boss.on('error', () => undefined);
  await boss.start();
}, 30_000);
afterAll(async () => {
  await boss.stop({ graceful: false });
  if (tables.length > 0) await pool.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
  await pool.end();
});

describe('the queue-adapter contract, on pg-boss 12', () => {
  let made = 0;
  for (const contractCase of queueContract({
    async setup() {
      made += 1;
      const queue = `contract-${process.pid}-${made}`;
      const table = `dead_letters_contract_${process.pid}_${made}`;
      tables.push(table);
      await createPgBossDeadLetterTable({ pool, table });
      // Fast retries: three attempts, no delay.
      const adapter = createPgBossQueue({ boss, pool, queue, table, retries: 2, retryDelaySeconds: 0, retryBackoff: false });
      // A case may start workers on other keys beside the first: close stops them all.
      const stops: (() => Promise<void>)[] = [];
      return {
        queue: adapter,
        async work(receiver) {
          const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, onDeadLetter: () => undefined });
          stops.push(() => workers.stop());
        },
        // As anyone with access to the queue: the queue's own policy, not enqueue's.
        send: (job) => boss.send(queue, job as object),
        expire: () => expireQueues(boss, pool, SCHEMA, [queue, `${queue}-dead`]),
        close: () => Promise.all(stops.map((stop) => stop())),
      };
    },
  })) {
    // Each case has an engine of its own: they run side by side.
    test.concurrent(contractCase.name, contractCase.run, 120_000);
  }
});
