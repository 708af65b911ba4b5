import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, test, vi } from 'vitest';
import { createBullMQQueue } from '../../src/queues/bullmq/index.js';
import type { BullMQCallbackQueue, BullMQQueueOptions } from '../../src/queues/bullmq/index.js';
import { QueueError, RequestValidationError, isPayorchError } from '../../src/errors/error.js';
import type { DeadLetter } from '../../src/queues/dead-letters.js';
import { createCallbackReceiver, signCallback } from '../../src/webhooks/index.js';
import type { CallbackJob, CallbackReceiverOptions } from '../../src/webhooks/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { waitFor } from '../helpers/deferred.js';
import { startRedisServer } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';
import { PROVIDER } from '../helpers/wire.js';
import { merchantIdOf } from '../../src/webhooks/key.js';

// payorch/bullmq against a real redis-server (Debian's; test/helpers/redis.ts starts it with an
// append-only file, appendfsync always, noeviction): the receiver enqueues, the adapter's worker
// applies with the in-memory inbox, and the dead letters are the failed set. Each test has a queue
// of its own.
let redis: RedisServer;
const opened: BullMQCallbackQueue[] = [];
const seconds = Math.floor(Date.now() / 1000) - 60;
let queues = 0;

beforeAll(async () => {
  redis = await startRedisServer();
}, 20_000);
// Each dead letter is told on the console unless onDeadLetter is given: the tests read them from
// the dead letters instead, and one test reads the console.
beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((callbacks) => callbacks.close()));
});
afterAll(async () => {
  await redis.close();
});

// Reconnects every 100 ms, so that a restart of Redis is over quickly.
const connection = () => ({ ...redis.connection, retryStrategy: () => 100 });

async function queueOf(options: Partial<BullMQQueueOptions> = {}): Promise<BullMQCallbackQueue> {
  queues += 1;
  const callbacks = createBullMQQueue({ connection: connection(), queue: `test-${String(queues)}-${String(seconds)}`, retries: 1, retryDelaySeconds: 0.01, onError: () => undefined, ...options });
  opened.push(callbacks);
  await callbacks.queue.waitUntilReady();
  return callbacks;
}

/** A worker's receiver: `accept` decides `confirm`; `runs` counts confirm's calls, `applied` the handler's, per tracking code. */
function applying(accept: (trackingCode: string) => boolean = () => true, options: Partial<CallbackReceiverOptions<never>> = {}) {
  const runs = new Map<string, number>();
  const applied: string[] = [];
  const receiver = createCallbackReceiver({
    ...PROVIDER,
    onError: () => undefined,
    confirm: (callback) => {
      const code = callback.payload.tracking_code;
      runs.set(code, (runs.get(code) ?? 0) + 1);
      return accept(code);
    },
    ...options,
  });
  receiver.on('deposit', (callback) => {
    applied.push(callback.payload.tracking_code);
  });
  return { receiver, runs, applied };
}

/** Receives a genuine deposit callback of `code` through a receiver that enqueues on `callbacks`; resolves with the answer's status. */
async function deliver(callbacks: BullMQCallbackQueue, code: string, options: Partial<CallbackReceiverOptions<never>> = {}): Promise<number> {
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: code }, options.secretKey === undefined ? PROVIDER : { ...PROVIDER, secretKey: options.secretKey });
  const receiver = createCallbackReceiver({ ...PROVIDER, enqueue: callbacks.enqueue, onError: () => undefined, ...options });
  const answer = await receiver.handle(new Request('https://receiver.test/', { method: 'POST', headers: delivery.headers, body: delivery.body }));
  return answer.status;
}

const code = (name: string) => `MAN-${name}-${String(seconds)}`;
const deadCount = async (callbacks: BullMQCallbackQueue) => (await callbacks.deadLetters.list({ limit: 1000 })).deadLetters.length;

