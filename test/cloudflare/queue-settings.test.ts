import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { CallbackJobError, CallbackRetentionError, QueueError, RequestValidationError, createCallbackReceiver, isPayorchError, resealCallbackJob, signCallback } from '../../src/index.js';
import type { CallbackJob } from '../../src/index.js';
import type { DeadLetter } from '../../src/queues/cloudflare-queues/index.js';
import { createCloudflareQueue, createD1DeadLettersTable } from '../../src/queues/cloudflare-queues/index.js';
import type { QueueBatchLike, QueueMessageLike, QueueProducerLike } from '../../src/queues/cloudflare-queues/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { jobId, jobText } from '../../src/queues/cloudflare-queues/dead-letters.js';
import { unsigned } from '../helpers/callbacks.js';
import { D1_WORKER, d1At } from '../helpers/d1-over-http.js';
import { PROVIDER } from '../helpers/wire.js';

// What the queue handler decides for each message (acknowledged, or retried after which delay),
// and the dead letters' settings and refusals, seen directly: the adapter from the sources, over
// a D1 database of workerd (miniflare), its statements sent over HTTP, and a producer of the
// test's that records what it is sent.
// test/cloudflare/queue.test.ts runs the same adapter in workerd with a real queue.
let miniflare: Miniflare;
let db: D1DatabaseLike;
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  miniflare = new Miniflare({ modules: true, script: D1_WORKER, compatibilityDate: '2025-09-01', d1Databases: { DB: 'settings' } });
  db = d1At(await miniflare.ready);
  await createD1DeadLettersTable({ db });
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});
beforeEach(async () => {
  await db.prepare('DELETE FROM payorch_dead_letters').run();
});

/** A producer that records each batch it is sent, and fails while `failing` is set. */
function producer(): QueueProducerLike & { readonly batches: CallbackJob[][]; failing: boolean } {
  const recorded = {
    batches: [] as CallbackJob[][],
    failing: false,
    send: () => Promise.resolve(),
    sendBatch(messages: Iterable<{ readonly body: CallbackJob }>) {
      if (recorded.failing) return Promise.reject(new Error('Queue sendBatch failed: 503'));
      recorded.batches.push([...messages].map((message) => message.body));
      return Promise.resolve();
    },
  };
  return recorded;
}

/** A message of a batch that records what the handler decided. */
function message(body: unknown, attempts = 1): QueueMessageLike & { decided?: 'ack' | { retry: number | undefined } } {
  const made: QueueMessageLike & { decided?: 'ack' | { retry: number | undefined } } = {
    id: `message-${attempts}-${Math.random().toString(36).slice(2)}`,
    body,
    attempts,
    ack: () => void (made.decided = 'ack'),
    retry: (options) => void (made.decided = { retry: options?.delaySeconds }),
  };
  return made;
}
const batch = (queue: string, messages: readonly QueueMessageLike[]): QueueBatchLike => ({ queue, messages });

/** Genuine jobs of deposits, as a receiver with `secretKey` makes them. */
async function jobs(count: number, tag: string, secretKey: string = PROVIDER.secretKey): Promise<CallbackJob[]> {
  const made: CallbackJob[] = [];
  const receiver = createCallbackReceiver({ apiKey: PROVIDER.apiKey, secretKey, enqueue: (job) => Promise.resolve(void made.push(job)) });
  for (let index = 0; index < count; index += 1) {
    const { headers, body } = signCallback({ ...unsigned.deposit, tracking_code: `MAN-${tag}${index}-${seconds - 60}` }, { apiKey: PROVIDER.apiKey, secretKey });
    expect((await receiver.handle(new Request('https://receiver.test/', { method: 'POST', headers, body }))).status).toBe(200);
  }
  return made;
}

