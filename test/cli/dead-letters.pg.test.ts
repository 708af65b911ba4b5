import { randomUUID } from 'node:crypto';
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createPgBossDeadLetterTable, createPgBossQueue } from '../../src/queues/pg-boss/index.js';
import type { PgBossQueue } from '../../src/queues/pg-boss/index.js';
import { createCallbackReceiver, signCallback } from '../../src/webhooks/index.js';
import type { CallbackJob, SignedCallbackJob } from '../../src/webhooks/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { waitFor } from '../helpers/deferred.js';
import { temporaryProject } from '../helpers/project.js';
import type { TemporaryProject } from '../helpers/project.js';
import { PROVIDER } from '../helpers/wire.js';
import { TERMINAL_CONTROLS, expectNoSecret, payorch } from './run.js';

// `payorch dead-letters` on pg-boss 12 and the test PostgreSQL: dead letters kept by
// payorch/pg-boss's own worker, or written into its table as the worker writes them, and the
// command run in a merchant's project of the test's own whose node_modules holds pg and pg-boss.
// The BullMQ side, and the command line's own refusals: dead-letters.test.ts.

const url = inject('postgresUrl');
const SCHEMA = 'pgboss_cli';
const seconds = Math.floor(Date.now() / 1000) - 60;
let pool: pg.Pool;
let boss: PgBoss;
let project: TemporaryProject;
const tables: string[] = [];
const working: { stop(): Promise<void> }[] = [];
let made = 0;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  boss = new PgBoss({ connectionString: url, schema: SCHEMA, schedule: false, supervise: false });
  boss.on('error', () => undefined);
  await boss.start();
  project = temporaryProject(['pg', 'pg-boss']);
}, 30_000);
afterAll(async () => {
  await Promise.all(working.map((workers) => workers.stop()));
  await boss.stop({ graceful: false });
  if (tables.length > 0) await pool.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
  await pool.end();
  project.close();
});

const code = (name: string) => `MAN-${name}-${String(seconds)}`;

/**
 * A queue of the test's own, its table, and the merchant's adapter over them (three retries, none
 * waiting): `work()` starts a worker whose deposit handler throws while `failing.on` and records
 * each code it applies.
 */
async function deadQueue() {
  made += 1;
  const queue = `cli-${String(process.pid)}-${String(made)}`;
  const table = `dead_letters_cli_${String(process.pid)}_${String(made)}`;
  tables.push(table);
  await createPgBossDeadLetterTable({ pool, table });
  const adapter: PgBossQueue = createPgBossQueue({ boss, pool, queue, table, retries: 3, retryDelaySeconds: 0, retryBackoff: false });
  const failing = { on: true };
  const applied: string[] = [];
  const receiver = createCallbackReceiver({ ...PROVIDER, merchantId: 'shop', onError: () => undefined, logLevel: 'off' });
  receiver.on('deposit', (callback) => {
    if (failing.on) throw new Error('the ledger is locked');
    applied.push(callback.payload.tracking_code);
  });
  const where = `queue ${queue} (pg-boss, ${table} on ${url.replace(/\/\/[^@/]*@/, '//')})`;
  return {
    queue,
    table,
    adapter,
    failing,
    applied,
    where,
    async work() {
      const workers = await adapter.work(receiver, { pollingIntervalSeconds: 0.5, localConcurrency: 20, onDeadLetter: () => undefined });
      working.push(workers);
    },
    /** Jobs of genuine deposit callbacks of each code, sealed by the merchant's receiver. */
    async jobs(codes: readonly string[], fields: Record<string, unknown> = {}): Promise<CallbackJob[]> {
      const jobs: CallbackJob[] = [];
      const sender = createCallbackReceiver({ ...PROVIDER, merchantId: 'shop', enqueue: (job) => Promise.resolve(void jobs.push(job)), onError: () => undefined, logLevel: 'off' });
      for (const each of codes) {
        const { headers, body } = signCallback({ ...unsigned.deposit, ...fields, tracking_code: each }, PROVIDER);
        expect((await sender.handle(new Request('https://shop.test/callbacks', { method: 'POST', headers, body }))).status).toBe(200);
      }
      return jobs;
    },
    /** Writes jobs into the table as dead letters, as the worker keeps them; resolves with their ids. */
    async bury(jobs: readonly CallbackJob[], lastError = 'Error: the ledger is locked'): Promise<string[]> {
      const ids = jobs.map(() => randomUUID());
      await pool.query(`INSERT INTO ${table} (id, queue, job, attempts, last_error) SELECT unnest($1::text[]), $2, unnest($3::jsonb[]), 4, $4`, [ids, queue, jobs.map((job) => JSON.stringify(job)), lastError]);
      return ids;
    },
    ids: async () => (await adapter.deadLetters.list({ limit: 1000 })).deadLetters.map((letter) => letter.id),
    /** `payorch dead-letters <args>` on this queue, run in the merchant's project with DATABASE_URL set. */
    cli: (args: readonly string[], directory = project.directory) => payorch(['dead-letters', ...args, '--queue', queue, '--table', table, '--pg-boss-schema', SCHEMA], { DATABASE_URL: url }, '', directory),
  };
}

