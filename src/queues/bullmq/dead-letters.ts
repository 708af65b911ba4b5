import type { Job, Queue } from 'bullmq';
import { checkOptions, declareOptions } from '../../core/option-checks.js';
import { DEAD_LETTER_PAGE_LIMIT, DEFAULT_DEAD_LETTER_PAGE, checkDeadLetterId, checkPurgeOptions, checkReplayOptions, deadLetterOf, resealDeadLetter, storedLife } from '../dead-letters.js';
import type { DeadLetter, DeadLetterPage, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions } from '../dead-letters.js';
import type { CallbackJob } from '../../webhooks/job.js';

/*
 * The dead letters of a BullMQ queue are its failed set: a job lands there when its attempts ran
 * out (or its error said retrying cannot help), and stays while `removeOnFail` is false, which the
 * adapter sets on every job. BullMQ has no clock of its own over that set; Redis keeps it as long
 * as it keeps anything (noeviction, an append-only file). A replay moves a job from the failed set
 * back to the queue with BullMQ's own atomic `retry` (one Lua script: it takes the job out of the
 * failed set only if it is still there), so nothing is deleted before it is sent, and of two
 * replays at once only one moves each job.
 */

/**
 * Each default of payorch/bullmq once, read by the declarations (and so by the @default tags' test)
 * and the code. Here rather than beside the factory: `payorch dead-letters` reads the queue's and
 * the prefix's without loading bullmq, which the factory's module imports.
 * @internal
 */
export const BULLMQ_DEFAULTS = { queue: 'payorch-callbacks', prefix: 'bull', retries: 10, retryDelaySeconds: 5, concurrency: 1, lockDurationMs: 30_000, stalledIntervalMs: 30_000, maxStalledCount: 1 } as const;

/** How many dead letters one `replay` moves at most, and how many ids it takes. */
export const BULLMQ_REPLAY_BATCH = 100;
const MAX_PAGE = 1000;

/** @internal */
export const BULLMQ_LIST_OPTIONS = declareOptions<ListDeadLettersOptions>()([
  DEAD_LETTER_PAGE_LIMIT,
  { name: 'cursor', rule: { type: 'text', maxLength: 200, pattern: /^\d+:.+$/, allowed: 'the cursor of the page before, as list returned it' } },
]);

// A page of the failed set in BullMQ's order (the time each job failed, then its id as Redis
// orders members of one score: bytewise), after the job the cursor names. Keyset paging: a replay
// or purge between two pages removes jobs without moving the next page. Bytes are compared by
// hand because Lua's `<` follows the server's locale.
const PAGE_SCRIPT = `
local function greater(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local after, afterId, want = ARGV[1], ARGV[2], tonumber(ARGV[3])
local page, offset = {}, 0
while #page < want * 2 do
  local chunk = redis.call('ZRANGEBYSCORE', KEYS[1], after, '+inf', 'WITHSCORES', 'LIMIT', offset, want)
  if #chunk == 0 then break end
  for i = 1, #chunk, 2 do
    if #page < want * 2 and (after == '-inf' or tonumber(chunk[i + 1]) > tonumber(after) or greater(chunk[i], afterId)) then
      page[#page + 1] = chunk[i]
      page[#page + 1] = chunk[i + 1]
    end
  end
  offset = offset + want
end
return page`;
const PAGE_COMMAND = 'payorchDeadLetterPage';

// Deletes a job only while it is in the failed set, in one step: a replay between a check and a
// removal would otherwise delete a job just queued again. It removes what BullMQ's own removeJob
// removes of a job in no flow (the adapter's jobs have no parent and no children): the set's
// member, the job's keys, its deduplication key when it still names it, and a 'removed' event.
const PURGE_SCRIPT = `
local failed, jobKey, events, meta = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local jobId, base = ARGV[1], ARGV[2]
if not redis.call('ZSCORE', failed, jobId) then return 0 end
redis.call('ZREM', failed, jobId)
local deduplicationId = redis.call('HGET', jobKey, 'deid')
if deduplicationId and redis.call('GET', base .. 'de:' .. deduplicationId) == jobId then
  redis.call('DEL', base .. 'de:' .. deduplicationId, base .. 'dn:' .. deduplicationId)
end
redis.call('DEL', jobKey, jobKey .. ':logs', jobKey .. ':dependencies', jobKey .. ':processed', jobKey .. ':failed', jobKey .. ':unsuccessful')
local maxEvents = redis.call('HGET', meta, 'opts.maxLenEvents') or 10000
redis.call('XADD', events, 'MAXLEN', '~', maxEvents, '*', 'event', 'removed', 'jobId', jobId, 'prev', 'failed')
return 1`;
const PURGE_COMMAND = 'payorchPurgeDeadLetter';

