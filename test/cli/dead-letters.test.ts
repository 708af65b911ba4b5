import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createBullMQQueue } from '../../src/queues/bullmq/index.js';
import type { BullMQCallbackQueue } from '../../src/queues/bullmq/index.js';
import { createCallbackReceiver, signCallback } from '../../src/webhooks/index.js';
import type { CallbackReceiverOptions, SignedCallbackJob } from '../../src/webhooks/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { waitFor } from '../helpers/deferred.js';
import { refusedPort } from '../helpers/free-port.js';
import { temporaryProject } from '../helpers/project.js';
import type { TemporaryProject } from '../helpers/project.js';
import { startRedisServer } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';
import { PROVIDER } from '../helpers/wire.js';
import { TERMINAL_CONTROLS, expectNoSecret, expectUsageError, payorch } from './run.js';

// `payorch dead-letters` on BullMQ: a real redis-server (test/helpers/redis.ts), dead letters made
// by payorch/bullmq's own worker, and the command run in a merchant's project of the test's own
// whose node_modules holds bullmq and ioredis. The pg-boss side: dead-letters.pg.test.ts.

let redis: RedisServer;
let project: TemporaryProject;
let url: string;
const opened: BullMQCallbackQueue[] = [];
const seconds = Math.floor(Date.now() / 1000) - 60;
let queues = 0;

beforeAll(async () => {
  redis = await startRedisServer();
  url = redis.url;
  project = temporaryProject(['bullmq', 'ioredis']);
}, 20_000);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((callbacks) => callbacks.close()));
});
afterAll(async () => {
  await redis.close();
  project.close();
});

const code = (name: string) => `MAN-${name}-${String(seconds)}`;

/**
 * A queue of the test's own, with one attempt (each failure is a dead letter) and a worker whose
 * deposit handler throws `failing.error` while `failing.on`, and records each code it applies.
 */
function deadQueue(receiverOptions: Partial<CallbackReceiverOptions<never>> = {}) {
  queues += 1;
  const name = `cli-${String(queues)}-${String(seconds)}`;
  const callbacks = createBullMQQueue({ connection: { url }, queue: name, retries: 0, onError: () => undefined });
  opened.push(callbacks);
  const failing = { on: true, error: 'the ledger is locked' };
  const applied: string[] = [];
  const receiver = createCallbackReceiver({ ...PROVIDER, merchantId: 'shop', onError: () => undefined, logLevel: 'off', ...receiverOptions });
  receiver.on('deposit', (callback) => {
    if (failing.on) throw new Error(failing.error);
    applied.push(callback.payload.tracking_code);
  });
  const worker = callbacks.work(receiver, { concurrency: 20, onDeadLetter: () => undefined });
  return {
    name,
    callbacks,
    failing,
    applied,
    worker,
    /** Receives a genuine deposit callback of each code, signed and sealed with `secretKey`, through a receiver that enqueues. */
    async deliver(codes: readonly string[], secretKey: string = PROVIDER.secretKey, fields: Record<string, unknown> = {}) {
      const sender = createCallbackReceiver({ ...PROVIDER, secretKey, merchantId: 'shop', enqueue: callbacks.enqueue, onError: () => undefined, logLevel: 'off' });
      for (const each of codes) {
        const { headers, body } = signCallback({ ...unsigned.deposit, ...fields, tracking_code: each }, { ...PROVIDER, secretKey });
        expect((await sender.handle(new Request('https://shop.test/callbacks', { method: 'POST', headers, body }))).status).toBe(200);
      }
    },
    dead: (count: number) => waitFor(async () => (await callbacks.queue.getFailedCount()) === count, 20_000, `${String(count)} dead letter(s)`),
    ids: async () => (await callbacks.deadLetters.list({ limit: 1000 })).deadLetters.map((letter) => letter.id),
    /** `payorch dead-letters <args> --redis-url … --queue …`, run in the merchant's project. */
    cli: (args: readonly string[], env: Record<string, string> = {}, stdin = '') => payorch(['dead-letters', ...args, '--redis-url', url, '--queue', name], env, stdin, project.directory),
  };
}