/** Makes `bodies` dead letters, as the dead-letter queue's first delivery does. */
async function killed(queue: ReturnType<typeof createCloudflareQueue>, bodies: readonly unknown[]): Promise<void> {
  const messages = bodies.map((body) => message(body));
  await queue.work({ apply: () => Promise.resolve() })(batch('payorch-callbacks-dead', messages));
  expect(messages.map((each) => each.decided)).toEqual(bodies.map(() => 'ack'));
}

function refusalOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isPayorchError(error, RequestValidationError)) return error.message;
    throw error;
  }
  throw new Error('not refused');
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error('not refused');
    },
    (error: unknown) => error,
  );
}

test.each<[string, Readonly<Record<string, unknown>>, string]>([
  ['no queue', { queue: undefined }, 'queue: must be a Queues producer binding (an object with send() and sendBatch()), for example env.CALLBACKS; got undefined'],
  ['no D1', { db: undefined }, 'db: must be a D1 binding (an object with prepare() and batch()), for example env.DB; got undefined'],
  ['a dead-letter queue that is the queue', { deadLetterQueueName: 'payorch-callbacks' }, 'deadLetterQueueName: must differ from queueName ("payorch-callbacks")'],
  ['a delay past 12 hours', { retryDelaySeconds: 43_201 }, 'retryDelaySeconds: must be an integer from 0 to 43200 (Queues delays a retry by at most 12 hours); got 43201'],
  ['a longest delay below the first', { retryDelaySeconds: 60, maxRetryDelaySeconds: 30 }, 'maxRetryDelaySeconds: must be at least retryDelaySeconds (60); got 30'],
  ['a table name that is not one', { table: 'dead letters' }, "table: must be a name of letters, digits and _ (up to 63); got \"dead letters\""],
  ['a queue name with a space', { queueName: 'payorch callbacks' }, 'queueName: must be a queue name as wrangler.toml gives it'],
])('createCloudflareQueue refuses %s, naming the option', (_case, change, message) => {
  expect(refusalOf(() => createCloudflareQueue({ queue: producer(), db, ...change }))).toContain(`Invalid option for createCloudflareQueue: ${message}`);
});

test('work refuses a receiver without apply, and replayRoute a token shorter than 32 characters', () => {
  const queue = createCloudflareQueue({ queue: producer(), db });
  expect(refusalOf(() => queue.work({} as never))).toBe('Invalid option for work: receiver: must be a callback receiver (an object with apply()), for example createCallbackReceiver(…)');
  expect(refusalOf(() => queue.replayRoute({ token: 'short' }))).toBe(
    'Invalid option for replayRoute: token: must be a random string of at least 32 characters without spaces (openssl rand -hex 32); got "short"',
  );
  expect(typeof queue.replayRoute({ token: undefined })).toBe('function');
});

test('a job whose apply rejects is retried after 5 s, then twice as long at each attempt up to an hour, its attempts and last error kept; never acknowledged', async () => {
  const queue = createCloudflareQueue({ queue: producer(), db });
  const bodies = await jobs(13, 'qdelay');
  const messages = bodies.map((body, index) => message(body, index + 1));
  await queue.work({ apply: () => Promise.reject(new TypeError('the ledger is down')) })(batch('payorch-callbacks', messages));
  expect(messages.map((each) => each.decided)).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600, 3600].map((retry) => ({ retry })));
  const { results = [] } = await db.prepare('SELECT attempts, last_error, dead_at FROM payorch_dead_letters ORDER BY attempts').all();
  expect(results).toEqual(messages.map((_, index) => ({ attempts: index + 1, last_error: 'TypeError: the ledger is down', dead_at: null })));
  // Retried jobs are no dead letters yet.
  expect((await queue.deadLetters.list()).deadLetters).toEqual([]);
});

test('the delays are the settings’ own', async () => {
  const queue = createCloudflareQueue({ queue: producer(), db, retryDelaySeconds: 30, maxRetryDelaySeconds: 100 });
  const messages = [1, 2, 3].map((attempts) => message({ not: 'a job' }, attempts));
  await queue.work({ apply: () => Promise.reject(new Error('no')) })(batch('payorch-callbacks', messages));
  expect(messages.map((each) => each.decided)).toEqual([{ retry: 30 }, { retry: 60 }, { retry: 100 }]);
});

