// payorch/pg-boss against pg-boss 12 on a real PostgreSQL, beyond the contract: dead letters past
// pg-boss's own maintenance, a job whose worker died on its last attempt, a job that can never
// apply, replays of jobs sealed before a key rotation, and paging.
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { CallbackJobError, QueueError, createPgBossDeadLetterTable, createPgBossQueue } from '../../src/queues/pg-boss/index.js';
import type { DeadLetter, PgBossBacklog, PgBossQueue } from '../../src/queues/pg-boss/index.js';
import { createCallbackReceiver, signCallback } from '../../src/webhooks/index.js';
import type { CallbackJob, CallbackReceiver } from '../../src/webhooks/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { waitFor } from '../helpers/deferred.js';
import { PROVIDER } from '../helpers/wire.js';
import { expireQueues, pgBossRows } from './helpers.js';

const url = inject('postgresUrl');
const seconds = Math.floor(Date.now() / 1000);
let pool: pg.Pool;
// pg-boss's maintenance is claimed per queue and interval: the boss that runs it by hand has a
// schema of its own, where no background supervision claims it first.
let quiet: PgBoss;
// Supervision every second, so that an attempt whose worker vanished expires within the test.
let supervised: PgBoss;
const tables: string[] = [];
let made = 0;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url, max: 6 });
  pool.on('error', () => undefined);
  quiet = new PgBoss({ connectionString: url, schema: 'pgboss_adapter_quiet', schedule: false, supervise: false });
  supervised = new PgBoss({ connectionString: url, schema: 'pgboss_adapter_supervised', schedule: false, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  for (const boss of [quiet, supervised]) {
    boss.on('error', () => undefined);
    await boss.start();
  }
}, 30_000);
afterAll(async () => {
  for (const boss of [quiet, supervised]) await boss.stop({ graceful: false });
  if (tables.length > 0) await pool.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
  await pool.end();
});

/** A queue and a dead letters' table of the test's own, with three attempts and no delay. */
async function fresh(boss: PgBoss, options: { retries?: number; expireInSeconds?: number; heartbeatSeconds?: number; retryDelaySeconds?: number } = {}) {
  made += 1;
  const queue = `adapter-${process.pid}-${made}`;
  const table = `dead_letters_adapter_${process.pid}_${made}`;
  tables.push(table);
  await createPgBossDeadLetterTable({ pool, table });
  const adapter = createPgBossQueue({
    boss,
    pool,
    queue,
    table,
    retries: options.retries ?? 2,
    retryDelaySeconds: options.retryDelaySeconds ?? 0,
    retryBackoff: false,
    ...(options.expireInSeconds === undefined ? {} : { expireInSeconds: options.expireInSeconds }),
    ...(options.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: options.heartbeatSeconds }),
  });
  return { adapter, queue, table };
}

/** A receiver whose deposit handler credits `ledger`, or throws while `failing` holds the code. */
function receiverOf(adapter: PgBossQueue, options: Partial<Parameters<typeof createCallbackReceiver>[0]> = {}) {
  const ledger: string[] = [];
  const failing = new Set<string>();
  const receiver: CallbackReceiver<unknown> = createCallbackReceiver({ ...PROVIDER, merchantId: 'merchant-pgboss', enqueue: adapter.enqueue, onError: () => undefined, logLevel: 'off', ...options });
  receiver.on('deposit.completed', (callback) => {
    if (failing.has(callback.payload.tracking_code)) throw new Error('the ledger is locked');
    ledger.push(callback.payload.tracking_code);
  });
  const deliver = async (code: string) => {
    const { headers, body } = signCallback({ ...unsigned.deposit, tracking_code: code }, PROVIDER);
    return (await receiver.handle(new Request('https://receiver.test/', { method: 'POST', headers, body }))).status;
  };
  return { receiver, ledger, failing, deliver };
}

