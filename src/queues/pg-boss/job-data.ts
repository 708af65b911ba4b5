// A callback job as pg-boss keeps it (a replayed dead letter's earlier lives beside it), and the transaction a dead letter's replay sends it in.
import type { PostgresClient } from '../../postgres/table.js';
import { storedHistory } from '../dead-letters.js';
import type { StoredLife } from '../dead-letters.js';
import type { PgBossDatabase } from './boss.js';

/**
 * A job as payorch keeps it in pg-boss: its JSON text in a string. pg-boss keeps data in `jsonb`,
 * which refuses `\u0000` and lone surrogates even inside a string, while a callback's free-text
 * fields (a name) may hold them and still verify. Escaped once more inside a string, the JSON
 * holds neither, and comes back to the worker as the receiver made it.
 */
export interface PgBossJobData {
  /** The job's JSON (`JSON.stringify`). */
  readonly job: string;
  /**
   * A replayed dead letter's earlier lives (attempts, last error, death in ms since 1970), beside
   * the sealed job, which stays as it was sealed.
   */
  readonly history?: readonly { readonly attempts: number; readonly lastError: string; readonly deadAt: number }[] | undefined;
}

/** The data pg-boss keeps of `job`. */
export const pgBossJobData = (job: unknown): PgBossJobData => ({ job: JSON.stringify(job) });

/** The earlier lives a pg-boss job's data carries (none for a job never replayed). */
export const historyOf = (data: unknown): StoredLife[] => (typeof data === 'object' && data !== null ? storedHistory((data as Partial<Record<'history', unknown>>).history) : []);

/**
 * The job a pg-boss job's data holds. Data of another shape (a job sent to the queue as it is) is
 * the job itself, and text that is not JSON is given as it is: `apply` refuses both unless sealed.
 */
export function jobOf(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || typeof (data as Partial<PgBossJobData>).job !== 'string') return data;
  const text = (data as PgBossJobData).job;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The open transaction of `client` as pg-boss's `send` takes it (its `db` option). */
export const inTransaction = (client: PostgresClient): PgBossDatabase => ({ executeSql: async (text, values) => ({ rows: [...((await client.query(text, values)).rows ?? [])] }) });