test('a job applied after failed attempts is acknowledged and its failures forgotten; a status read is applied with the provider given', async () => {
  const queue = createCloudflareQueue({ queue: producer(), db });
  const [job] = await jobs(1, 'qlater');
  const failing = message(job, 1);
  await queue.work({ apply: () => Promise.reject(new Error('not yet')) })(batch('payorch-callbacks', [failing]));
  expect(await db.prepare('SELECT count(*) AS n FROM payorch_dead_letters').first('n')).toBe(1);
  const provider = { creditCard: { getStatus: () => Promise.reject(new Error('unused')) } };
  const given: unknown[] = [];
  const applying = message(job, 2);
  await queue.work({ apply: (_job, options) => Promise.resolve(void given.push(options)) }, { provider })(batch('payorch-callbacks', [applying]));
  expect(applying.decided).toBe('ack');
  expect(given).toEqual([{ provider }]);
  expect(await db.prepare('SELECT count(*) AS n FROM payorch_dead_letters').first('n')).toBe(0);
});

test('a batch of another queue is refused, naming both queues, and no message is acknowledged or retried', async () => {
  const queue = createCloudflareQueue({ queue: producer(), db, queueName: 'billing-callbacks', deadLetterQueueName: 'billing-callbacks-dead' });
  const stray = message({ not: 'ours' });
  const refused = await asyncRefusal(() => queue.work({ apply: () => Promise.resolve() })(batch('payorch-callbacks', [stray])));
  expect(isPayorchError(refused, QueueError)).toBe(true);
  expect(String(refused)).toBe(
    'QueueError: payorch/cloudflare-queues: a batch of queue "payorch-callbacks" reached work(), which consumes "billing-callbacks" (queueName) and "billing-callbacks-dead" (deadLetterQueueName): route other queues yourself, or give the names wrangler.toml uses',
  );
  expect(stray.decided).toBeUndefined();
});

test('while D1 fails, the dead-letter queue’s batch is retried, not acknowledged: it is kept once D1 is back', async () => {
  let down = true;
  const flaky: D1DatabaseLike = { prepare: (sql) => db.prepare(sql), batch: (statements) => (down ? Promise.reject(new Error('D1_ERROR: network connection lost')) : db.batch(statements)) };
  const queue = createCloudflareQueue({ queue: producer(), db: flaky });
  const bodies = await jobs(2, 'qd1down');
  const first = bodies.map((body) => message(body, 1));
  await queue.work({ apply: () => Promise.resolve() })(batch('payorch-callbacks-dead', first));
  expect(first.map((each) => each.decided)).toEqual([{ retry: 5 }, { retry: 5 }]);
  // Read through the real binding: nothing was kept while D1 failed.
  expect((await createCloudflareQueue({ queue: producer(), db }).deadLetters.list()).deadLetters).toEqual([]);
  down = false;
  const again = bodies.map((body) => message(body, 2));
  await queue.work({ apply: () => Promise.resolve() })(batch('payorch-callbacks-dead', again));
  expect(again.map((each) => each.decided)).toEqual(['ack', 'ack']);
  // Without a recorded failure, the dead letter says so.
  expect((await queue.deadLetters.list()).deadLetters.map(({ attempts, lastError }) => ({ attempts, lastError }))).toEqual(
    bodies.map(() => ({ attempts: 0, lastError: 'not recorded: D1 failed when its last attempt failed' })),
  );
});