/** The sealed job a receiver of `merchantId` queues for a signed deposit callback of `code`, as it would hand it to `enqueue`. */
async function sealedJob(merchantId: string, code: string): Promise<CallbackJob> {
  const jobs: CallbackJob[] = [];
  const maker = createCallbackReceiver({ ...PROVIDER, merchantId, enqueue: (job) => Promise.resolve(void jobs.push(job)) });
  const { headers, body } = signCallback({ ...unsigned.deposit, tracking_code: code }, PROVIDER);
  await maker.handle(new Request('https://receiver.test/', { method: 'POST', headers, body }));
  return jobs[0] as CallbackJob;
}

async function deadLetterOf(adapter: PgBossQueue, code: string): Promise<DeadLetter> {
  let found: DeadLetter | undefined;
  await waitFor(async () => (found = (await adapter.deadLetters.list()).deadLetters.find((each) => each.trackingCode === code)) !== undefined, 15_000, `a dead letter of ${code}`);
  return found as DeadLetter;
}

describe('payorch/pg-boss on pg-boss 12', () => {
  // Each case has a queue and a dead letters' table of its own, so they run side by side, most of
  // their time spent waiting on pg-boss's intervals; the two that spy on the console run alone.
  test.concurrent('dead letters survive pg-boss 12’s maintenance run over aged rows: pg-boss deletes every row of the job, the table keeps it, and its replay applies it once', async () => {
    const { adapter, queue, table } = await fresh(quiet);
    const { receiver, ledger, failing, deliver } = receiverOf(adapter);
    const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, onDeadLetter: () => undefined });
    try {
      const code = `MAN-pbaged-${seconds - 60}`;
      failing.add(code);
      expect(await deliver(code)).toBe(200);
      const deadLetter = await deadLetterOf(adapter, code);
      expect(deadLetter).toMatchObject({ kind: 'deposit', trackingCode: code, status: 'completed', merchantId: 'merchant-pgboss', attempts: 3, lastError: 'Error: the ledger is locked' });
      expect(await pgBossRows(pool, 'pgboss_adapter_quiet', [queue])).toBe(1);

      // 400 days on: every row pg-boss has of the queues is that much older, past the queue's
      // retentionSeconds and pg-boss's deleteAfterSeconds, and pg-boss's maintenance runs.
      await pool.query(`UPDATE ${table} SET dead_at = dead_at - interval '400 days'`);
      await expireQueues(quiet, pool, 'pgboss_adapter_quiet', [queue, `${queue}-dead`]);
      expect(await pgBossRows(pool, 'pgboss_adapter_quiet', [queue, `${queue}-dead`])).toBe(0);
      const [kept] = (await adapter.deadLetters.list()).deadLetters;
      expect(kept).toMatchObject({ id: deadLetter.id, trackingCode: code, attempts: 3 });

      failing.delete(code);
      expect(await adapter.deadLetters.replay()).toEqual({ replayed: 1, remaining: 0 });
      await waitFor(() => ledger.includes(code), 10_000, 'the replayed dead letter to be credited');
      expect(ledger).toEqual([code]);
    } finally {
      await workers.stop();
    }
  }, 60_000);

  test.concurrent('a job whose worker died on its last attempt is kept as a dead letter once pg-boss expires it, through pg-boss’s dead-letter queue', async () => {
    const { adapter, queue } = await fresh(supervised, { retries: 0, expireInSeconds: 1 });
    const code = `MAN-pbdied-${seconds - 60}`;
    const job = await sealedJob('merchant-pgboss', code);
    await adapter.enqueue(job);
    // A worker that took the job and died without a word: pg-boss holds it active until it expires.
    const [taken] = await supervised.fetch(queue);
    expect(taken?.data).toEqual({ job: JSON.stringify(job) });
    const told: DeadLetter[] = [];
    const { receiver } = receiverOf(adapter);
    const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, onDeadLetter: (deadLetter) => void told.push(deadLetter) });
    try {
      const deadLetter = await deadLetterOf(adapter, code);
      expect(deadLetter).toMatchObject({ id: taken?.id, attempts: 1, lastError: 'Error: pg-boss: the last attempt timed out (expireInSeconds): its worker stopped or hung' });
      expect(told).toEqual([deadLetter]);
      expect((await adapter.deadLetters.get(deadLetter.id))?.job).toEqual(job);
    } finally {
      await workers.stop();
    }
  }, 60_000);

  test.concurrent('a handler that runs past expireInSeconds on its last attempt is kept as a dead letter with pg-boss’s timeout as its last error', async () => {
    const { adapter } = await fresh(supervised, { retries: 0, expireInSeconds: 1 });
    let release: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const workers = await adapter.work({ apply: () => hung }, { pollingIntervalSeconds: 0.5, onDeadLetter: () => undefined });
    try {
      const code = `MAN-pbhung-${seconds - 60}`;
      await adapter.enqueue(await sealedJob('merchant-pgboss', code));
      const deadLetter = await deadLetterOf(adapter, code);
      // Whichever notices first: the worker's own timer, or pg-boss's supervision of the expired job.
      expect(deadLetter).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/^Error: (handler execution exceeded 1s|pg-boss: the last attempt timed out \(expireInSeconds\))/) as unknown });
    } finally {
      release();
      await workers.stop();
    }
  }, 60_000);

  test.concurrent('a replay re-seals jobs sealed before a key rotation with the keys given; a dead letter the old key did not seal stops it, and nothing is sent', async () => {
    const OLD = 'old-secret-key-rotated-away';
    const { adapter } = await fresh(quiet);
    // The receiver after the rotation, its clock an hour on: the previous key's window has closed.
    const { receiver, ledger } = receiverOf(adapter, { secretKey: PROVIDER.secretKey, previousSecretKey: { secretKey: OLD, until: new Date(Date.now() + 1_800_000) }, now: () => Date.now() + 3_600_000 });
    const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, onDeadLetter: () => undefined });
    try {
      // Jobs queued before the rotation: sealed with the old key, the callback signed with it.
      const before = createCallbackReceiver({ ...PROVIDER, secretKey: OLD, merchantId: 'merchant-pgboss', enqueue: adapter.enqueue });
      const code = `MAN-pbrot-${seconds - 60}`;
      const { headers, body } = signCallback({ ...unsigned.deposit, tracking_code: code }, { ...PROVIDER, secretKey: OLD });
      expect((await before.handle(new Request('https://receiver.test/', { method: 'POST', headers, body }))).status).toBe(200);
      const sealedBefore = await deadLetterOf(adapter, code);
      expect(sealedBefore.lastError).toMatch(/^CallbackJobError: .*previousSecretKey, whose window closed/);
      // A job written in the queue with a seal no key made.
      const forgedCode = `MAN-pbforged-${seconds - 60}`;
      const kept = await adapter.deadLetters.get(sealedBefore.id);
      await adapter.enqueue({ ...(kept?.job as CallbackJob), payload: { ...kept?.job.payload, tracking_code: forgedCode }, seal: { keyId: '0'.repeat(16), mac: '0'.repeat(64) } } as CallbackJob);
      const forged = await deadLetterOf(adapter, forgedCode);

      const reseal = { oldSecretKey: OLD, secretKey: PROVIDER.secretKey };
      const refused: unknown = await adapter.deadLetters.replay({ reseal }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CallbackJobError);
      expect((refused as Error).message).toContain(`dead letter ${forged.id}: the job’s seal does not verify with oldSecretKey`);
      expect((refused as Error).message).not.toContain(OLD);
      expect((await adapter.deadLetters.list()).deadLetters).toHaveLength(2);

      expect(await adapter.deadLetters.purge({ ids: [forged.id] })).toEqual({ purged: 1 });
      expect(await adapter.deadLetters.replay({ reseal })).toEqual({ replayed: 1, remaining: 0 });
      await waitFor(() => ledger.includes(code), 10_000, 'the re-sealed dead letter to be credited');
      expect(ledger).toEqual([code]);
    } finally {
      await workers.stop();
    }
  }, 60_000);

  test.concurrent('a job pg-boss does not take (a queue made with the short policy, a job already waiting) is refused with a QueueError, and the receiver answers 500', async () => {
    made += 1;
    const queue = `adapter-${process.pid}-${made}`;
    const table = `dead_letters_adapter_${process.pid}_${made}`;
    tables.push(table);
    await createPgBossDeadLetterTable({ pool, table });
    // Made beforehand by someone else: pg-boss keeps a queue's policy, whatever createQueue asks later.
    await quiet.createQueue(`${queue}-dead`);
    await quiet.createQueue(queue, { policy: 'short', deadLetter: `${queue}-dead` });
    const adapter = createPgBossQueue({ boss: quiet, pool, queue, table });
    const heard: unknown[] = [];
    const { deliver } = receiverOf(adapter, { onError: (error) => void heard.push(error) });
    expect(await deliver(`MAN-short1-${seconds}`)).toBe(200);
    expect(await deliver(`MAN-short2-${seconds}`)).toBe(500);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeInstanceOf(QueueError);
    expect(heard[0]).toMatchObject({ name: 'QueueError', message: `payorch/pg-boss: pg-boss did not take the job on ${queue} (is the queue's policy 'standard'?); not queued` });
  });

  test.concurrent('work refuses to start without the dead letters’ table, naming it and how to create it, before it takes a job', async () => {
    made += 1;
    const queue = `adapter-${process.pid}-${made}`;
    const adapter = createPgBossQueue({ boss: quiet, pool, queue, table: `missing_dead_letters_${process.pid}` });
    const refused: unknown = await adapter.work({ apply: () => Promise.resolve() }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QueueError);
    expect((refused as Error).message).toMatch(/^payorch\/pg-boss: "public"\."missing_dead_letters_\d+" \(the dead letters' table of payorch\/pg-boss\) does not exist: create it with createPgBossDeadLetterTable/);
    expect(await quiet.getQueue(queue)).toBeNull();
  });

  test.concurrent('list pages oldest first with a cursor, never reads a job’s customer fields, and each adapter sees only its own queue’s dead letters in a shared table', async () => {
    const { adapter, queue, table } = await fresh(quiet);
    const neighbour = createPgBossQueue({ boss: quiet, pool, queue: `${queue}-neighbour`, table });
    const job = (code: string) => JSON.stringify({ version: 2, kind: 'deposit', merchantId: 'merchant-pgboss', receivedAt: 1_763_812_345_000, payload: { ...unsigned.deposit, tracking_code: code } });
    for (const [index, name] of [queue, queue, queue, `${queue}-neighbour`].entries()) {
      await pool.query(`INSERT INTO ${table} (id, queue, job, attempts, last_error) VALUES ($1, $2, $3, 3, 'Error: x')`, [`id-${made}-${index}`, name, job(`MAN-pbpage${index}-${seconds}`)]);
    }
    const first = await adapter.deadLetters.list({ limit: 2 });
    expect(first.deadLetters.map((each) => each.trackingCode)).toEqual([`MAN-pbpage0-${seconds}`, `MAN-pbpage1-${seconds}`]);
    expect(first.deadLetters[0]?.receivedAt).toEqual(new Date(1_763_812_345_000));
    expect(JSON.stringify(first)).not.toContain(unsigned.deposit.fullname);
    const second = await adapter.deadLetters.list({ limit: 2, cursor: first.cursor });
    expect(second.deadLetters.map((each) => each.trackingCode)).toEqual([`MAN-pbpage2-${seconds}`]);
    expect(second.cursor).toBeUndefined();
    expect((await neighbour.deadLetters.list()).deadLetters.map((each) => each.trackingCode)).toEqual([`MAN-pbpage3-${seconds}`]);
    expect(await adapter.deadLetters.get(`id-${made}-3`)).toBeUndefined();
    expect(await adapter.deadLetters.purge({ before: new Date(Date.now() + 60_000) })).toEqual({ purged: 3 });
    expect((await neighbour.deadLetters.list()).deadLetters).toHaveLength(1);
  });

  test.concurrent('a worker fetches its next batch at once while batches come back full, and settles each job of a batch on its own', async () => {
    const { adapter } = await fresh(quiet);
    const { receiver, ledger, failing, deliver } = receiverOf(adapter);
    const codes = Array.from({ length: 7 }, (_, index) => `MAN-pbburst${index}-${seconds - 60}`);
    failing.add(codes[3] as string);
    for (const code of codes) expect(await deliver(code)).toBe(200);
    let runs = 0;
    const counting = { apply: (job: CallbackJob, options?: Parameters<typeof receiver.apply>[1]) => ((runs += 1), receiver.apply(job, options)) };
    // One worker, two jobs a fetch, and an interval no test waits for: only fetching again after a
    // full batch applies the seven.
    const workers = await adapter.work(counting, { pollingIntervalSeconds: 600, localConcurrency: 1, batchSize: 2, onDeadLetter: () => undefined });
    try {
      const others = codes.filter((code) => code !== codes[3]);
      await waitFor(() => others.every((code) => ledger.includes(code)), 20_000, 'the six that succeed, applied in one burst');
      // The failing job's batch-mate was applied once: its failure failed nothing else.
      expect([...ledger].sort()).toEqual([...others].sort());
      expect(runs).toBeGreaterThanOrEqual(7);
    } finally {
      await workers.stop();
    }
  }, 60_000);

  test.concurrent('the jobs of a worker killed while applying them are applied again once its heartbeat stops, long before expireInSeconds', async () => {
    const { adapter, queue } = await fresh(supervised, { heartbeatSeconds: 10 });
    const { receiver, ledger, deliver } = receiverOf(adapter);
    const codes = [`MAN-pbkilled1-${seconds - 60}`, `MAN-pbkilled2-${seconds - 60}`];
    for (const code of codes) expect(await deliver(code)).toBe(200);
    // A worker that took both and died without a word: no heartbeat, and 300 s of expireInSeconds.
    const taken = await supervised.fetch(queue, { batchSize: 2 });
    expect(taken).toHaveLength(2);
    // Its silence, as if the 10 s of heartbeatSeconds had gone by (pg-boss refuses less than 10):
    // each job's last heartbeat made that much older, under the heartbeatSeconds the adapter gave
    // pg-boss. pg-boss's supervision, every second, then finds them lost.
    const silenced = await pool.query(
      `UPDATE pgboss_adapter_supervised.job SET heartbeat_on = heartbeat_on - interval '10 seconds' WHERE name = $1 AND state = 'active' AND heartbeat_seconds = 10 RETURNING id`,
      [queue],
    );
    expect(silenced.rows.map((row: { id: string }) => row.id).sort()).toEqual(taken.map((job) => job.id).sort());
    const started = Date.now();
    const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, onDeadLetter: () => undefined });
    try {
      await waitFor(() => codes.every((code) => ledger.includes(code)), 60_000, 'the killed worker’s jobs, applied by another');
      expect(Date.now() - started).toBeLessThan(300_000);
      expect([...ledger].sort()).toEqual([...codes].sort());
    } finally {
      await workers.stop();
    }
  }, 90_000);

  test.concurrent('pg-boss deletes a job waiting for a retry once its retention, counted from its sending, passes, with no dead letter: the retention must outlast the retries', async () => {
    const { adapter, queue, table } = await fresh(quiet, { retries: 1, retryDelaySeconds: 3000 });
    const { receiver, failing, deliver } = receiverOf(adapter);
    const code = `MAN-pbretained-${seconds - 60}`;
    failing.add(code);
    const keptFor = async () => (await pool.query<{ seconds: number; state: string }>(`SELECT extract(epoch FROM keep_until - created_on)::int AS seconds, state FROM pgboss_adapter_quiet.job WHERE name = $1`, [queue])).rows[0];
    expect(await deliver(code)).toBe(200);
    expect(await keptFor()).toEqual({ seconds: 90 * 86_400, state: 'created' });
    const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, onDeadLetter: () => undefined });
    try {
      await waitFor(async () => (await keptFor())?.state === 'retry', 15_000, 'the job waiting for its retry');
    } finally {
      await workers.stop();
    }
    // A retry does not move the deadline.
    expect(await keptFor()).toEqual({ seconds: 90 * 86_400, state: 'retry' });
    await expireQueues(quiet, pool, 'pgboss_adapter_quiet', [queue, `${queue}-dead`]);
    expect(await pgBossRows(pool, 'pgboss_adapter_quiet', [queue, `${queue}-dead`])).toBe(0);
    expect((await pool.query(`SELECT id FROM ${table}`)).rows).toEqual([]);
    expect(() => createPgBossQueue({ boss: quiet, pool, queue, table, retentionSeconds: 3600 })).toThrow(/retentionSeconds must outlast the retries/);
  }, 60_000);

  test('a job that can never apply is a dead letter at its first attempt, with the refusal as its last error, told on the console by default', async () => {
    const { adapter } = await fresh(quiet, { retries: 5 });
    const { receiver } = receiverOf(adapter);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5 });
    try {
      // A job of another merchant that shares the queue.
      const code = `MAN-pbother-${seconds - 60}`;
      await adapter.enqueue(await sealedJob('merchant-other', code));
      const deadLetter = await deadLetterOf(adapter, code);
      expect(deadLetter).toMatchObject({ attempts: 1, merchantId: 'merchant-other' });
      expect(deadLetter.lastError).toMatch(/^CallbackJobError: .*another merchant/);
      await waitFor(() => logged.mock.calls.some(([line]) => String(line).includes(`the job ${deadLetter.id} (deposit ${code} completed) is a dead letter after 1 attempt(s): CallbackJobError`)), 5000, 'the dead letter on the console');
    } finally {
      await workers.stop();
    }
  }, 60_000);

  test('the meter counts the jobs waiting, and onBacklog (by default the console) is told when they keep growing', async () => {
    const { adapter, queue } = await fresh(supervised);
    const { deliver } = receiverOf(adapter);
    const observed: { value: number; attributes: unknown }[] = [];
    let collect: ((result: { observe(value: number, attributes?: Readonly<Record<string, string>>): void }) => void) | undefined;
    const meter = {
      createCounter: () => ({ add: () => undefined }),
      createHistogram: () => ({ record: () => undefined }),
      createObservableUpDownCounter: (name: string) => ({
        addCallback: (callback: NonNullable<typeof collect>) => {
          if (name === 'payorch.queue.backlog') collect = callback;
        },
      }),
    };
    const told: PgBossBacklog[] = [];
    let release: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    // One job at a time, and it never ends: every callback delivered after it waits.
    const workers = await adapter.work({ apply: () => hung }, { localConcurrency: 1, batchSize: 1, backlogCheckSeconds: 1, meter, onBacklog: (backlog) => void told.push(backlog), onDeadLetter: () => undefined });
    // A second process of workers, told the default way.
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const others = await adapter.work({ apply: () => hung }, { localConcurrency: 1, batchSize: 1, backlogCheckSeconds: 1, onDeadLetter: () => undefined });
    const warning = () => warned.mock.calls.find(([line]) => String(line).includes(`jobs wait on ${queue}, up from`));
    try {
      let delivered = 0;
      await waitFor(
        async () => {
          delivered += 1;
          expect(await deliver(`MAN-pbpile${delivered}-${seconds - 60}`)).toBe(200);
          return told.length > 0 && warning() !== undefined;
        },
        45_000,
        'onBacklog, while callbacks pile up',
      );
      const [backlog] = told;
      expect(backlog?.queue).toBe(queue);
      expect(backlog?.ready).toBeGreaterThan(backlog?.readyBefore ?? Number.POSITIVE_INFINITY);
      collect?.({ observe: (value, attributes) => void observed.push({ value, attributes }) });
      expect(observed[0]?.value).toBeGreaterThan(0);
      expect(observed[0]?.attributes).toEqual({ 'payorch.queue': queue });
      expect(String(warning()?.[0])).toMatch(/^payorch\/pg-boss: \d+ jobs wait on \S+, up from \d+ 3 s before: the workers do not keep up\. Run more worker processes, or raise localConcurrency or batchSize \(docs\/deferred\.md, On pg-boss\)$/);
    } finally {
      release();
      warned.mockRestore();
      await Promise.all([workers.stop(), others.stop()]);
    }
  }, 90_000);
});
