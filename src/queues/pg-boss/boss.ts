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

/** What a worker of the adapter's is started with. */
export interface PgBossWorkerOptions {
  readonly includeMetadata: true;
  readonly batchSize: number;
  readonly pollingIntervalSeconds: number;
  readonly localConcurrency: number;
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
  work(name: string, options: PgBossWorkerOptions, handler: (jobs: PgBossJob[]) => Promise<void>): Promise<string>;
  /** Stops a worker, by its id. */
  offWork(name: string, options?: { readonly id?: string }): Promise<void>;
}