test('a callback is answered 200 once it is a job, and the worker applies it once, its duplicate too', async () => {
  const callbacks = await queueOf();
  const { receiver, applied } = applying();
  callbacks.work(receiver);
  expect(await deliver(callbacks, code('once01'))).toBe(200);
  expect(await deliver(callbacks, code('once01'))).toBe(200);
  await waitFor(async () => (await callbacks.queue.getJobCounts('wait', 'active', 'delayed', 'completed')).completed === 0 && applied.length === 1 && (await callbacks.queue.count()) === 0, 8000, 'both jobs to be worked');
  expect(applied).toEqual([code('once01')]);
  // A completed job is removed at once: the inbox remembers what was applied.
  expect(await callbacks.queue.getCompletedCount()).toBe(0);
});

test('a failed attempt is retried after the backoff, and the callback is applied once by the attempt that succeeds', async () => {
  const callbacks = await queueOf({ retries: 2 });
  const { receiver, runs, applied } = applying((trackingCode) => (runs.get(trackingCode) ?? 0) >= 3);
  callbacks.work(receiver);
  expect(await deliver(callbacks, code('retry02'))).toBe(200);
  await waitFor(() => applied.length === 1, 8000, 'the third attempt to apply');
  expect(runs.get(code('retry02'))).toBe(3);
  expect(await deadCount(callbacks)).toBe(0);
});

test('a job whose attempts ran out is a dead letter: list shows its kind, tracking code, status, merchant, receipt, attempts and last error, and no key', async () => {
  const callbacks = await queueOf({ retries: 1 });
  const { receiver, runs } = applying(() => false);
  callbacks.work(receiver);
  const before = Date.now();
  expect(await deliver(callbacks, code('dead03'))).toBe(200);
  await waitFor(async () => (await deadCount(callbacks)) === 1, 8000, 'the job to be a dead letter');
  const { deadLetters, cursor } = await callbacks.deadLetters.list();
  expect(cursor).toBeUndefined();
  expect(deadLetters).toEqual([
    {
      id: expect.any(String) as string,
      kind: 'deposit',
      trackingCode: code('dead03'),
      status: 'completed',
      merchantId: merchantIdOf(PROVIDER.apiKey, undefined),
      receivedAt: expect.any(Date) as Date,
      attempts: 2,
      lastError: `NotConfirmedError: confirm refused deposit.completed ${code('dead03')}; nothing was applied`,
      deadAt: expect.any(Date) as Date,
      history: [],
    },
  ]);
  const [letter] = deadLetters;
  expect(letter?.receivedAt.getTime()).toBeGreaterThanOrEqual(before);
  expect(letter?.deadAt.getTime()).toBeGreaterThanOrEqual(letter?.receivedAt.getTime() ?? Infinity);
  expect(runs.get(code('dead03'))).toBe(2);
  expect(JSON.stringify(deadLetters)).not.toContain(PROVIDER.secretKey);
  // get gives the job itself, sealed as the receiver queued it.
  const kept = await callbacks.deadLetters.get(letter?.id ?? '');
  expect(kept).toMatchObject({ ...letter, job: { version: 2, kind: 'deposit', payload: { tracking_code: code('dead03') } } });
  expect(await callbacks.deadLetters.get('no-such-job')).toBeUndefined();
});

test('work tells onDeadLetter of each job once, as it becomes a dead letter and not at its retries; without it, the console', async () => {
  const callbacks = await queueOf({ retries: 2 });
  const told: DeadLetter[] = [];
  const { receiver } = applying(() => false);
  callbacks.work(receiver, { onDeadLetter: (deadLetter) => void told.push(deadLetter) });
  await deliver(callbacks, code('told14'));
  await waitFor(() => told.length === 1, 8000, 'onDeadLetter to be told');
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(told).toEqual((await callbacks.deadLetters.list()).deadLetters);
  expect(told[0]).toMatchObject({ trackingCode: code('told14'), attempts: 3 });

  const quiet = await queueOf({ retries: 0 });
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  quiet.work(receiver);
  await deliver(quiet, code('told15'));
  await waitFor(() => logged.mock.calls.length > 0, 8000, 'the console to be told');
  const [letter] = (await quiet.deadLetters.list()).deadLetters;
  expect(logged.mock.calls).toEqual([
    [`payorch/bullmq: the job ${letter?.id ?? ''} (deposit ${code('told15')} completed) is a dead letter after 1 attempt(s): NotConfirmedError: confirm refused deposit.completed ${code('told15')}; nothing was applied. Kept until replayed or purged (deadLetters)`],
  ]);
});

