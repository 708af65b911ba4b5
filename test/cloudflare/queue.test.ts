import { Miniflare } from '../helpers/miniflare.js';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { createCallbackReceiver, signCallback } from '../../src/index.js';
import type { CallbackJob } from '../../src/index.js';
import { d1DeadLettersTableSql } from '../../src/queues/cloudflare-queues/index.js';
import { d1InboxTableSql } from '../../src/inboxes/d1/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { until } from '../helpers/deferred.js';
import { bundleWorkerFile } from '../helpers/worker-bundle.js';
import { PROVIDER } from '../helpers/wire.js';
import { merchantIdOf } from '../../src/webhooks/key.js';

// payorch/cloudflare-queues as it runs: test/cloudflare/queue-worker.ts is the Worker's main
// module, bundled from dist/ as wrangler bundles it, in workerd (miniflare) with a local Queue, its
// dead-letter queue and D1, without nodejs_compat, reached over real HTTP. The consumer retries a
// message twice, then moves it to the dead-letter queue, whose consumer gets one delivery only:
// a dead letter is in D1 after that first delivery, or nowhere. The tests read D1 and what workerd
// printed; a queue delivers in about 0.1 s, so they poll.
let miniflare: Miniflare;
let origin: URL;
let printed = '';
const seconds = Math.floor(Date.now() / 1000);
const REPLAY_TOKEN = 'replay-token-0123456789abcdef0123456789';
const QUEUED = { status: 200, body: { success: true } };

beforeAll(async () => {
  miniflare = new Miniflare({
    modules: true,
    script: await bundleWorkerFile('test/cloudflare/queue-worker.ts'),
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'queue' },
    queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } },
    queueConsumers: {
      'payorch-callbacks': { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 2, deadLetterQueue: 'payorch-callbacks-dead' },
      'payorch-callbacks-dead': { maxBatchSize: 100, maxBatchTimeout: 0, maxRetries: 0 },
    },
    bindings: { API_KEY: PROVIDER.apiKey, SECRET_KEY: PROVIDER.secretKey, REPLAY_TOKEN },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    },
  });
  origin = await miniflare.ready;
  await sql(
    [d1InboxTableSql()],
    [d1DeadLettersTableSql()],
    ['CREATE TABLE credits (tracking_code TEXT NOT NULL, amount REAL NOT NULL)'],
    ['CREATE TABLE failing (tracking_code TEXT PRIMARY KEY, times INTEGER NOT NULL)'],
    ['CREATE TABLE sent_batches (messages INTEGER NOT NULL, bytes INTEGER NOT NULL)'],
  );
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});
// Each test starts with no dead letter and no batch written down.
beforeEach(async () => {
  await sql(['DELETE FROM payorch_dead_letters'], ['DELETE FROM sent_batches']);
});

/** Runs statements in one D1 batch, in the Worker; the rows of each. */
async function sql(...statements: [string, ...unknown[]][]): Promise<unknown[][]> {
  const response = await fetch(new URL('/sql', origin), { method: 'POST', body: JSON.stringify(statements) });
  if (!response.ok) throw new Error(await response.text());
  return (await response.json()) as unknown[][];
}
const rows = async (text: string, ...values: unknown[]): Promise<unknown[]> => (await sql([text, ...values]))[0] ?? [];
const creditsOf = (code: string): Promise<unknown[]> => rows('SELECT amount FROM credits WHERE tracking_code = ?', code);
const deadCount = async (): Promise<number> => ((await rows('SELECT count(*) AS n FROM payorch_dead_letters WHERE dead_at IS NOT NULL'))[0] as { n: number }).n;
const fail = (code: string, times = 1_000_000): Promise<unknown> => rows('INSERT OR REPLACE INTO failing (tracking_code, times) VALUES (?, ?)', code, times);
const heal = (code: string): Promise<unknown> => rows('DELETE FROM failing WHERE tracking_code = ?', code);
const deposit = (code: string, amount = 10, extra: Record<string, unknown> = {}) => signCallback({ ...unsigned.deposit, ...extra, tracking_code: code, amount }, PROVIDER);
const code = (tag: string): string => `MAN-${tag}-${seconds - 60}`;
const webhooks = (): string => new URL('/webhooks', origin).href;


