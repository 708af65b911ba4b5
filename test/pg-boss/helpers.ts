import type { PgBoss } from 'pg-boss';
import type pg from 'pg';

/**
 * pg-boss's retention, as if it had all gone by: every row pg-boss keeps of `queues` made 400
 * days older (past the adapter's 90-day `retentionSeconds` and pg-boss's 7-day
 * `deleteAfterSeconds`), then pg-boss's own maintenance run over each queue.
 */
export async function expireQueues(boss: PgBoss, pool: pg.Pool, schema: string, queues: readonly string[]): Promise<void> {
  const age = "interval '400 days'";
  await pool.query(
    `UPDATE ${schema}.job SET created_on = created_on - ${age}, start_after = start_after - ${age}, keep_until = keep_until - ${age},
      started_on = started_on - ${age}, completed_on = completed_on - ${age} WHERE name = ANY($1::text[])`,
    [queues],
  );
  for (const queue of queues) await boss.supervise(queue);
}

/** How many rows pg-boss keeps of `queues`, in any state. */
export async function pgBossRows(pool: pg.Pool, schema: string, queues: readonly string[]): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${schema}.job WHERE name = ANY($1::text[])`, [queues]);
  return rows[0]?.count ?? 0;
}