test('a job whose worker stopped mid-job and that stalled more than maxStalledCount times is a dead letter, told to onDeadLetter and never applied', async () => {
  const callbacks = await queueOf({ retries: 4 });
  let release = (): void => undefined;
  const hung = { apply: () => new Promise<void>((resolve) => (release = resolve)) };
  const first = callbacks.work(hung, { lockDurationMs: 300, stalledIntervalMs: 100 });
  await deliver(callbacks, code('stall16'));
  await waitFor(async () => (await callbacks.queue.getActiveCount()) === 1, 8000, 'the job to run');
  // Stops renewing the job's lock, as a worker that died would.
  await first.close(true);
  const told: DeadLetter[] = [];
  const { receiver, applied } = applying();
  callbacks.work(receiver, { lockDurationMs: 300, stalledIntervalMs: 100, maxStalledCount: 0, onDeadLetter: (deadLetter) => void told.push(deadLetter) });
  await waitFor(() => told.length === 1, 8000, 'the stalled job to be a dead letter');
  release();
  expect(told[0]).toMatchObject({ trackingCode: code('stall16'), lastError: 'job stalled more than allowable limit' });
  expect(applied).toEqual([]);
  expect((await callbacks.deadLetters.list()).deadLetters.map((letter) => letter.id)).toEqual([told[0]?.id]);
});

test('a job changed in the queue is a dead letter after one attempt, though attempts remain, and moves nothing', async () => {
  const callbacks = await queueOf({ retries: 4 });
  const { receiver, runs, applied } = applying();
  callbacks.work(receiver);
  const jobs: CallbackJob[] = [];
  await deliver({ ...callbacks, enqueue: (job) => Promise.resolve(void jobs.push(job)) }, code('forged04'));
  const genuine = jobs[0] as CallbackJob;
  await callbacks.enqueue({ ...genuine, payload: { ...genuine.payload, amount: 25_000 } } as CallbackJob);
  await waitFor(async () => (await deadCount(callbacks)) === 1, 8000, 'the changed job to be a dead letter');
  const [letter] = (await callbacks.deadLetters.list()).deadLetters;
  expect(letter?.attempts).toBe(1);
  expect(letter?.lastError).toMatch(/^CallbackJobError: Callback refused \(invalid_signature\): the job’s seal does not match/);
  expect(runs.size).toBe(0);
  expect(applied).toEqual([]);
});

test('dead letters are kept across a Redis restart (append-only file, appendfsync always), then replayed and applied once', async () => {
  const callbacks = await queueOf();
  let accept = false;
  const { receiver, applied } = applying(() => accept);
  callbacks.work(receiver);
  for (const name of ['kept05a', 'kept05b']) expect(await deliver(callbacks, code(name))).toBe(200);
  await waitFor(async () => (await deadCount(callbacks)) === 2, 8000, 'both jobs to be dead letters');
  const listed = (await callbacks.deadLetters.list()).deadLetters;

  await redis.stop();
  await redis.start();
  await waitFor(async () => (await callbacks.queue.count().catch(() => -1)) >= 0, 8000, 'the queue to reconnect');
  expect((await callbacks.deadLetters.list()).deadLetters).toEqual(listed);

  accept = true;
  expect(await callbacks.deadLetters.replay()).toEqual({ replayed: 2, remaining: 0 });
  await waitFor(() => applied.length === 2, 8000, 'the replayed jobs to be applied');
  expect(applied.sort()).toEqual([code('kept05a'), code('kept05b')]);
  expect(await callbacks.deadLetters.replay()).toEqual({ replayed: 0, remaining: 0 });
}, 30_000);

