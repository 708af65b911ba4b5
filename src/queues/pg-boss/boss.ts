// The parts of pg-boss 12 the adapter uses, typed structurally: payorch/pg-boss never imports
// pg-boss, and the merchant's `PgBoss` fits these shapes as it is.

/** A database pg-boss can run a statement on: pg-boss's `db` option, here a client inside a transaction. */
export interface PgBossDatabase {
  /** Runs one statement with its `$1`, `$2`… values and resolves with its rows. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A queue's retry and retention policy, as pg-boss's `createQueue`, `updateQueue` and `send` take it. */
export interface PgBossPolicy {
  readonly retryLimit?: number;
  readonly retryDelay?: number;
  readonly retryBackoff?: boolean;
  readonly expireInSeconds?: number;
  readonly heartbeatSeconds?: number;
  readonly retentionSeconds?: number;
  readonly deadLetter?: string;
}

/** What `send` takes: the policy of the job, and the database to insert it with. */
export interface PgBossSendOptions extends PgBossPolicy {
  readonly db?: PgBossDatabase;
}

/** A job as pg-boss 12 hands it to a worker started with `includeMetadata: true`. */
export interface PgBossJob {
  readonly id: string;
  readonly data: unknown;
  /** How many times the job was retried: 0 on its first attempt. */
  readonly retryCount: number;
  readonly retryLimit: number;
  /** In a dead-letter queue: the id of the job that died, its retries and its last output. */
  readonly sourceId?: string | null;
  readonly sourceRetryCount?: number | null;
  readonly sourceOutput?: object | null;
}

/**
 * What a worker of the adapter's is started with: batches settled job by job, fetched again at
 * once while they come back full.
 */
export interface PgBossWorkerOptions {
  readonly includeMetadata: true;
  readonly perJobResults: true;
  readonly burstWhenBatchFull: true;
  readonly batchSize: number;
  readonly pollingIntervalSeconds: number;
  readonly localConcurrency: number;
}

/** How a worker settles one job of its batch (pg-boss's `JobResult`). */
export interface PgBossJobResult {
  readonly id: string;
  readonly status: 'completed' | 'failed';
  /** Kept on the job: the error of a failed attempt. */
  readonly output?: object;
}

/** What `getQueue` tells of a queue, as pg-boss's supervision last counted it. */
export interface PgBossQueueCounts {
  /** Jobs ready to be taken now. */
  readonly readyCount: number;
}

/**
 * A started pg-boss 12 (`new PgBoss(…)`, then `await boss.start()`): the methods the adapter
 * calls. pg-boss's own `PgBoss` fits it.
 */
export interface PgBossLike {
  /** Creates a queue with its policy; a queue that exists is left as it is. */
  createQueue(name: string, options?: PgBossPolicy): Promise<void>;
  /** Sets the policy of a queue that exists. */
  updateQueue(name: string, options?: PgBossPolicy): Promise<void>;
  /** Puts a job on a queue; resolves with its id once committed, `null` when pg-boss took nothing. */
  send(name: string, data: object, options?: PgBossSendOptions): Promise<string | null>;
  /** Starts a worker of a queue; resolves with its id. */
  work(name: string, options: PgBossWorkerOptions, handler: (jobs: PgBossJob[]) => Promise<PgBossJobResult[]>): Promise<string>;
  /** A queue's counts, or `null` when there is no such queue. */
  getQueue(name: string): Promise<PgBossQueueCounts | null>;
  /** Stops a worker, by its id. */
  offWork(name: string, options?: { readonly id?: string }): Promise<void>;
}