const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('payorch dead-letters on pg-boss 12', { timeout: 60_000 }, () => {
  test('list prints the dead letters the worker kept, oldest first, with their kind, tracking code, status, merchant, attempts and last error; --json the page ($DATABASE_URL chose pg-boss)', async () => {
    const queue = await deadQueue();
    await queue.work();
    for (const job of await queue.jobs([code('pglist01a'), code('pglist01b')])) await queue.adapter.enqueue(job);
    await waitFor(async () => (await queue.ids()).length === 2, 30_000, 'two dead letters');
    const [first, second] = await queue.ids();

    const text = await queue.cli(['list']);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const letter = (id = '', name = '') => `${id}  deposit ${code(name)} completed\n  merchant shop, received ${ISO}, died ${ISO} after 4 attempt\\(s\\)\n  last error: Error: the ledger is locked\n`;
    // Which of the two died first is the worker's: the table's order is the command's.
    const [a, b] = (await queue.adapter.deadLetters.list()).deadLetters.map((each) => each.trackingCode.split('-')[1] ?? '');
    expect(text.stdout).toMatch(new RegExp(`^2 dead letter\\(s\\) of ${escape(queue.where)}, oldest first:\n${letter(first, a)}${letter(second, b)}$`));

    const json = await queue.cli(['list', '--json', '--limit', '1']);
    const page = JSON.parse(json.stdout) as { deadLetters: Record<string, unknown>[]; cursor: string };
    expect(page.deadLetters).toEqual([{ id: first, kind: 'deposit', trackingCode: code(a ?? ''), status: 'completed', merchantId: 'shop', receivedAt: expect.stringMatching(new RegExp(`^${ISO}$`)) as unknown, attempts: 4, lastError: 'Error: the ledger is locked', deadAt: expect.stringMatching(new RegExp(`^${ISO}$`)) as unknown, history: [] }]);
    const next = JSON.parse((await queue.cli(['list', '--json', '--limit', '1', '--cursor', page.cursor])).stdout) as { deadLetters: { id: string }[]; cursor?: string };
    expect(next.deadLetters.map((each) => each.id)).toEqual([second]);
    expect(next.cursor).toBeUndefined();
  });

  test('show prints one dead letter and its job without its hashes; a job’s control characters are escaped', async () => {
    const queue = await deadQueue();
    const [job] = await queue.jobs([code('pgshow02')], { fullname: 'Ada\u2028\u202eYılmaz' });
    const [id = ''] = await queue.bury(job === undefined ? [] : [job], 'Error: locked\u001b[2J\rOK\u0085');
    const signed = job as SignedCallbackJob;

    const text = await queue.cli(['show', id]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${id}  deposit ${code('pgshow02')} completed\n`);
    expect(text.stdout).toContain('  last error: Error: locked\\u001b[2J\\rOK\\u0085\n');
    expect(text.stdout).toContain('"fullname": "Ada\\u2028\\u202eYılmaz"');
    expect(text.stdout).not.toMatch(TERMINAL_CONTROLS);
    const list = await queue.cli(['list']);
    expect(list.stdout).toContain('  last error: Error: locked\\u001b[2J\\rOK\\u0085\n');
    expect(list.stdout).not.toMatch(TERMINAL_CONTROLS);

    const json = JSON.parse((await queue.cli(['show', id, '--json'])).stdout) as { job: { signature: object; seal: object; payload: object } };
    expect(json.job.signature).toEqual({ timestamp: signed.signature.timestamp, in: 'headers' });
    expect(json.job.seal).toEqual({ keyId: signed.seal.keyId });
    expect(json.job.payload).not.toHaveProperty('hash');
    for (const run of [text, list]) {
      expect(run.stdout).not.toContain(signed.signature.hash);
      expect(run.stdout).not.toContain(signed.seal.mac);
    }
    expect(await queue.cli(['show', randomUUID()])).toMatchObject({ code: 1, stdout: '' });
  });

  test('replay <id> sends the job with the queue’s own policy, which the merchant’s adapter set, and the worker applies it once', async () => {
    const queue = await deadQueue();
    queue.failing.on = false;
    await queue.work();
    const [id = '', other] = await queue.bury(await queue.jobs([code('pgone03a'), code('pgone03b')]));

    const run = await queue.cli(['replay', id]);
    expect(run).toEqual({ code: 0, stdout: `Replayed 1 of the 1 dead letter(s) named, of ${queue.where}.\n`, stderr: '' });
    expect(await queue.ids()).toEqual([other]);
    await waitFor(() => queue.applied.length === 1, 15_000, 'the replayed job to be applied');
    expect(queue.applied).toEqual([code('pgone03a')]);
    // Not the adapter's defaults (10 retries): the three of the merchant's createPgBossQueue.
    const { rows } = await pool.query<{ retry_limit: number; dead_letter: string }>(`SELECT retry_limit, dead_letter FROM ${SCHEMA}.job WHERE name = $1`, [queue.queue]);
    expect(rows).toEqual([{ retry_limit: 3, dead_letter: `${queue.queue}-dead` }]);
    const again = await queue.cli(['replay', id, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ replayed: 0, missing: 1 });
  });

  test('replay --all sends every dead letter, over more than one batch of 100, each once', async () => {
    const queue = await deadQueue();
    // The worker creates the queue, as the merchant's did before any job died; it applies once replayed.
    queue.failing.on = false;
    await queue.work();
    const codes = Array.from({ length: 130 }, (_, index) => code(`pgall04n${String(index).padStart(3, '0')}`));
    await queue.bury(await queue.jobs(codes));

    const run = await queue.cli(['replay', '--all', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ replayed: 130, remaining: 0 });
    const { rows } = await pool.query<{ code: string }>(`SELECT (data->>'job')::jsonb->'payload'->>'tracking_code' AS code FROM ${SCHEMA}.job WHERE name = $1`, [queue.queue]);
    expect(rows.map((row) => row.code).sort()).toEqual([...codes].sort());
    await waitFor(() => queue.applied.length >= codes.length, 40_000, 'every replayed job to be applied');
    expect([...queue.applied].sort()).toEqual([...codes].sort());
  });

  test('purge deletes dead letters by id, then every one that died before a time, with --yes', async () => {
    const queue = await deadQueue();
    const [a = '', b = '', c] = await queue.bury(await queue.jobs([code('pgpurge05a'), code('pgpurge05b'), code('pgpurge05c')]));
    await pool.query(`UPDATE ${queue.table} SET dead_at = now() - interval '40 days' WHERE id = $1`, [b]);

    expect(await queue.cli(['purge', a, '--yes'])).toEqual({ code: 0, stdout: `Purged 1 of the 1 dead letter(s) named, of ${queue.where}.\n`, stderr: '' });
    const before = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    expect(await queue.cli(['purge', '--before', before, '--yes'])).toEqual({ code: 0, stdout: `Purged 1 dead letter(s) of ${queue.where} that died before ${before}T00:00:00.000Z.\n`, stderr: '' });
    expect(await queue.ids()).toEqual([c]);
  });

  test('pg and pg-boss come from the project in the current directory: listing needs pg, replaying pg-boss too, each named with its npm install', async () => {
    const queue = await deadQueue();
    const withoutPg = temporaryProject();
    const withPgOnly = temporaryProject(['pg']);
    try {
      const none = await queue.cli(['list'], withoutPg.directory);
      expect(none.code).toBe(2);
      expect(none.stderr).toBe(`payorch dead-letters: pg is not installed in ${withoutPg.directory}: payorch dead-letters uses your project's own pg, as your workers do. Run npm install pg there, or run the command from the project's directory\nSee payorch dead-letters --help.\n`);
      expect(await queue.cli(['list'], withPgOnly.directory)).toEqual({ code: 0, stdout: `No dead letters in ${queue.where}.\n`, stderr: '' });
      const replay = await queue.cli(['replay', '--all'], withPgOnly.directory);
      expect(replay.code).toBe(2);
      expect(replay.stderr).toContain(`pg-boss is not installed in ${withPgOnly.directory}: payorch dead-letters uses your project's own pg-boss, as your workers do. Run npm install pg-boss there`);
    } finally {
      withoutPg.close();
      withPgOnly.close();
    }
  });

  test('a table that is not the dead letters’ one, or a database that refuses, fails with exit 1 and no password', async () => {
    const missing = await payorch(['dead-letters', 'list', '--database-url', url, '--table', 'no_such_dead_letters'], {}, '', project.directory);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^payorch dead-letters: could not open the dead letters of queue payorch-callbacks on postgres.*: payorch\/pg-boss: "[^"]+"\."no_such_dead_letters" \(the dead letters' table of payorch\/pg-boss\) does not exist: create it with createPgBossDeadLetterTable/);

    const wrong = new URL(url);
    wrong.username = 'nobody_here';
    wrong.password = 'hunter2-postgres-password';
    const refused = await payorch(['dead-letters', 'list', '--database-url', wrong.href], {}, '', project.directory);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^payorch dead-letters: could not open the dead letters of queue payorch-callbacks on postgres/);
    expectNoSecret(refused, 'hunter2-postgres-password');
  });
});