// The minute between two reports is the adapter's own clock's (test/bullmq/unreachable.test.ts):
// this process's clock is BullMQ's and ioredis' too, and is left alone.
test('with Redis down, enqueue and onError say the queue is unreachable and that the service delivers again, onError once however often it reconnects; back up, the worker applies what is queued', async () => {
  expectTypeOf<Parameters<NonNullable<BullMQQueueOptions['onError']>>[0]>().toEqualTypeOf<QueueError>();
  const heard: QueueError[] = [];
  const callbacks = await queueOf({ onError: (error) => void heard.push(error) });
  const worker = applying();
  callbacks.work(worker.receiver);
  // What BullMQ emits itself, beside the adapter: one error per reconnect of each connection.
  let raw = 0;
  callbacks.queue.on('error', () => void (raw += 1));
  const told: unknown[] = [];
  const receiver = createCallbackReceiver({ ...PROVIDER, enqueue: callbacks.enqueue, onError: (error) => void told.push(error) });
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: code('down23') }, PROVIDER);
  try {
    await redis.stop();
    expect((await receiver.receive(delivery)).status).toBe(500);
    await waitFor(() => raw >= 5, 10_000, 'BullMQ to fail five reconnects');
    expect(heard).toHaveLength(1);
    const [down] = heard;
    expect(down).toBeInstanceOf(QueueError);
    // Its cause is the first error heard: a reconnect refused or reset, or, when Redis went away under a
    // read or a write of an open connection, that connection reset or its pipe broken; which one
    // depends on when the stop falls.
    expect(down?.message).toMatch(/^payorch\/bullmq: test-\d+-\d+: Redis is unreachable, so no callback can be queued: the receiver answers them 500 and the service delivers them again .*\((connect (?:ECONNREFUSED|ECONNRESET) 127\.0\.0\.1:\d+|read ECONNRESET|write EPIPE)\)\. Told at most once a minute while it lasts\.$/);
    expect(down?.cause).toMatchObject({ code: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET|EPIPE)$/) as unknown });
    // The receiver's onError: a QueueError that says the same, its cause ioredis' own words: the
    // connection refuses commands, or (on a busy machine, when the enqueue fell in a reconnect) the
    // command ran out of its retries.
    expect(told).toHaveLength(1);
    expect(isPayorchError(told[0], QueueError)).toBe(true);
    expect(told[0]).toMatchObject({ message: expect.stringMatching(/Redis is unreachable.*\((Stream isn't writeable and enableOfflineQueue options is false|Reached the max retries per request limit \(which is \d+\)\. Refer to "maxRetriesPerRequest" option for details\.)\)$/) });
  } finally {
    await redis.start();
  }
  await waitFor(async () => (await callbacks.queue.count().catch(() => -1)) >= 0, 8000, 'the queue to reconnect');
  // The service delivers again: queued now, and applied by the worker, whose connections came back too.
  expect((await receiver.receive(delivery)).status).toBe(200);
  await waitFor(() => worker.applied.includes(code('down23')), 15_000, 'the worker to apply the callback queued once Redis was back');
  expect(worker.applied).toEqual([code('down23')]);
}, 40_000);

test('a replayed dead letter has the queue’s attempts again, and is a dead letter again when they run out, counting the attempts of both lives', async () => {
  const callbacks = await queueOf({ retries: 2 });
  const { receiver, runs } = applying(() => false);
  callbacks.work(receiver);
  await deliver(callbacks, code('again06'));
  await waitFor(async () => (await deadCount(callbacks)) === 1, 8000, 'the job to be a dead letter');
  const [first] = (await callbacks.deadLetters.list()).deadLetters;
  expect(await callbacks.deadLetters.replay({ ids: [first?.id ?? ''] })).toEqual({ replayed: 1, remaining: 0 });
  await waitFor(async () => (await deadCount(callbacks)) === 1, 8000, 'the replayed job to be a dead letter again');
  const [second] = (await callbacks.deadLetters.list()).deadLetters;
  expect(runs.get(code('again06'))).toBe(6);
  expect(second).toMatchObject({ id: first?.id, attempts: 6, history: [{ attempts: 3, lastError: first?.lastError, deadAt: first?.deadAt }] });
  expect(await callbacks.deadLetters.get(first?.id ?? '')).toMatchObject({ attempts: 6, history: [{ attempts: 3 }] });
  expect(second?.deadAt.getTime()).toBeGreaterThan(first?.deadAt.getTime() ?? Infinity);
});

test('two replays at once move each dead letter once: every job runs once more and is applied once', async () => {
  const callbacks = await queueOf({ retries: 0 });
  let accept = false;
  const { receiver, runs, applied } = applying(() => accept);
  callbacks.work(receiver, { concurrency: 8 });
  const names = Array.from({ length: 40 }, (_, index) => code(`twice07x${String(index)}`));
  await Promise.all(names.map((name) => deliver(callbacks, name)));
  await waitFor(async () => (await deadCount(callbacks)) === names.length, 10_000, 'every job to be a dead letter');
  accept = true;
  const [a, b] = await Promise.all([callbacks.deadLetters.replay(), callbacks.deadLetters.replay()]);
  expect(a.replayed + b.replayed).toBe(names.length);
  await waitFor(() => applied.length === names.length, 10_000, 'every replayed job to be applied');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect([...runs.values()]).toEqual(names.map(() => 2));
  expect(applied.sort()).toEqual([...names].sort());
  expect(await deadCount(callbacks)).toBe(0);
}, 30_000);

describe('replay with reseal', () => {
  const OLD = 'prov_secret_old_R2d2';
  // The worker's keys after a rotation whose window has closed by the time the job runs.
  const rotated = (until: Date) => ({ merchantId: 'provider-main', secretKey: PROVIDER.secretKey, previousSecretKey: { secretKey: OLD, until } });

  test('applies a job sealed with the previous key after its window closed, which without it is a dead letter at once', async () => {
    const callbacks = await queueOf({ retries: 4 });
    const until = new Date(Date.now() + 1500);
    const { receiver, applied } = applying(() => true, rotated(until));
    // Received and sealed before the rotation, with the key of then.
    expect(await deliver(callbacks, code('reseal08'), { merchantId: 'provider-main', secretKey: OLD })).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, until.getTime() - Date.now() + 50));
    callbacks.work(receiver);
    await waitFor(async () => (await deadCount(callbacks)) === 1, 8000, 'the job to be a dead letter');
    const [letter] = (await callbacks.deadLetters.list()).deadLetters;
    expect(letter?.attempts).toBe(1);
    expect(letter?.lastError).toMatch(/^CallbackJobError: Callback refused \(seal_key_expired\): the job was sealed with previousSecretKey, whose window closed/);

    expect(await callbacks.deadLetters.replay({ reseal: { oldSecretKey: OLD, secretKey: PROVIDER.secretKey } })).toEqual({ replayed: 1, remaining: 0 });
    await waitFor(() => applied.length === 1, 8000, 'the re-sealed job to be applied');
    expect(applied).toEqual([code('reseal08')]);
  });

  test('refuses, before anything moves, a dead letter the old key did not seal, naming it', async () => {
    const callbacks = await queueOf({ retries: 0 });
    const { receiver } = applying(() => false);
    callbacks.work(receiver);
    await deliver(callbacks, code('reseal09a'));
    await deliver(callbacks, code('reseal09b'), { secretKey: 'prov_secret_another_key' });
    await waitFor(async () => (await deadCount(callbacks)) === 2, 8000, 'both jobs to be dead letters');
    const ids = (await callbacks.deadLetters.list()).deadLetters.map((letter) => letter.id);
    const replay = callbacks.deadLetters.replay({ ids, reseal: { oldSecretKey: OLD, secretKey: 'prov_secret_third_key' } });
    await expect(replay).rejects.toMatchObject({ name: 'CallbackJobError', reason: 'invalid_signature', message: expect.stringMatching(new RegExp(`^Callback refused \\(invalid_signature\\): dead letter ${ids[0] ?? ''}: the job’s seal does not verify with oldSecretKey`)) as string });
    expect(await deadCount(callbacks)).toBe(2);
  });
});