/** A call of `deadLetters` in the Worker: its result, or `{ error: { name, message } }`. */
async function deadLetters(op: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(new URL('/dead-letters', origin), { method: 'POST', body: JSON.stringify({ op, ...args }) });
  return (await response.json()) as Record<string, unknown>;
}
interface ListedDeadLetter {
  readonly id: string;
  readonly trackingCode: string;
  readonly attempts: number;
  readonly lastError: string;
  readonly deadAt: string;
}
const listed = async (args: Record<string, unknown> = {}) => (await deadLetters('list', args)) as { deadLetters: ListedDeadLetter[]; cursor?: string };

/** The job a receiver with the Worker's keys makes of a callback. */
async function jobOf(delivery: { readonly headers: Readonly<Record<string, string>>; readonly body: string }): Promise<CallbackJob> {
  const jobs: CallbackJob[] = [];
  const receiver = createCallbackReceiver({ ...PROVIDER, enqueue: (job) => Promise.resolve(void jobs.push(job)) });
  expect((await receiver.handle(new Request('https://receiver.test/', { method: 'POST', headers: delivery.headers, body: delivery.body }))).status).toBe(200);
  return jobs[0]!;
}
const send = (body: unknown): Promise<Response> => fetch(new URL('/send', origin), { method: 'POST', body: JSON.stringify(body) });
const replayRoute = (init: RequestInit = { method: 'POST', headers: { authorization: `Bearer ${REPLAY_TOKEN}` } }): Promise<Response> => fetch(new URL('/dead-letters/replay', origin), init);

test('a callback delivered three times, and its job sent twice more, is applied once and leaves nothing in D1', async () => {
  const applied = code('qonce01');
  const delivery = deposit(applied, 25);
  expect(await Promise.all([deliver(webhooks(), delivery), deliver(webhooks(), delivery), deliver(webhooks(), delivery)])).toEqual([QUEUED, QUEUED, QUEUED]);
  const job = await jobOf(delivery);
  await Promise.all([send(job), send(job)]);
  expect(await until(() => creditsOf(applied), (credits) => credits.length > 0)).toEqual([{ amount: 25 }]);
  // The later copies are duplicates, acknowledged: a later callback is applied after them.
  const later = code('qonce02');
  expect(await deliver(webhooks(), deposit(later))).toEqual(QUEUED);
  await until(() => creditsOf(later), (credits) => credits.length > 0);
  expect(await creditsOf(applied)).toEqual([{ amount: 25 }]);
  expect(await rows('SELECT id FROM payorch_dead_letters')).toEqual([]);
});

test('a job that fails twice is retried, and once applied its failures are forgotten', async () => {
  const retried = code('qretry1');
  await fail(retried, 2);
  expect(await deliver(webhooks(), deposit(retried, 40))).toEqual(QUEUED);
  expect(await until(() => creditsOf(retried), (credits) => credits.length > 0)).toEqual([{ amount: 40 }]);
  for (const attempt of [1, 2]) expect(printed).toMatch(new RegExp(`job \\w+ \\(attempt ${attempt}\\) not applied: Error: told to fail ${retried}; retried in 0 s, or a dead letter past max_retries`));
  expect(await until(() => rows('SELECT id FROM payorch_dead_letters'), (left) => left.length === 0)).toEqual([]);
});

