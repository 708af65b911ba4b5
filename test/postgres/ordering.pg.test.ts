// The end statuses of one tracking code are applied one at a time, across OS processes
// (docs/inboxes.md, "PostgreSQL"): two receiver instances, each a process of its own
// (fixtures/refund-instance.ts), race `rejected` and `failed` of one fresh withdrawal with the
// guide's refund-once handler, inline and through `receiver.apply` of deferred jobs.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createCallbackReceiver, InboxError, signCallback } from '../../src/index.js';
import type { CallbackJob } from '../../src/webhooks/index.js';
import { createPostgresInboxTable, createPostgresInbox } from '../../src/inboxes/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deferred, deliver } from '../helpers/serve.js';
import type { Delivery } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

const table = `ordering_${process.pid}`;
const ledger = `ordering_ledger_${process.pid}`;
const gate = `ordering_gate_${process.pid}`;
let admin: pg.Pool;
const children: ChildProcess[] = [];
let instances: [string, string];

/** Starts one instance in its own process; resolves with its URL once it listens. */
function startInstance(name: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'refund-instance.ts'), inject('postgresUrl'), table, ledger, gate, name], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port !== undefined) resolve(`http://127.0.0.1:${port}`);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('exit', (code) => { reject(new Error(`instance ${name} exited (${String(code)}):\n${output}`)); });
  });
}

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: inject('postgresUrl'), max: 3 });
  admin.on('error', () => undefined);
  await createPostgresInboxTable({ pool: admin, table });
  await admin.query(`CREATE TABLE ${ledger} (tracking_code text NOT NULL, status text NOT NULL, applied_before text[] NOT NULL, refunded boolean NOT NULL, instance text NOT NULL)`);
  await admin.query(`CREATE TABLE ${gate} (open boolean); INSERT INTO ${gate} VALUES (true)`);
  const [a, b] = await Promise.all([startInstance('a'), startInstance('b')]);
  instances = [a, b];
}, 30_000);
afterAll(async () => {
  await Promise.all(children.map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => { resolve(); });
    child.kill('SIGTERM');
  })));
  await admin.query(`DROP TABLE IF EXISTS ${table}, ${ledger}, ${gate}`);
  await admin.end();
});