test('purge by ids deletes those dead letters, and leaves alone one that was replayed meanwhile', async () => {
  const callbacks = await queueOf({ retries: 0 });
  const { receiver } = applying(() => false);
  const worker = callbacks.work(receiver);
  for (const name of ['purge10a', 'purge10b', 'purge10c']) await deliver(callbacks, code(name));
  await waitFor(async () => (await deadCount(callbacks)) === 3, 8000, 'the jobs to be dead letters');
  const [a, b, c] = (await callbacks.deadLetters.list()).deadLetters.map((letter) => letter.id);
  // Replayed, and waiting: no worker takes it while this one is paused.
  await worker.pause();
  expect(await callbacks.deadLetters.replay({ ids: [c ?? ''] })).toEqual({ replayed: 1, remaining: 0 });
  expect(await callbacks.deadLetters.purge({ ids: [a ?? '', b ?? '', c ?? ''] })).toEqual({ purged: 2 });
  expect(await deadCount(callbacks)).toBe(0);
  expect(await callbacks.queue.getJobState(c ?? '')).toBe('waiting');
});

test('purge before a date deletes the dead letters that failed before it, and only those', async () => {
  const callbacks = await queueOf({ retries: 0 });
  const { receiver } = applying(() => false);
  callbacks.work(receiver);
  await deliver(callbacks, code('old11'));
  await waitFor(async () => (await deadCount(callbacks)) === 1, 8000, 'the first job to be a dead letter');
  await new Promise((resolve) => setTimeout(resolve, 20));
  const between = new Date();
  await new Promise((resolve) => setTimeout(resolve, 20));
  await deliver(callbacks, code('new11'));
  await waitFor(async () => (await deadCount(callbacks)) === 2, 8000, 'the second job to be a dead letter');
  expect(await callbacks.deadLetters.purge({ before: between })).toEqual({ purged: 1 });
  expect((await callbacks.deadLetters.list()).deadLetters.map((letter) => letter.trackingCode)).toEqual([code('new11')]);
});