// Adds a dead letter's life to its earlier lives, kept in a field of the job's hash beside BullMQ's
// own (the sealed job, its data, is left as it was sealed), before a replay starts a new life:
// only while it is a dead letter (a purged job's hash is not made again), and once per death
// (two replays at once add it once), the death named by the time it failed. Text, not cjson: an
// error may hold what cjson refuses.
const LIFE_SCRIPT = `
local failed, jobKey = KEYS[1], KEYS[2]
local jobId, life, deadAt = ARGV[1], ARGV[2], ARGV[3]
if not redis.call('ZSCORE', failed, jobId) then return 0 end
if redis.call('HGET', jobKey, 'payorchLastDeath') == deadAt then return 1 end
local history = redis.call('HGET', jobKey, 'payorchHistory')
if history then history = string.sub(history, 1, -2) .. ',' .. life .. ']' else history = '[' .. life .. ']' end
redis.call('HSET', jobKey, 'payorchHistory', history, 'payorchLastDeath', deadAt)
return 1`;
const LIFE_COMMAND = 'payorchKeepDeadLetterLife';
/** The field of a job's hash that keeps its earlier lives (a JSON array). */
const HISTORY_FIELD = 'payorchHistory';

/** The parts of a BullMQ client the scripts need: BullMQ's `IRedisClient`, and ioredis' `hget`. */
interface ScriptClient {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string; readOnly?: boolean }): void;
  runCommand(name: string, args: unknown[]): Promise<unknown>;
  hget(key: string, field: string): Promise<string | null>;
}
const defined = new WeakSet<object>();

/** BullMQ's codes for a job that is not in the set `retry` expected (-3) or no longer exists (-1, also of `updateData`). */
function isGone(error: unknown): boolean {
  const code = (error as Partial<Record<'code', unknown>> | null)?.code;
  return code === -3 || code === -1;
}

/** A job of the queue as BullMQ reads it. */
type QueueJob = NonNullable<Awaited<ReturnType<Queue<CallbackJob>['getJob']>>>;

/** What a dead letter is read from of a BullMQ job. */
interface FailedJob {
  readonly id?: string | undefined;
  readonly data: unknown;
  readonly attemptsMade: number;
  readonly failedReason: string;
  readonly finishedOn?: number | undefined;
}

/**
 * A failed job as a dead letter: BullMQ's attempts, its failed reason (`name: message`, as the
 * worker words it), the time it failed, and its earlier lives from the job's hash.
 */
export async function deadLetterOfJob(queue: Queue<CallbackJob>, job: FailedJob): Promise<DeadLetter> {
  const client = (await queue.getBackend().client) as unknown as ScriptClient;
  const history = await client.hget(`${queue.keys[''] ?? ''}${String(job.id)}`, HISTORY_FIELD);
  return deadLetterOf(job.data, { id: String(job.id), attempts: job.attemptsMade, lastError: job.failedReason, deadAt: new Date(job.finishedOn ?? Number.NaN), history });
}

