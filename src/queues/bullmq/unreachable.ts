import { QueueError } from '../../errors/error.js';

/*
 * What payorch/bullmq says when Redis cannot be reached. ioredis reports each failed reconnect of
 * each connection (the queue's, and two per worker) as an error, and `enqueue` fails with its
 * own words ("Stream isn't writeable and enableOfflineQueue options is false"): neither says what
 * it means for callbacks. Each becomes a QueueError that does, told once a minute with the count.
 */

/** At most one report a minute: Redis down for an hour is one cause, not thousands of reconnects. */
const INTERVAL_MS = 60_000;

// Node's codes of a connection that failed or broke, and ioredis' words for a connection it has not (yet) got back.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const CONNECTION_WORDS = /Stream isn't writeable|Connection is closed|max retries per request/i;

function unreachable(error: Error): boolean {
  const code = (error as Partial<Record<'code', unknown>>).code;
  return (typeof code === 'string' && CONNECTION_CODES.has(code)) || CONNECTION_WORDS.test(error.message);
}

const DOWN = "Redis is unreachable, so no callback can be queued: the receiver answers them 500 and the service delivers them again (until it stops retrying); workers apply nothing meanwhile. BullMQ reconnects by itself";

/** The error `enqueue` rejects with: a QueueError whose `cause` is BullMQ's or ioredis' own. */
export function notQueued(queue: string, error: unknown): QueueError {
  const text = error instanceof Error ? error.message : String(error);
  const said = error instanceof Error && unreachable(error) ? `${DOWN} (${text})` : `the job was not queued (${text}); the receiver answers 500 and the service delivers the callback again`;
  return new QueueError(`payorch/bullmq: ${queue}: ${said}`, { cause: error });
}

/**
 * Hears the errors BullMQ's queue and workers emit, for `onError`: a lost connection once a minute
 * with the count since the last report, anything else as it comes, each as a QueueError. The minute
 * is measured on a monotonic clock (`now`), which a change of the wall clock does not move.
 */
export function redisErrors(queue: string, tell: (error: QueueError) => void, now: () => number = () => performance.now()): (error: Error) => void {
  let toldAt: number | undefined;
  let since = 0;
  return (error) => {
    if (!unreachable(error)) {
      tell(new QueueError(`payorch/bullmq: ${queue}: ${error.message}`, { cause: error }));
      return;
    }
    since += 1;
    const at = now();
    if (toldAt !== undefined && at - toldAt < INTERVAL_MS) return;
    const count = since;
    const minutes = toldAt === undefined ? undefined : Math.max(1, Math.round((at - toldAt) / INTERVAL_MS));
    toldAt = at;
    since = 0;
    const tally = minutes === undefined ? '' : `; ${String(count)} connection error${count === 1 ? '' : 's'} in the last ${minutes === 1 ? 'minute' : `${String(minutes)} minutes`}`;
    tell(new QueueError(`payorch/bullmq: ${queue}: ${DOWN} (${error.message}${tally}). Told at most once a minute while it lasts.`, { cause: error }));
  };
}
