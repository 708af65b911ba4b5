// Deferred callbacks on pg-boss 10, the last major that runs on Node 20 (pg-boss 12, for Node
// 22.12+: pgboss.ts). The receiver answers the service as soon as the verified callback is stored
// as a pg-boss job in your PostgreSQL, and a worker applies it with pg-boss's retries, backoff and
// dead-letter queue, exactly once (the PostgreSQL inbox), on any number of instances. Dead letters
// are copied into a table of their own, kept until replayed. Here both run in one process; run
// the workers alone on your worker instances.
//   npm install pg-boss@10 pg
//   DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/pgboss10.ts
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Receiver } from './receiver.js';
import { runWhenMain, startOn } from './pgboss-receiver.js';
import type { PgBossReceiverOptions } from './pgboss-receiver.js';

export { DEAD_LETTERS, QUEUE, replayDeadLetters } from './pgboss-receiver.js';

export async function start(options: PgBossReceiverOptions): Promise<Receiver & { readonly boss: PgBoss; readonly pool: pg.Pool }> {
  const boss = new PgBoss({ connectionString: options.connectionString });
  boss.on('error', (error) => {
    console.error('pg-boss:', error.message);
  });
  await boss.start();
  const receiver = await startOn(boss, () => boss.stop({ graceful: true, wait: true }), options);
  return { ...receiver, boss };
}

await runWhenMain(import.meta.url, start);