/** The failed set of `queue` as the dead letters every adapter gives. */
export function bullMQDeadLetters(queue: Queue<CallbackJob>): DeadLetters {
  const where = (method: string) => `deadLetters.${method}`;

  /** The job of a dead letter, or undefined when `id` names none (never was, replayed, purged). */
  async function failedJob(id: string): Promise<QueueJob | undefined> {
    const job = await queue.getJob(id);
    return job !== undefined && (await job.isFailed()) ? job : undefined;
  }

  /** The queue's client, with the adapter's scripts defined on it. */
  async function scripts(): Promise<ScriptClient> {
    const client = (await queue.getBackend().client) as unknown as ScriptClient;
    if (!defined.has(client)) {
      client.defineCommand(PAGE_COMMAND, { numberOfKeys: 1, lua: PAGE_SCRIPT, readOnly: true });
      client.defineCommand(PURGE_COMMAND, { numberOfKeys: 4, lua: PURGE_SCRIPT });
      client.defineCommand(LIFE_COMMAND, { numberOfKeys: 2, lua: LIFE_SCRIPT });
      defined.add(client);
    }
    return client;
  }

  async function page(after: string, afterId: string, want: number): Promise<string[]> {
    const rows = await (await scripts()).runCommand(PAGE_COMMAND, [queue.keys['failed'], after, afterId, want]);
    return Array.isArray(rows) ? rows.map(String) : [];
  }

  return {
    async list(options) {
      checkOptions(where('list'), options, BULLMQ_LIST_OPTIONS);
      const limit = options?.limit ?? DEFAULT_DEAD_LETTER_PAGE;
      const cursor = options?.cursor;
      const split = cursor === undefined ? -1 : cursor.indexOf(':');
      const rows = await page(cursor === undefined ? '-inf' : cursor.slice(0, split), cursor === undefined ? '' : cursor.slice(split + 1), limit + 1);
      const ids: { id: string; score: string }[] = [];
      for (let index = 0; index + 1 < rows.length; index += 2) ids.push({ id: rows[index] ?? '', score: rows[index + 1] ?? '' });
      const shown = ids.slice(0, limit);
      const jobs = await Promise.all(shown.map(({ id }) => queue.getJob(id)));
      const last = shown.at(-1);
      const result: DeadLetterPage = {
        // A job purged or replayed between the two reads is not shown.
        deadLetters: await Promise.all(jobs.filter((job): job is QueueJob => job?.finishedOn !== undefined).map((job) => deadLetterOfJob(queue, job))),
        ...(ids.length > limit && last !== undefined ? { cursor: `${last.score}:${last.id}` } : {}),
      };
      return result;
    },

    async get(id) {
      const job = await failedJob(checkDeadLetterId(where('get'), id));
      return job === undefined ? undefined : { ...(await deadLetterOfJob(queue, job)), job: job.data };
    },

    async replay(options) {
      const { ids, reseal } = checkReplayOptions(options, BULLMQ_REPLAY_BATCH);
      const jobs =
        ids === undefined
          ? await queue.getJobs(['failed'], 0, BULLMQ_REPLAY_BATCH - 1, true)
          : (await Promise.all(ids.map((id) => failedJob(id)))).filter((job): job is QueueJob => job !== undefined);
      // Re-sealed before anything moves: a job the old key did not seal stops the replay whole,
      // naming it, rather than after half the batch went.
      const resealed = jobs.map((job) => (reseal === undefined ? undefined : resealDeadLetter(String(job.id), job.data, reseal)));
      const moved = await Promise.allSettled(
        jobs.map(async (job, index) => {
          const data = resealed[index];
          // BullMQ types a job of a union as a union of jobs, whose updateData takes no member.
          if (data !== undefined && data !== job.data) await (job as Job<CallbackJob>).updateData(data);
          // This life kept before the next starts: a job that dies again shows the attempts of both.
          const life = JSON.stringify(storedLife(job.attemptsMade, job.failedReason, job.finishedOn ?? 0));
          await (await scripts()).runCommand(LIFE_COMMAND, [queue.keys['failed'], `${queue.keys[''] ?? ''}${String(job.id)}`, String(job.id), life, String(job.finishedOn ?? 0)]);
          // Its attempts start again: a replayed job has the queue's retries, as a new one would.
          await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        }),
      );
      // Another replay moved it first, or it was purged: not this replay's.
      const failed = moved.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected' && !isGone(outcome.reason));
      if (failed !== undefined) throw failed.reason;
      const remaining = ids === undefined ? await queue.getFailedCount() : (await Promise.all(ids.map((id) => failedJob(id)))).filter((job) => job !== undefined).length;
      return { replayed: moved.filter((outcome) => outcome.status === 'fulfilled').length, remaining };
    },

    async purge(options: PurgeDeadLettersOptions) {
      const which = checkPurgeOptions(options);
      // Only a job still in the failed set, checked in the step that deletes it: a dead letter
      // replayed meanwhile is a live job again.
      const base = queue.keys[''] ?? '';
      const remove = async (ids: readonly string[]): Promise<number> => {
        const client = await scripts();
        const removed = await Promise.all(ids.map((id) => client.runCommand(PURGE_COMMAND, [queue.keys['failed'], `${base}${id}`, queue.keys['events'], queue.keys['meta'], id, base])));
        return removed.filter((count) => Number(count) === 1).length;
      };
      if ('ids' in which) return { purged: await remove(which.ids) };
      // Read through the failed set in the order jobs failed (its score), not BullMQ's `clean`,
      // which takes an age counted from its own clock a moment later: a job that failed at
      // `before` itself could go too.
      const { before } = which;
      let purged = 0;
      let after = '-inf';
      let afterId = '';
      for (;;) {
        const rows = await page(after, afterId, MAX_PAGE);
        const older: string[] = [];
        for (let index = 0; index + 1 < rows.length; index += 2) {
          if (Number(rows[index + 1]) >= before) break;
          older.push(rows[index] ?? '');
        }
        purged += await remove(older);
        // A page cut short by a newer job, or the last page: nothing older is left.
        if (older.length < MAX_PAGE || rows.length < MAX_PAGE * 2) return { purged };
        after = rows[rows.length - 1] ?? '-inf';
        afterId = rows[rows.length - 2] ?? '';
      }
    },
  };
}