test('a job that fails every attempt is kept in D1 on the dead-letter queue’s first delivery, listed with its attempts and last error, and get gives its job', async () => {
  const dead = code('qdead01');
  await fail(dead);
  const receivedFrom = Date.now();
  expect(await deliver(webhooks(), deposit(dead, 75))).toEqual(QUEUED);
  // The dead-letter consumer has maxRetries 0: no second delivery would have kept it.
  expect(await until(deadCount, (count) => count === 1)).toBe(1);
  const [letter, ...others] = (await listed()).deadLetters;
  expect(others).toEqual([]);
  expect(letter).toEqual({
    id: expect.stringMatching(/^[0-9a-f]{32}$/),
    kind: 'deposit',
    trackingCode: dead,
    status: 'completed',
    merchantId: merchantIdOf(PROVIDER.apiKey, undefined),
    receivedAt: expect.any(String),
    attempts: 3,
    lastError: `Error: told to fail ${dead}`,
    deadAt: expect.any(String),
    history: [],
  });
  const { receivedAt, deadAt } = letter as unknown as { receivedAt: string; deadAt: string };
  expect(Date.parse(receivedAt)).toBeGreaterThanOrEqual(receivedFrom);
  expect(Date.parse(deadAt)).toBeGreaterThanOrEqual(Date.parse(receivedAt));
  expect(printed).toContain(`the job ${letter!.id} (deposit ${dead} completed) is a dead letter after 3 attempt(s): Error: told to fail ${dead}. Kept in D1 until replayed or purged (deadLetters)`);
  // The list holds no key: the job, with its seal and the service's hash, only through get.
  expect(JSON.stringify(letter)).not.toContain(PROVIDER.secretKey);
  const got = (await deadLetters('get', { id: letter!.id })) as { job: CallbackJob };
  expect(got).toMatchObject({ id: letter!.id, trackingCode: dead });
  expect(got.job).toMatchObject({ version: 2, kind: 'deposit', event: 'deposit.completed', payload: { tracking_code: dead, amount: 75 }, seal: { keyId: expect.any(String) } });
  expect(await deadLetters('get', { id: '0'.repeat(32) })).toBeNull();
  expect(await creditsOf(dead)).toEqual([]);

  // Replayed once its cause is gone: applied once, and no longer a dead letter.
  await heal(dead);
  expect(await deadLetters('replay', { ids: [letter!.id] })).toEqual({ replayed: 1, remaining: 0 });
  expect(await until(() => creditsOf(dead), (credits) => credits.length > 0)).toEqual([{ amount: 75 }]);
  expect(await deadLetters('replay')).toEqual({ replayed: 0, remaining: 0 });
});

test('a job changed in the queue pays nothing: a dead letter at its first refusal, kept with it, refused again when replayed', async () => {
  const changed = code('qalter1');
  const job = await jobOf(deposit(changed, 10));
  // The amount raised in the queue: the receiver's seal no longer matches.
  const raised = { ...job, payload: { ...job.payload, amount: 10_000 } };
  expect((await send(raised)).status).toBe(204);
  expect(await until(deadCount, (count) => count === 1)).toBe(1);
  const [letter] = (await listed()).deadLetters;
  // Retrying cannot make its seal match: no second attempt.
  expect(letter).toMatchObject({ trackingCode: changed, attempts: 1, lastError: expect.stringMatching(/^CallbackJobError: Callback refused \(invalid_signature\): .*seal/) });
  const deadAt = (letter as unknown as { deadAt: string }).deadAt;
  expect(await deadLetters('replay')).toEqual({ replayed: 1, remaining: 0 });
  // Refused again, and dead again under the same id.
  const again = await until(listed, (page) => page.deadLetters.some((each) => (each as unknown as { deadAt: string }).deadAt !== deadAt));
  // Its attempts count both lives; the first is its history.
  expect(again.deadLetters).toEqual([expect.objectContaining({ id: letter!.id, attempts: 2, history: [expect.objectContaining({ attempts: 1, lastError: letter!.lastError })] })]);
  expect(await creditsOf(changed)).toEqual([]);
  // The genuine job still applies.
  expect((await send(job)).status).toBe(204);
  expect(await until(() => creditsOf(changed), (credits) => credits.length > 0)).toEqual([{ amount: 10 }]);
});

test('list pages oldest first with a cursor; purge removes the dead letters named, then those dead before a time', async () => {
  const codes = ['qpage01', 'qpage02', 'qpage03'].map(code);
  for (const each of codes) await fail(each);
  // One at a time, so that they die in this order.
  for (const [index, each] of codes.entries()) {
    expect(await deliver(webhooks(), deposit(each))).toEqual(QUEUED);
    await until(deadCount, (count) => count === index + 1);
  }
  const first = await listed({ limit: 2 });
  expect(first.deadLetters.map((letter) => letter.trackingCode)).toEqual(codes.slice(0, 2));
  const second = await listed({ limit: 2, cursor: first.cursor });
  expect(second.deadLetters.map((letter) => letter.trackingCode)).toEqual(codes.slice(2));
  expect(second.cursor).toBeUndefined();
  expect(await deadLetters('list', { limit: 0 })).toEqual({ error: { name: 'RequestValidationError', message: 'Invalid option for deadLetters.list: limit: must be an integer from 1 to 1000; got 0' } });
  expect(await deadLetters('list', { cursor: 'x' })).toMatchObject({ error: { message: expect.stringContaining('cursor: must be the cursor of the page before, as list returned it') } });

  expect(await deadLetters('purge', { ids: [first.deadLetters[0]!.id] })).toEqual({ purged: 1 });
  expect((await listed()).deadLetters.map((letter) => letter.trackingCode)).toEqual(codes.slice(1));
  expect(await deadLetters('purge', { before: Date.parse((await listed()).deadLetters[1]!.deadAt) })).toEqual({ purged: 1 });
  expect((await listed()).deadLetters.map((letter) => letter.trackingCode)).toEqual(codes.slice(2));
  expect(await deadLetters('purge', { before: Date.now() + 1000 })).toEqual({ purged: 1 });
  expect(await deadCount()).toBe(0);
  expect(await deadLetters('purge', {})).toMatchObject({ error: { message: expect.stringContaining('must be { ids } (the dead letters to delete) or { before }') } });
});