test('replay re-seals jobs sealed with the old key when asked; one it cannot re-seal stops the replay before anything is sent, and is named', async () => {
  const oldSecretKey = 'prov_secret_before_rotation';
  const sent = producer();
  const queue = createCloudflareQueue({ queue: sent, db });
  const [sealed, other] = await jobs(2, 'qreseal', oldSecretKey);
  const forged = { ...other!, payload: { ...other!.payload, amount: 9_999 } };
  await killed(queue, [sealed, forged]);
  const forgedId = (await queue.deadLetters.list()).deadLetters.find((letter) => letter.trackingCode === other!.payload['tracking_code'])!.id;
  const keys = { oldSecretKey, secretKey: PROVIDER.secretKey };

  const refused = await asyncRefusal(() => queue.deadLetters.replay({ reseal: keys }));
  expect(isPayorchError(refused, CallbackJobError) && { reason: refused.reason, field: refused.field, message: refused.message }).toEqual({
    reason: 'invalid_signature',
    field: 'seal',
    message: `Callback refused (invalid_signature): dead letter ${forgedId}: the job’s seal does not verify with oldSecretKey: it was changed or written in the queue, or sealed with another key. Nothing was re-sealed. Nothing was replayed: purge it, or replay the others by id`,
  });
  expect(sent.batches).toEqual([]);

  // The claim was let go at once: the others, by id, are re-sealed with the key of today.
  const sealedId = (await queue.deadLetters.list()).deadLetters.find((letter) => letter.id !== forgedId)!.id;
  expect(await queue.deadLetters.replay({ ids: [sealedId], reseal: keys })).toEqual({ replayed: 1, remaining: 0 });
  const [resealed] = sent.batches[0]!;
  expect(resealed!.seal.keyId).not.toBe(sealed!.seal.keyId);
  expect(resealCallbackJob(resealed!, { oldSecretKey: 'unused-old-key', secretKey: PROVIDER.secretKey })).toBe(resealed);
  expect({ ...resealed, seal: undefined }).toEqual({ ...sealed, seal: undefined });
  // Its life moved to the re-sealed job's row (its id is its text's), for the job's next death.
  const row = await db.prepare('SELECT dead_at, history FROM payorch_dead_letters WHERE id = ?1').bind(jobId(jobText(resealed))).first<{ dead_at: number | null; history: string }>();
  expect(row?.dead_at).toBeNull();
  expect(JSON.parse(row?.history ?? '[]')).toEqual([{ attempts: expect.any(Number) as number, lastError: expect.any(String) as string, deadAt: expect.any(Number) as number }]);
  expect(await db.prepare('SELECT count(*) AS n FROM payorch_dead_letters WHERE id = ?1').bind(sealedId).first<number>('n')).toBe(0);
});

test('a sendBatch that fails deletes nothing and holds nothing: the next replay sends the same dead letters', async () => {
  const sent = producer();
  const queue = createCloudflareQueue({ queue: sent, db });
  const bodies = await jobs(3, 'qsendfail');
  await killed(queue, bodies);
  sent.failing = true;
  expect(String(await asyncRefusal(() => queue.deadLetters.replay()))).toBe('Error: Queue sendBatch failed: 503');
  expect((await queue.deadLetters.list()).deadLetters).toHaveLength(3);
  sent.failing = false;
  expect(await queue.deadLetters.replay()).toEqual({ replayed: 3, remaining: 0 });
  // Dead at the same moment, they go in the order of their ids.
  const byCode = (list: readonly CallbackJob[]) => [...list].sort((a, b) => String(a.payload['tracking_code']).localeCompare(String(b.payload['tracking_code'])));
  expect(sent.batches.map(byCode)).toEqual([byCode(bodies)]);
});