test('list pages oldest first, and a replay between two pages does not shift the next one', async () => {
  const callbacks = await queueOf({ retries: 0 });
  const { receiver } = applying(() => false);
  const worker = callbacks.work(receiver);
  const names = Array.from({ length: 7 }, (_, index) => code(`page12x${String(index)}`));
  for (const name of names) {
    await deliver(callbacks, name);
    await waitFor(async () => (await deadCount(callbacks)) === names.indexOf(name) + 1, 8000, `${name} to be a dead letter`);
  }
  await worker.pause();
  const first = await callbacks.deadLetters.list({ limit: 3 });
  expect(first.deadLetters.map((letter) => letter.trackingCode)).toEqual(names.slice(0, 3));
  await callbacks.deadLetters.replay({ ids: first.deadLetters.map((letter) => letter.id) });
  const second = await callbacks.deadLetters.list({ limit: 3, cursor: first.cursor });
  expect(second.deadLetters.map((letter) => letter.trackingCode)).toEqual(names.slice(3, 6));
  const third = await callbacks.deadLetters.list({ limit: 3, cursor: second.cursor });
  expect(third).toEqual({ deadLetters: [expect.objectContaining({ trackingCode: names[6] })] });
});

test('dead letters of one time are paged by id, each once', async () => {
  const callbacks = await queueOf({ retries: 0 });
  const { receiver } = applying(() => false);
  callbacks.work(receiver, { concurrency: 10 });
  const names = Array.from({ length: 12 }, (_, index) => code(`tie13x${String(index)}`));
  await Promise.all(names.map((name) => deliver(callbacks, name)));
  await waitFor(async () => (await deadCount(callbacks)) === names.length, 8000, 'every job to be a dead letter');
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await callbacks.deadLetters.list({ limit: 2, ...(cursor === undefined ? {} : { cursor }) });
    seen.push(...page.deadLetters.map((letter) => letter.trackingCode));
    cursor = page.cursor;
  } while (cursor !== undefined);
  expect(seen.sort()).toEqual([...names].sort());
});

