import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { signCallback } from '../../src/webhooks/index.js';
import type { CallbackJob } from '../../src/webhooks/index.js';
import { unsigned } from './callbacks.js';
import { applications, applyingReceiver, createLedger, enqueuingReceiver, startWorkerProcess, waitFor } from './deferred.js';
import type { Behaviour } from './deferred.js';
import { deliver, serveNode } from './serve.js';
import type { Served } from './serve.js';
import { PROVIDER } from './wire.js';

/** A queue engine under the deferred scenarios: what differs between pg-boss and BullMQ. */
export interface DeferredEngine {
  /** As the test titles name it: `pg-boss`, `BullMQ`. */
  readonly name: string;
  /** Keeps each engine's tracking codes (and ledger) apart: `pb`, `bm`. */
  readonly prefix: string;
  /** What goes down in the outage scenario: `a queue database`, `Redis`. */
  readonly store: string;
  /** How the engine takes a job back from a worker that vanished: `expires its job`, `finds the job stalled`. */
  readonly recovers: string;
  /**
   * Starts the engine, its queue and kill queue, and one worker of the queue that applies with
   * `apply`; returns what the receiver calls to enqueue (into the kill queue for `killCode`).
   */
  start(apply: (job: CallbackJob) => Promise<unknown>, killCode: string): Promise<(job: CallbackJob) => Promise<void>>;
  stop(): Promise<void>;
  /** No job of the queue waits or runs. */
  drained(): Promise<boolean>;
  /** Takes the store away from the receiving side, and brings it back. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** The environment of a worker process (test/helpers/deferred-worker) that works the kill queue. */
  killWorker(): Readonly<Record<string, string>>;
  /** Starts a worker of the kill queue in this process, applying with `apply`. */
  workKillQueue(apply: (job: CallbackJob) => Promise<unknown>): Promise<void>;
}

/**
 * The deferred scenarios over one engine, against the real PostgreSQL of the postgres project:
 * the receiver answers once the engine stored the job, and workers apply it with the PostgreSQL
 * inbox, in this process or in one that is killed mid-handler.
 */
export function deferredScenarios(engine: DeferredEngine): void {
  const url = inject('postgresUrl');
  const ledger = `deferred_${engine.prefix}_ledger`;
  const code = (scenario: string) => `MAN-${engine.prefix}${scenario}-1763812000`;
  const behaviours = new Map<string, Behaviour>();
  let pool: pg.Pool;
  let applying: ReturnType<typeof applyingReceiver>;
  let served: Served;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => undefined);
    await createLedger(pool, ledger);
    applying = applyingReceiver(pool, ledger, (trackingCode) => behaviours.get(trackingCode) ?? {});
    const enqueue = await engine.start(async (job) => applying.receiver.apply(job), code('kill05'));
    served = await serveNode(enqueuingReceiver(enqueue).nodeHandler);
  }, 30_000);

  afterAll(async () => {
    await served.close();
    await engine.stop();
    await pool.query(`DROP TABLE IF EXISTS ${ledger}`);
    await pool.end();
  }, 30_000);

  const deposit = (trackingCode: string, timestamp?: number) =>
    signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, timestamp === undefined ? PROVIDER : { ...PROVIDER, timestamp });
  const appliedOnce = (trackingCode: string) => async () => (await applications(pool, ledger, trackingCode)).length > 0;

  test('answers before a handler that takes seconds has finished, and the callback is applied once', async () => {
    const slow = code('slow01');
    behaviours.set(slow, { handlerMs: 1500 });
    expect(await deliver(served.url, deposit(slow))).toEqual({ status: 200, body: { success: true } });
    // Nothing applied yet: the answer did not wait for the handler.
    expect(await applications(pool, ledger, slow)).toEqual([]);
    await waitFor(appliedOnce(slow), 8000, 'the slow handler to commit');
    expect(await applications(pool, ledger, slow)).toEqual([{ status: 'completed', worker: 'test' }]);
  });

  test(`a handler that fails twice is retried by ${engine.name} and applied exactly once`, async () => {
    const failing = code('fail02');
    behaviours.set(failing, { failures: 2 });
    expect((await deliver(served.url, deposit(failing))).status).toBe(200);
    await waitFor(appliedOnce(failing), 8000, 'the third attempt to commit');
    expect(applying.attempts.get(failing)).toBe(3);
    expect(await applications(pool, ledger, failing)).toHaveLength(1);
  });

  test('duplicates and a re-signed copy become four jobs and one application', async () => {
    const duplicated = code('dup03');
    const first = deposit(duplicated);
    const resigned = deposit(duplicated, Math.floor(Date.now() / 1000) + 1);
    const answers = await Promise.all([first, first, first, resigned].map((delivery) => deliver(served.url, delivery)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    await waitFor(() => engine.drained(), 8000, 'every copy to be worked');
    expect(await applications(pool, ledger, duplicated)).toHaveLength(1);
  });

  test(`${engine.store} that is down answers 500 and records nothing; once it is back the redelivery is queued and applied`, async () => {
    const outage = code('down04');
    const delivery = deposit(outage);
    await engine.down();
    try {
      expect(await deliver(served.url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_queued' } });
    } finally {
      await engine.up();
    }
    expect(await applications(pool, ledger, outage)).toEqual([]);
    await waitFor(async () => (await deliver(served.url, delivery)).status === 200, 5000, 'the queue to take the redelivery');
    await waitFor(appliedOnce(outage), 8000, 'the redelivery to be applied');
    expect(await applications(pool, ledger, outage)).toHaveLength(1);
  }, 20_000);

  test(`a worker killed with SIGKILL mid-handler: ${engine.name} ${engine.recovers}, another worker applies it exactly once`, async () => {
    const killed = code('kill05');
    const child = startWorkerProcess({ ...engine.killWorker(), WORKER_PG_URL: url, WORKER_LEDGER: ledger, WORKER_HANDLER_MS: '30000' });
    try {
      await child.line('ready', 10_000);
      expect((await deliver(served.url, deposit(killed))).status).toBe(200);
      await child.line(`started ${killed}`, 8000);
    } finally {
      await child.kill();
    }
    // The killed worker's transaction rolled back with its connection: nothing of it is left.
    await engine.workKillQueue(async (job) => applying.receiver.apply(job));
    await waitFor(appliedOnce(killed), 10_000, 'the job to be applied by the other worker');
    expect(await applications(pool, ledger, killed)).toEqual([{ status: 'completed', worker: 'test' }]);
  }, 30_000);
}
