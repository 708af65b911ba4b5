// Deferred callbacks on pg-boss 12. The receiver
// answers the service as soon as the verified callback is stored as a pg-boss job in your
// PostgreSQL, and a worker applies it with pg-boss's retries, backoff and dead-letter queue,
// exactly once (the PostgreSQL inbox), on any number of instances. Dead letters are copied into a
// table of their own, kept until replayed. Here both run in one process; run the workers alone on
// your worker instances.
//   npm install pg-boss@12 pg
//   DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/pgboss.ts
import { PgBoss } from 'pg-boss';
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
  // pg-boss 12's stop() waits for active jobs itself (graceful by default).
  const receiver = await startOn(boss, () => boss.stop(), options);
  return { ...receiver, boss };
}

await runWhenMain(import.meta.url, start);