describe('options', () => {
  test.each([
    [{ connection: undefined }, 'connection: must be ioredis options, for example { host, port } or { url }; got undefined'],
    [{ queue: 'payorch:callbacks' }, 'queue: must be letters, digits, _, . and - (at most 100); got "payorch:callbacks"'],
    [{ retries: -1 }, 'retries: must be an integer from 0 to 100; got -1'],
    [{ attempts: 3 }, 'attempts: was renamed retries: pass its value as retries, one less: retries counts those after the first attempt'],
    [{ backoffMs: 5000 }, 'backoffMs: was renamed retryDelaySeconds: pass its value as retryDelaySeconds, in seconds: backoffMs / 1000'],
    [{ retryDelaySeconds: -1 }, 'retryDelaySeconds: must be'],
  ] as const)('createBullMQQueue refuses %j, naming the option, its problem and the range', (options, message) => {
    const make = () => createBullMQQueue({ connection: { host: '127.0.0.1', port: 1 }, ...options } as BullMQQueueOptions);
    expect(make).toThrow(RequestValidationError);
    expect(make).toThrow(`Invalid option for createBullMQQueue: ${message}`);
  });

  test('createBullMQQueue refuses a Redis client for connection: it opens its own', () => {
    const client = { duplicate: () => client, connect: () => Promise.resolve() };
    expect(() => createBullMQQueue({ connection: client })).toThrow('connection: must be ioredis options ({ host, port } or { url }), not a client');
  });

  test('work, list, replay and purge refuse impossible options before anything is read', async () => {
    const callbacks = await queueOf();
    const { receiver } = applying();
    expect(() => callbacks.work(receiver, { lockDurationMs: 0 })).toThrow('Invalid option for work: lockDurationMs: must be an integer from 100 to 2147483647');
    await expect(callbacks.deadLetters.list({ limit: 1001 })).rejects.toThrow('limit: must be an integer from 1 to 1000; got 1001');
    await expect(callbacks.deadLetters.list({ cursor: 'page-2' })).rejects.toThrow('cursor: must be the cursor of the page before, as list returned it');
    await expect(callbacks.deadLetters.replay({ ids: Array.from({ length: 101 }, (_, index) => String(index)) })).rejects.toThrow("ids: must hold from 1 to 100 dead letters' ids; got 101");
    await expect(callbacks.deadLetters.purge({ ids: ['1', '1'] })).rejects.toThrow('ids[1]: repeats ids[0]: give each id once');
    await expect(callbacks.deadLetters.purge({ before: new Date(Number.NaN) })).rejects.toThrow('before: must be a Date or milliseconds since 1970');
    await expect(callbacks.deadLetters.purge(null as never)).rejects.toThrow('Invalid option for deadLetters.purge: (options): must be { ids } (the dead letters to delete) or { before }');
  });
});

