import type { LevelledLogger } from '../core/log-level.js';
import type { MemoryInboxFill } from './memory.js';

/*
 * The in-memory inbox refuses rather than forgets: once full of keys it cannot forget yet, every
 * new callback is answered 500 until its oldest records pass their retention, and is lost once
 * the service stops retrying. So the receiver says so before the wall: on the console, without
 * any setup, at most once an hour once most of `maxKeys` is held, and at most once a minute once
 * it is full (beside the `onError` each refused callback gets). Counts and times only, never a key.
 */

/** The share of `maxKeys` from which the receiver warns. */
const NEARLY_FULL = 0.8;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

const WAY_OUT =
  'Use a durable inbox (PostgreSQL: createPostgresInbox from payorch/postgres; on Cloudflare, D1: payorch/d1, or a Durable Object: payorch/durable-object) or a larger maxKeys: see "In memory (the default)" in the inbox guide (docs/inboxes.md).';

/** Checks the inbox's fill after each callback it took or refused, and warns as above. */
export function capacityWarnings(fill: MemoryInboxFill, logger: LevelledLogger, now: () => number): () => void {
  const { maxKeys, retentionSeconds } = fill;
  // Never above maxKeys: a limit of 1 warns once full.
  const warnAt = Math.ceil(maxKeys * NEARLY_FULL);
  let nearlyAt: number | undefined;
  let fullAt: number | undefined;
  const days = retentionSeconds / 86_400;
  const retention = Number.isInteger(days) ? `${days} day${days === 1 ? '' : 's'}` : `${retentionSeconds} s`;

  function when(): string {
    const first = fill.firstExpiryMs();
    return first === undefined ? 'until the callbacks under way end' : `until ${new Date(first).toISOString()} (${retention}, retentionSeconds, after their record)`;
  }

  function write(fields: Readonly<Record<string, unknown>>, message: string): void {
    // At warn whatever the level but off: the callbacks refused once it is full are lost. A broken
    // logger is the user's to notice (levelledLogger): the answer goes out.
    logger.warnAlways(fields, message);
  }

  return () => {
    const keys = fill.keys();
    if (keys < warnAt) return;
    const at = now();
    if (keys >= maxKeys) {
      if (fullAt !== undefined && at - fullAt < MINUTE_MS) return;
      fullAt = at;
      write(
        { keys, maxKeys },
        `payorch: the in-memory inbox is full: it holds ${keys} keys (maxKeys ${maxKeys}) and forgets none ${when()}, so every new callback is answered 500 (InboxFullError, told to onError) and is lost once the service stops retrying. ${WAY_OUT}`,
      );
      return;
    }
    if (nearlyAt !== undefined && at - nearlyAt < HOUR_MS) return;
    nearlyAt = at;
    write(
      { keys, maxKeys },
      `payorch: the in-memory inbox holds ${keys} of its ${maxKeys} keys (maxKeys) and forgets none ${when()}; once it is full, every new callback is answered 500 until then. ${WAY_OUT}`,
    );
  };
}