test('dead letters a replay under way holds are not sent by another; after five minutes they are', async () => {
  const sent = producer();
  const queue = createCloudflareQueue({ queue: sent, db });
  await killed(queue, await jobs(2, 'qheld'));
  // A replay that took the first and stopped before it deleted it (its Worker went away).
  const [held] = (await queue.deadLetters.list()).deadLetters;
  await db.prepare("UPDATE payorch_dead_letters SET replay_claim = 'stopped', replay_claimed_at = ? WHERE id = ?").bind(Date.now(), held!.id).run();
  expect(await queue.deadLetters.replay()).toEqual({ replayed: 1, remaining: 1 });
  expect(sent.batches.flat().map((job) => job.payload['tracking_code'])).not.toContain(held!.trackingCode);
  await db.prepare('UPDATE payorch_dead_letters SET replay_claimed_at = ? WHERE id = ?').bind(Date.now() - 5 * 60_000 - 1, held!.id).run();
  expect(await queue.deadLetters.replay()).toEqual({ replayed: 1, remaining: 0 });
  expect(sent.batches.at(-1)?.map((job) => job.payload['tracking_code'])).toEqual([held!.trackingCode]);
});

test.each<[string, (queue: ReturnType<typeof createCloudflareQueue>) => Promise<unknown>, string]>([
  ['list, a limit past 1000', (queue) => queue.deadLetters.list({ limit: 1001 }), 'Invalid option for deadLetters.list: limit: must be an integer from 1 to 1000; got 1001'],
  ['replay, more ids than one batch', (queue) => queue.deadLetters.replay({ ids: Array.from({ length: 101 }, (_, index) => `id${index}`) }), "Invalid option for deadLetters.replay: ids: must hold from 1 to 100 dead letters' ids; got 101"],
  ['replay, an id given twice', (queue) => queue.deadLetters.replay({ ids: ['a', 'a'] }), 'Invalid option for deadLetters.replay: ids[1]: repeats ids[0]: give each id once'],
  ['purge, a time that is not one', (queue) => queue.deadLetters.purge({ before: new Date(Number.NaN) }), 'Invalid option for deadLetters.purge: before: must be a Date or milliseconds since 1970'],
  ['get, an id that is not text', (queue) => queue.deadLetters.get(7 as unknown as string), "Invalid option for deadLetters.get: id: must be a dead letter's id, as list gives it; got 7"],
])('the dead letters refuse bad input by name: %s', async (_case, run, message) => {
  const sent = producer();
  const refused = await asyncRefusal(() => run(createCloudflareQueue({ queue: sent, db })));
  expect(isPayorchError(refused, RequestValidationError) && refused.message).toContain(message);
  expect(sent.batches).toEqual([]);
});

test('a job that can never apply is a dead letter at its first refusal, told to onDeadLetter; a throwing onDeadLetter has nothing retried', async () => {
  const queue = createCloudflareQueue({ queue: producer(), db });
  const [genuine, expired] = await jobs(2, 'qnever');
  const changed = message({ ...genuine!, payload: { ...genuine!.payload, amount: 1 } });
  const receiver = createCallbackReceiver({ ...PROVIDER, enqueue: () => Promise.resolve() });
  const told: DeadLetter[] = [];
  await queue.work(receiver, { onDeadLetter: (deadLetter) => void told.push(deadLetter) })(batch('payorch-callbacks', [changed]));
  expect(changed.decided).toBe('ack');
  expect(told).toEqual([expect.objectContaining({ trackingCode: genuine!.payload['tracking_code'], attempts: 1, lastError: expect.stringMatching(/^CallbackJobError: Callback refused \(invalid_signature\): /) })]);
  expect((await queue.deadLetters.list()).deadLetters).toEqual(told);

  // Refused by the inbox's retention: its record is older than the horizon, and its key is gone.
  const tooOld = message(expired, 2);
  const failingAlert = (): void => {
    throw new Error('the alert is down');
  };
  await queue.work({ apply: () => Promise.reject(new CallbackRetentionError({ trackingCode: String(expired!.payload['tracking_code']), status: 'completed' }, 1, 2)) }, { onDeadLetter: failingAlert })(batch('payorch-callbacks', [tooOld]));
  expect(tooOld.decided).toBe('ack');
  expect((await queue.deadLetters.list()).deadLetters.map((deadLetter) => deadLetter.lastError)).toEqual([expect.stringMatching(/^CallbackJobError/), expect.stringMatching(/^CallbackRetentionError: /)]);
});