test('the replay route answers 404 without the token, with another, or to a GET, and replays with it', async () => {
  const dead = code('qroute1');
  await fail(dead);
  expect(await deliver(webhooks(), deposit(dead, 12))).toEqual(QUEUED);
  await until(deadCount, (count) => count === 1);
  expect((await replayRoute({ method: 'POST' })).status).toBe(404);
  expect((await replayRoute({ method: 'POST', headers: { authorization: `Bearer ${REPLAY_TOKEN}x` } })).status).toBe(404);
  expect((await replayRoute({ method: 'POST', headers: { authorization: REPLAY_TOKEN } })).status).toBe(404);
  expect((await replayRoute({ method: 'GET', headers: { authorization: `Bearer ${REPLAY_TOKEN}` } })).status).toBe(404);
  expect(await deadCount()).toBe(1);
  await heal(dead);
  const answer = await replayRoute();
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({ replayed: 1, remaining: 0 });
  expect(await until(() => creditsOf(dead), (credits) => credits.length > 0)).toEqual([{ amount: 12 }]);
});

test('50 dead letters of about 20 KB are replayed over several calls, two at a time, each batch within 100 messages and 256 KB, each sent once and credited once', async () => {
  // Twelve such jobs fill the 256 KB of one sendBatch, long before its 100 messages: fifty take
  // five batches, as a few hundred jobs of a few KB would.
  const codes = Array.from({ length: 50 }, (_, index) => code(`qbulk${String(index).padStart(3, '0')}`));
  await sql(...codes.map((each): [string, string] => ['INSERT INTO failing (tracking_code, times) VALUES (?, 1000000)', each]));
  // A long unsigned field makes each job about 20 KB.
  const note = 'n'.repeat(20_000);
  for (let start = 0; start < codes.length; start += 10) {
    const answers = await Promise.all(codes.slice(start, start + 10).map((each) => deliver(webhooks(), deposit(each, 1, { note }))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
  }
  expect(await until(deadCount, (count) => count === 50)).toBe(50);
  const sizes = await rows('SELECT min(length(job)) AS least, max(length(job)) AS most FROM payorch_dead_letters');
  expect(sizes).toEqual([{ least: expect.any(Number), most: expect.any(Number) }]);
  expect((sizes[0] as { least: number }).least).toBeGreaterThan(20_000);
  await rows("DELETE FROM failing WHERE tracking_code LIKE 'MAN-qbulk%'");

  const answers: { replayed: number; remaining: number }[] = [];
  for (let call = 0; call < 20; call += 1) {
    const pair = await Promise.all([replayRoute(), replayRoute()]);
    for (const answer of pair) answers.push((await answer.json()) as { replayed: number; remaining: number });
    if (answers.at(-1)?.remaining === 0 && answers.at(-2)?.remaining === 0) break;
  }
  expect(answers.reduce((total, answer) => total + answer.replayed, 0)).toBe(50);
  const batches = (await rows('SELECT messages, bytes FROM sent_batches')) as { messages: number; bytes: number }[];
  // Each job sent once, over several batches, each within Queues' limits; the bytes, not the count, ended them.
  expect(batches.reduce((total, batch) => total + batch.messages, 0)).toBe(50);
  expect(batches.length).toBeGreaterThanOrEqual(4);
  expect(batches.filter((batch) => batch.messages > 100 || batch.bytes > 256_000)).toEqual([]);
  expect(Math.max(...batches.map((batch) => batch.messages))).toBeLessThan(100);
  const credited = async () => (await rows("SELECT tracking_code, count(*) AS n FROM credits WHERE tracking_code LIKE 'MAN-qbulk%' GROUP BY tracking_code")) as { n: number }[];
  expect((await until(credited, (all) => all.length === 50)).filter((each) => each.n !== 1)).toEqual([]);
  expect(await deadCount()).toBe(0);
}, 120_000);