/** How many sessions wait on a lock in a statement that mentions `text`. */
async function waitingIn(text: string): Promise<number> {
  const { rows } = await admin.query<{ count: string }>(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%${text}%`]);
  return Number(rows[0]?.count);
}

/** Holds the gate's row, so that every handler stops on it, until the returned function opens it. */
async function closeGate(): Promise<() => Promise<void>> {
  const client = await admin.connect();
  await client.query('BEGIN');
  await client.query(`SELECT 1 FROM ${gate} FOR UPDATE`);
  return async () => {
    await client.query('COMMIT');
    client.release();
  };
}

function withdrawal(trackingCode: string, status: string): Delivery {
  return signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status }, PROVIDER);
}

/** The job a deferred receiver hands its queue for this delivery. */
async function jobOf(delivery: Delivery): Promise<CallbackJob> {
  let job: CallbackJob | undefined;
  const enqueuing = createCallbackReceiver({ ...PROVIDER, enqueue: (queued) => {
    job = queued;
    return Promise.resolve();
  } });
  expect(await enqueuing.receive({ headers: delivery.headers, body: delivery.body })).toMatchObject({ status: 200 });
  if (job === undefined) throw new Error('nothing was enqueued');
  return job;
}

async function applyJob(url: string, job: CallbackJob): Promise<number> {
  const response = await fetch(`${url}/apply`, { method: 'POST', body: JSON.stringify(job) });
  await response.text();
  return response.status;
}

async function ledgerOf(trackingCode: string) {
  const { rows } = await admin.query<{ status: string; applied_before: string[]; refunded: boolean }>(`SELECT status, applied_before, refunded FROM ${ledger} WHERE tracking_code = $1 ORDER BY array_length(applied_before, 1) NULLS FIRST`, [trackingCode]);
  return rows;
}

// Each case a withdrawal neither of whose statuses was applied before.
let sequence = 0;
const freshCode = (): string => `WIT-race${String(++sequence).padStart(2, '0')}x${process.pid}-1763812000`;

describe('rejected and failed of one withdrawal, racing on two instances in two processes', () => {
  test.each([
    ['inline', 'rejected', 'failed'],
    ['inline', 'failed', 'rejected'],
    ['through receiver.apply', 'rejected', 'failed'],
    ['through receiver.apply', 'failed', 'rejected'],
  ] as const)('%s, %s first: refunded once, the second handler saw the first, and a redelivery of either is a duplicate', async (route, first, second) => {
    const code = freshCode();
    const [deliveryA, deliveryB] = [withdrawal(code, first), withdrawal(code, second)];
    const [jobA, jobB] = route === 'inline' ? [undefined, undefined] : await Promise.all([jobOf(deliveryA), jobOf(deliveryB)]);
    const send = (url: string, delivery: Delivery, job: CallbackJob | undefined): Promise<number> =>
      job === undefined ? deliver(url, delivery).then((answer) => answer.status) : applyJob(url, job);

    const open = await closeGate();
    const answers: Promise<number>[] = [];
    try {
      answers.push(send(instances[0], deliveryA, jobA));
      // The first handler runs, its claim made, and holds its transaction open on the gate.
      await vi.waitFor(async () => { expect(await waitingIn(`FROM ${gate} FOR SHARE`)).toBe(1); }, { timeout: 4000 });
      answers.push(send(instances[1], deliveryB, jobB));
      // The second status's claim, in the other process, waits for the first's transaction (were
      // it not to, its handler would reach the gate too, having seen nothing applied).
      await vi.waitFor(async () => { expect(await waitingIn(`INSERT INTO "public"."${table}"`) + (await waitingIn(`FROM ${gate} FOR SHARE`))).toBe(2); }, { timeout: 4000 });
    } finally {
      await open();
    }
    expect(await Promise.all(answers)).toEqual([200, 200]);

    expect(await ledgerOf(code)).toEqual([
      { status: first, applied_before: [], refunded: true },
      { status: second, applied_before: [first], refunded: false },
    ]);
    // Redeliveries of both, to both instances: duplicates, no handler runs.
    const again = await Promise.all([send(instances[1], deliveryA, jobA), send(instances[0], deliveryB, jobB), send(instances[0], deliveryA, jobA)]);
    expect(again).toEqual([200, 200, 200]);
    expect(await ledgerOf(code)).toHaveLength(2);
  });
});

describe('claims of one tracking code wait for each other; of other codes, never', () => {
  test('a claim of another tracking code completes while one is held; one of the same code waits, then sees it', async () => {
    const inbox = createPostgresInbox({ pool: admin, table });
    const hold = deferred();
    const started = deferred();
    const [code, other] = [freshCode(), freshCode()];
    const first = inbox.process({ merchantId: 'acct', trackingCode: code, status: 'rejected' }, async () => {
      started.resolve();
      await hold.promise;
    });
    await started.promise;
    const seen: (readonly string[])[] = [];
    expect(await inbox.process({ merchantId: 'acct', trackingCode: other, status: 'failed' }, ({ appliedStatuses }) => { seen.push(appliedStatuses); return Promise.resolve(); })).toBe('applied');
    const second = inbox.process({ merchantId: 'acct', trackingCode: code, status: 'failed' }, ({ appliedStatuses }) => { seen.push(appliedStatuses); return Promise.resolve(); });
    await vi.waitFor(async () => { expect(await waitingIn(`INSERT INTO "public"."${table}"`)).toBe(1); });
    hold.resolve();
    expect([await first, await second]).toEqual(['applied', 'applied']);
    expect(seen).toEqual([[], ['rejected']]);
  });

  test('a claim that waits longer than lockTimeoutMs fails, nothing recorded, and its redelivery applies after', async () => {
    const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 2 });
    try {
      const inbox = createPostgresInbox({ pool, table, lockTimeoutMs: 50 });
      const hold = deferred();
      const started = deferred();
      const code = freshCode();
      const first = inbox.process({ merchantId: 'acct', trackingCode: code, status: 'rejected' }, async () => {
        started.resolve();
        await hold.promise;
      });
      await started.promise;
      const apply = vi.fn(() => Promise.resolve());
      const key = { merchantId: 'acct', trackingCode: code, status: 'failed' };
      const refused = await inbox.process(key, apply).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InboxError);
      expect((refused as InboxError).message).toBe(`payorch/postgres: another callback of ${code} was being applied for longer than lockTimeoutMs (50 ms); not applied, so that it is delivered again`);
      expect((refused as InboxError).cause).toMatchObject({ code: '55P03' });
      expect(apply).not.toHaveBeenCalled();
      hold.resolve();
      expect(await first).toBe('applied');
      expect(await inbox.process(key, apply)).toBe('applied');
      expect(apply).toHaveBeenCalledWith(expect.objectContaining({ appliedStatuses: ['rejected'] }));
    } finally {
      await pool.end();
    }
  });
});