describe('a Redis that may lose jobs', () => {
  // A default install without persistence (appendonly no), evicting under memory pressure.
  let volatile: RedisServer;
  beforeAll(async () => {
    volatile = await startRedisServer({ persistence: 'volatile', args: ['--maxmemory-policy', 'allkeys-lru'] });
  }, 20_000);
  afterAll(async () => {
    // Unset when beforeAll failed: its error is the one to read, not a TypeError here.
    await (volatile as RedisServer | undefined)?.close();
  });

  /** A queue on `server` whose onError is recorded, its console warnings too. */
  async function watched(server: RedisServer, options: Partial<BullMQQueueOptions> = {}) {
    const errors: Error[] = [];
    const callbacks = await queueOf({ connection: { ...server.connection, retryStrategy: () => 100 }, onError: (error) => void errors.push(error), ...options });
    return { callbacks, errors };
  }
  /** Resolves once the start-up check of a queue made before has read INFO and said what it found: its INFO went first on the one connection. */
  async function checked(callbacks: BullMQCallbackQueue): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await (await callbacks.queue.getBackend().client).info();
    await new Promise((resolve) => setImmediate(resolve));
  }

  test('loses a job answered 200 when it restarts: what the check at start is for', async () => {
    const { callbacks } = await watched(volatile, { acceptVolatileRedis: true });
    expect(await deliver(callbacks, code('volatile20'))).toBe(200);
    expect(await callbacks.queue.getWaitingCount()).toBe(1);
    await volatile.stop();
    await volatile.start();
    await waitFor(async () => (await callbacks.queue.getWaitingCount().catch(() => -1)) >= 0, 10_000, 'the queue to reach Redis again');
    expect(await callbacks.queue.getWaitingCount()).toBe(0);
  });

  test('says at start, on the console and to onError, that Redis keeps no append-only file and evicts, each with the line that fixes it, and still enqueues', async () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { callbacks, errors } = await watched(volatile);
    await waitFor(() => errors.length >= 2, 10_000, 'the two warnings');
    await checked(callbacks);
    expect(errors.map((error) => error.name)).toEqual(['QueueError', 'QueueError']);
    const [persistence, eviction] = errors.map((error) => error.message);
    expect(persistence).toMatch(/Redis keeps no append-only file \(appendonly no\): a restart loses every queued job and dead letter.*Fix: redis-cli CONFIG SET appendonly yes, and the line "appendonly yes" in redis.conf; or, to accept losing them, acceptVolatileRedis: true/);
    expect(eviction).toMatch(/maxmemory-policy is allkeys-lru, not noeviction.*Fix: redis-cli CONFIG SET maxmemory-policy noeviction, and the line "maxmemory-policy noeviction" in redis.conf/);
    const printed = warned.mock.calls.flat().join('\n');
    expect(printed).toContain(persistence);
    expect(printed).toContain(eviction);
    expect(await deliver(callbacks, code('volatile21'))).toBe(200);
  });

  test('says nothing of a durable Redis with noeviction, nor with acceptVolatileRedis: true', async () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const durable = await watched(redis);
    const accepted = await watched(volatile, { acceptVolatileRedis: true });
    // The check is not vacuous: the same volatile Redis without the option is told.
    const told = await watched(volatile);
    await waitFor(() => told.errors.length >= 2, 10_000, 'the warnings of the queue without the option');
    await Promise.all([checked(durable.callbacks), checked(accepted.callbacks)]);
    expect([...durable.errors, ...accepted.errors]).toEqual([]);
    expect(warned.mock.calls.flat().filter((line) => String(line).includes('payorch/bullmq'))).toHaveLength(2);
  });

  test('where INFO is refused (a managed Redis), says once that it could not check, and never refuses to run', async () => {
    const admin = await watched(volatile, { acceptVolatileRedis: true });
    const client = (await admin.callbacks.queue.getBackend().client) as unknown as { call(...args: string[]): Promise<unknown> };
    await client.call('ACL', 'SETUSER', 'managed', 'on', '>managed-password', '~*', '&*', '+@all', '-info');
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { callbacks, errors } = await watched(volatile, { connection: { ...volatile.connection, username: 'managed', password: 'managed-password', skipVersionCheck: true } });
    await waitFor(() => errors.length >= 1, 10_000, 'the warning');
    expect(await deliver(callbacks, code('managed22'))).toBe(200);
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/could not read Redis' INFO \(NOPERM.*neither persistence nor the eviction policy was checked/)]);
  });
});