const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('payorch dead-letters on BullMQ', { timeout: 60_000 }, () => {
  test('list prints each dead letter, oldest first, with its kind, tracking code, status, merchant, receipt, death, attempts and last error; --json the page', async () => {
    const queue = deadQueue();
    await queue.deliver([code('list01a'), code('list01b')]);
    await queue.dead(2);
    // The two die side by side, in either order: the command lists them as the library does.
    const [first, second] = (await queue.callbacks.deadLetters.list()).deadLetters.map((letter) => ({ id: letter.id, name: letter.trackingCode.split('-')[1] ?? '' }));
    if (first === undefined || second === undefined) throw new Error('two dead letters were expected');

    const text = await queue.cli(['list']);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const where = `queue ${queue.name} (BullMQ, prefix bull, on ${url})`;
    const letter = (id = '', name = '') => `${id}  deposit ${code(name)} completed\n  merchant shop, received ${ISO}, died ${ISO} after 1 attempt\\(s\\)\n  last error: Error: the ledger is locked\n`;
    expect(text.stdout).toMatch(new RegExp(`^2 dead letter\\(s\\) of ${escape(where)}, oldest first:\n${letter(first.id, first.name)}${letter(second.id, second.name)}$`));

    const json = await queue.cli(['list', '--json']);
    expect(json.code).toBe(0);
    const shown = { kind: 'deposit', status: 'completed', merchantId: 'shop', receivedAt: expect.stringMatching(new RegExp(`^${ISO}$`)) as unknown, attempts: 1, lastError: 'Error: the ledger is locked', deadAt: expect.stringMatching(new RegExp(`^${ISO}$`)) as unknown, history: [] };
    const page = JSON.parse(json.stdout) as { deadLetters: { deadAt: string }[] };
    expect(page).toEqual({ deadLetters: [{ id: first.id, trackingCode: code(first.name), ...shown }, { id: second.id, trackingCode: code(second.name), ...shown }] });
    expect([first.name, second.name].sort()).toEqual(['list01a', 'list01b']);
    expect(Date.parse(page.deadLetters[0]?.deadAt ?? '')).toBeLessThanOrEqual(Date.parse(page.deadLetters[1]?.deadAt ?? ''));
  });

  test('list pages with --limit and --cursor, and says how to read the next page', async () => {
    const queue = deadQueue();
    await queue.deliver([code('page02a'), code('page02b'), code('page02c')]);
    await queue.dead(3);
    const ids = await queue.ids();
    const one = JSON.parse((await queue.cli(['list', '--limit', '2', '--json'])).stdout) as { deadLetters: { id: string }[]; cursor: string };
    expect(one.deadLetters.map((letter) => letter.id)).toEqual(ids.slice(0, 2));
    const two = JSON.parse((await queue.cli(['list', '--limit', '2', '--cursor', one.cursor, '--json'])).stdout) as { deadLetters: { id: string }[]; cursor?: string };
    expect(two.deadLetters.map((letter) => letter.id)).toEqual(ids.slice(2));
    expect(two.cursor).toBeUndefined();
    expect((await queue.cli(['list', '--limit', '2'])).stdout).toMatch(new RegExp(`\nMore: add --cursor ${escape(one.cursor)}\n$`));
    // The engine's own check of a cursor it never gave, in the command line's words.
    const wrong = await queue.cli(['list', '--cursor', 'not-a-cursor']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^payorch dead-letters: --cursor must be the cursor of the page before, as list returned it; got "not-a-cursor"\n/);
  });

  test('show prints one dead letter and its job, without the service’s hash and the seal’s MAC; an id that is no dead letter exits 1', async () => {
    const queue = deadQueue();
    await queue.deliver([code('show03')]);
    await queue.dead(1);
    const [id = ''] = await queue.ids();
    const job = (await queue.callbacks.queue.getJob(id))?.data as SignedCallbackJob;

    const text = await queue.cli(['show', id]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${id}  deposit ${code('show03')} completed\n`);
    expect(text.stdout).toContain('\njob (its hashes and seal MAC left out):\n  {\n    "version": 2,\n');
    expect(text.stdout).toContain(`"keyId": "${job.seal.keyId}"`);
    const json = await queue.cli(['show', id, '--json']);
    const shown = JSON.parse(json.stdout) as { id: string; job: Record<string, unknown> };
    expect(shown.id).toBe(id);
    // The payload keeps every field the service sent but its hash, which signature.hash repeats.
    const { hash, ...payload } = job.payload;
    expect(hash).toBe(job.signature.hash);
    expect(shown.job).toEqual({ ...job, payload, signature: { timestamp: job.signature.timestamp, in: 'headers' }, seal: { keyId: job.seal.keyId } });
    for (const run of [text, json]) {
      expect(run.stdout).not.toContain(job.signature.hash);
      expect(run.stdout).not.toContain(job.seal.mac);
    }

    const missing = await queue.cli(['show', 'no-such-id']);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: `payorch dead-letters: no dead letter no-such-id in queue ${queue.name} (BullMQ, prefix bull, on ${url}): replayed or purged already, or another queue's (list shows the ids)\n` });
  });

  test('a job’s text is printed with its control characters escaped: neither its last error nor its fields can repaint the terminal', async () => {
    const queue = deadQueue();
    queue.failing.error = 'locked\u001b[2J\u001b[H\rOK: applied\u2028\u0085\u202e';
    await queue.deliver([code('escape04')], PROVIDER.secretKey, { fullname: 'Ada\u202e\u2028Yılmaz\u009b31m' });
    await queue.dead(1);
    const [id = ''] = await queue.ids();
    const list = await queue.cli(['list']);
    const show = await queue.cli(['show', id]);
    const error = 'last error: Error: locked\\u001b[2J\\u001b[H\\rOK: applied\\u2028\\u0085\\u202e\n';
    expect(list.stdout).toContain(error);
    expect(show.stdout).toContain(error);
    expect(show.stdout).toContain('"fullname": "Ada\\u202e\\u2028Yılmaz\\u009b31m"');
    // Nothing a terminal acts on but the line ends of the command's own layout.
    for (const run of [list, show]) expect(run.stdout).not.toMatch(TERMINAL_CONTROLS);
  });

  test('replay <id> sends that dead letter to the queue again, and the worker applies it once; an id that is no longer one exits 1', async () => {
    const queue = deadQueue();
    await queue.deliver([code('replay05a'), code('replay05b')]);
    await queue.dead(2);
    // The two may die in either order: the one replayed is the dead letter of replay05a.
    const letters = (await queue.callbacks.deadLetters.list()).deadLetters;
    const first = letters.find((letter) => letter.trackingCode === code('replay05a'))?.id ?? '';
    const second = letters.find((letter) => letter.id !== first)?.id;
    queue.failing.on = false;

    const run = await queue.cli(['replay', first]);
    expect(run).toEqual({ code: 0, stdout: `Replayed 1 of the 1 dead letter(s) named, of queue ${queue.name} (BullMQ, prefix bull, on ${url}).\n`, stderr: '' });
    await waitFor(() => queue.applied.length === 1, 10_000, 'the replayed job to be applied');
    expect(queue.applied).toEqual([code('replay05a')]);
    expect(await queue.ids()).toEqual([second]);

    const again = await queue.cli(['replay', first, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ replayed: 0, missing: 1 });
    expect(again.stderr).toBe(`payorch dead-letters: 1 of the ids named is not a dead letter of queue ${queue.name} (BullMQ, prefix bull, on ${url}) (replayed or purged already?)\n`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(queue.applied).toEqual([code('replay05a')]);
  });

  test('replay --all replays every dead letter, over more than one batch of 100, and each is applied once', async () => {
    const queue = deadQueue();
    const codes = Array.from({ length: 130 }, (_, index) => code(`all06n${String(index).padStart(3, '0')}`));
    await queue.deliver(codes);
    await queue.dead(codes.length);
    queue.failing.on = false;

    const run = await queue.cli(['replay', '--all', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ replayed: 130, remaining: 0 });
    await waitFor(() => queue.applied.length >= codes.length, 20_000, 'every replayed job to be applied');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([...queue.applied].sort()).toEqual([...codes].sort());
    expect(await queue.callbacks.queue.getFailedCount()).toBe(0);
  });

  test('replay --reseal <account> re-seals with the account’s key now the jobs sealed before a rotation, and prints neither key', async () => {
    const OLD = 'prov_secret_old_R2d2';
    const until = new Date(Date.now() + 1000);
    const queue = deadQueue({ secretKey: PROVIDER.secretKey, previousSecretKey: { secretKey: OLD, until } });
    queue.failing.on = false;
    // Received and sealed before the rotation; worked after the old key's window closed.
    await queue.worker.pause();
    await queue.deliver([code('reseal07')], OLD);
    await new Promise((resolve) => setTimeout(resolve, until.getTime() - Date.now() + 50));
    await queue.worker.resume();
    await queue.dead(1);
    expect((await queue.callbacks.deadLetters.list()).deadLetters[0]?.lastError).toMatch(/seal_key_expired/);

    const file = join(project.directory, 'old-secret-key');
    writeFileSync(file, `${OLD}\n`);
    const run = await queue.cli(['replay', '--all', '--reseal', 'provider', '--old-secret-key-file', file], { PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    await waitFor(() => queue.applied.length === 1, 10_000, 'the re-sealed job to be applied');
    expect(queue.applied).toEqual([code('reseal07')]);
    expectNoSecret(run, OLD, PROVIDER.secretKey);
  });

  test('purge deletes for good only with --yes: dead letters by id, then every one that died before a time', async () => {
    const queue = deadQueue();
    await queue.deliver([code('purge08a'), code('purge08b')]);
    await queue.dead(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const between = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await queue.deliver([code('purge08c')]);
    await queue.dead(3);
    const [a = '', , c] = await queue.ids();

    const unconfirmed = await queue.cli(['purge', a]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/^payorch dead-letters: purge deletes dead letters for good, and with them the callbacks they would apply: add --yes once you are sure/);
    expect((await queue.ids()).length).toBe(3);

    expect(await queue.cli(['purge', a, '--yes'])).toEqual({ code: 0, stdout: `Purged 1 of the 1 dead letter(s) named, of queue ${queue.name} (BullMQ, prefix bull, on ${url}).\n`, stderr: '' });
    const before = await queue.cli(['purge', '--before', between.toISOString(), '--yes', '--json']);
    expect(before).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(before.stdout)).toEqual({ purged: 1 });
    expect(await queue.ids()).toEqual([c]);

    const again = await queue.cli(['purge', a, '--yes', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ purged: 0, missing: 1 });
  });

  test('the engine comes from the project in the current directory: one without bullmq or ioredis is told the npm install to run, though payorch has its own', async () => {
    const empty = temporaryProject();
    const halfway = temporaryProject(['bullmq']);
    try {
      const none = await payorch(['dead-letters', 'list', '--redis-url', url], {}, '', empty.directory);
      expect(none).toEqual({
        code: 2,
        stdout: '',
        stderr: `payorch dead-letters: bullmq is not installed in ${empty.directory}: payorch dead-letters uses your project's own bullmq, as your workers do. Run npm install bullmq ioredis there, or run the command from the project's directory\nSee payorch dead-letters --help.\n`,
      });
      const half = await payorch(['dead-letters', 'list', '--redis-url', url], {}, '', halfway.directory);
      expect(half.code).toBe(2);
      expect(half.stderr).toContain(`ioredis is not installed in ${halfway.directory}: payorch dead-letters uses your project's own ioredis, as your workers do. Run npm install ioredis there`);
      // The same command in the project that has both.
      expect(await payorch(['dead-letters', 'list', '--redis-url', url, '--queue', 'cli-empty'], {}, '', project.directory)).toMatchObject({ code: 0, stdout: `No dead letters in queue cli-empty (BullMQ, prefix bull, on ${url}).\n` });
    } finally {
      empty.close();
      halfway.close();
    }
  });

  test('$REDIS_URL chooses BullMQ when no flag names the engine', async () => {
    const run = await payorch(['dead-letters', 'list', '--queue', 'cli-by-env', '--json'], { REDIS_URL: url }, '', project.directory);
    expect(run).toEqual({ code: 0, stdout: `${JSON.stringify({ deadLetters: [] }, null, 2)}\n`, stderr: '' });
  });

  test('a Redis that does not answer fails with exit 1, naming its address without the password', async () => {
    const port = await refusedPort();
    const run = await payorch(['dead-letters', 'list', '--redis-url', `redis://:hunter2-redis-password@127.0.0.1:${String(port)}`], {}, '', project.directory);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^payorch dead-letters: could not open the dead letters of queue payorch-callbacks on redis://127\\.0\\.0\\.1:${String(port)}: .*ECONNREFUSED`));
    expectNoSecret(run, 'hunter2-redis-password');
  });
});

describe('payorch dead-letters refuses a command line it cannot run, before it loads or opens anything', () => {
  const REDIS = ['--redis-url', 'redis://127.0.0.1:1'];
  // Run where no engine package is: a usage error must come before the search for one.
  let nowhere: TemporaryProject;
  beforeAll(() => {
    nowhere = temporaryProject();
  });
  afterAll(() => {
    nowhere.close();
  });

  test.each([
    [['dead-letters'], {}, /^payorch dead-letters: name what to do: list, show <id>, replay <id>\.\.\. or replay --all, purge <id>\.\.\. or purge --before <time>\n/],
    [['dead-letters', 'lsit'], {}, /unknown action "lsit"; did you mean list\?/],
    [['dead-letters', 'list'], {}, /which queue\? give --database-url <url> \(pg-boss\) or --redis-url <url> \(BullMQ\), or set \$DATABASE_URL or \$REDIS_URL/],
    [['dead-letters', 'list'], { DATABASE_URL: 'postgres://127.0.0.1:1/db', REDIS_URL: 'redis://127.0.0.1:1' }, /both \$DATABASE_URL and \$REDIS_URL are set: choose the engine with --engine pg-boss or --engine bullmq/],
    [['dead-letters', 'list', '--engine', 'bullmg'], {}, /--engine must be pg-boss or bullmq, not "bullmg"; did you mean bullmq\?/],
    [['dead-letters', 'list', '--engine', 'pg-boss'], { REDIS_URL: 'redis://127.0.0.1:1' }, /--database-url is required \(or set DATABASE_URL\)/],
    [['dead-letters', 'list', '--database-url', 'postgres://127.0.0.1:1/db', ...REDIS], {}, /--database-url is for pg-boss and --redis-url for BullMQ: give the one of your queue/],
    [['dead-letters', 'list', ...REDIS, '--table', 'dead'], {}, /--table is not for BullMQ, the engine here/],
    [['dead-letters', 'list', '--redis-url', 'localhost-with-secret'], {}, /^payorch dead-letters: --redis-url \(or \$REDIS_URL\) is not a URL, for example redis:\/\/:password@host:6379\n/],
    [['dead-letters', 'list', ...REDIS, '--limit', '0'], {}, /--limit must be an integer from 1 to 1000; got 0/],
    [['dead-letters', 'list', ...REDIS, '--all'], {}, /unknown option --all/],
    [['dead-letters', 'show', ...REDIS], {}, /show takes one dead letter id, as list prints it/],
    [['dead-letters', 'replay', ...REDIS], {}, /name the dead letters to replay by id, or give --all for every one/],
    [['dead-letters', 'replay', '7', '--all', ...REDIS], {}, /name the dead letters to replay by id, or give --all for every one/],
    [['dead-letters', 'replay', '--all', '--reseal', 'admin', ...REDIS], {}, /--reseal must be provider or dealer/],
    [['dead-letters', 'replay', '--all', '--reseal', 'provider', ...REDIS], {}, /--reseal needs the secret key before the rotation: --old-secret-key-file <path> or --old-secret-key-stdin/],
    [['dead-letters', 'replay', '--all', '--reseal', 'provider', '--old-secret-key-stdin', ...REDIS], {}, /--reseal provider needs the account's secret key now: set PAYORCH_PROVIDER_SECRET_KEY/],
    [['dead-letters', 'replay', '--all', '--old-secret-key-stdin', ...REDIS], {}, /the secret key options are for --reseal <provider\|dealer>/],
    [['dead-letters', 'purge', '7', ...REDIS], {}, /add --yes once you are sure/],
    [['dead-letters', 'purge', '--yes', ...REDIS], {}, /name the dead letters to purge by id, or give --before <time>/],
    [['dead-letters', 'purge', '7', '--before', '2026-01-01', '--yes', ...REDIS], {}, /purge takes ids or --before, not both/],
    [['dead-letters', 'purge', '--before', 'last week', '--yes', ...REDIS], {}, /--before must be an ISO 8601 date \(2026-11-01\) or a date and time with its offset \(2026-11-01T09:30:00Z\); got "last week"/],
    [['dead-letters', 'purge', '--before', '2026-11-01T09:30:00', '--yes', ...REDIS], {}, /--before must be an ISO 8601 date/],
  ] as const)('payorch %j is bad usage', async (args, env, message) => {
    const run = await payorch(args, env, 'an-old-key', nowhere.directory);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/\nSee payorch dead-letters --help\.\n$/);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });

  test('payorch dead-letters --help states the engine rule, the defaults and each action', async () => {
    const help = await payorch(['dead-letters', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: payorch dead-letters list\|show\|replay\|purge/);
    expect(help.stdout).toContain('The engine: --engine, else the URL flag given (--database-url pg-boss, --redis-url BullMQ), else\nthe variable set ($DATABASE_URL pg-boss, $REDIS_URL BullMQ); when both are set, --engine decides.');
    expect(help.stdout).toContain('--queue <name>           the queue (default payorch-callbacks, both adapters\' default)');
    expect(help.stdout).toContain('(default payorch_dead_letters)');
    expect(help.stdout).toContain('--prefix <prefix>        BullMQ: the queue\'s key prefix (default bull)');
    expect(await payorch(['dead-letters', 'list', '--help'])).toEqual(help);
    await expectUsageError(['dead-letters', 'show', '--redis-url'], {}, /--redis-url needs a value/);
  });
});

/*
 * docs/cli.md shows each output of the command in a ```console block: its command line, then what
 * it prints. Each block is run here against dead letters made for it, and what it printed must be
 * the block's lines once queue names, ids, tracking codes, times and counts are made alike (a
 * last line `  ...` stands for the rest of a job).
 */
describe('the console blocks of docs/cli.md are what payorch dead-letters prints', { timeout: 60_000 }, () => {
  const page = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');
  const section = page.slice(page.indexOf('\n## `payorch dead-letters`\n')).split('\n## ')[1] ?? '';
  const blocks = [...section.matchAll(/```console\n([\s\S]*?)```/g)].map((match) => {
    const [command = '', ...output] = (match[1] ?? '').trimEnd().split('\n');
    return { command, output };
  });
  const shape = (line: string): string =>
    line
      .replace(/queue \S+ \(BullMQ, prefix \S+, on \S+\)/g, 'queue Q')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
      .replace(/MAN-\S+/g, 'CODE')
      .replace(/\d+/g, 'N');
  /** The form of a command line: its action, and whether it names ids or takes --all or --before. */
  const formOf = (args: readonly string[]): string => `${args[0] ?? ''} ${args.includes('--all') ? '--all' : args.includes('--before') ? '--before' : args.slice(1).some((arg) => /^\d+$/.test(arg)) ? '<id>' : ''}`.trim();

  test('every output form has its block', () => {
    const forms = blocks.map(({ command }) => formOf(command.split(' ').slice(3)));
    expect(forms.sort()).toEqual(['list', 'purge --before', 'purge <id>', 'replay --all', 'replay <id>', 'show <id>'].sort());
  });

  test.each(blocks.map((block) => [block.command, block] as const))('%s', async (_command, { command, output }) => {
    expect(command).toMatch(/^\$ payorch dead-letters /);
    const words = command.split(' ').slice(3);
    const form = formOf(words);
    const queue = deadQueue();
    const letters = form.endsWith('--all') || form.endsWith('--before') ? 2 : 1;
    await queue.deliver(Array.from({ length: letters }, (_, index) => code(`page${String(queues)}x${String(index)}`)));
    await queue.dead(letters);
    if (form === 'list') {
      // It died, was replayed and died again: the page shows its earlier life.
      const [first = ''] = await queue.ids();
      await queue.callbacks.deadLetters.replay({ ids: [first] });
      await waitFor(async () => (await queue.callbacks.deadLetters.list()).deadLetters.some((letter) => letter.history.length === 1), 20_000, 'the replayed dead letter to die again');
    }
    if (form.startsWith('replay')) queue.failing.on = false;
    const ids = await queue.ids();
    const args: string[] = [];
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index] ?? '';
      if (word === '--redis-url') index += 1;
      else if (word === '--before') {
        args.push(word, new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
        index += 1;
      } else args.push(/^\d+$/.test(word) ? (ids.shift() ?? '') : word);
    }
    const run = await queue.cli(args);
    expect(run.code, run.stderr).toBe(0);
    const printed = run.stdout.trimEnd().split('\n').map(shape);
    const shown = output.map(shape);
    if (shown.at(-1) === '  ...') {
      expect(printed.slice(0, shown.length - 1)).toEqual(shown.slice(0, -1));
      expect(printed.length).toBeGreaterThan(shown.length - 1);
    } else expect(printed).toEqual(shown);
  });
});
