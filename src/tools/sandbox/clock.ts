/**
 * The sandbox's record clock: creation times, `expires_at`, tracking-code timestamps and expiry.
 * It follows real time from a start point, or stands still when a start time was pinned; either
 * way `advance()` and `set()` move it. Signatures are checked against real time, never this
 * clock, so moving it never breaks a client's requests or a receiver's tolerance check.
 */
export class RecordClock {
  #offsetMs: number;
  readonly #frozen: boolean;
  readonly #realNow: () => number;

  constructor(start: Date | number | undefined, realNow: () => number = Date.now) {
    this.#realNow = realNow;
    this.#frozen = start !== undefined;
    this.#offsetMs = start === undefined ? 0 : toMs(start);
  }

  /** Milliseconds since the epoch on the record clock. */
  now(): number {
    return this.#frozen ? this.#offsetMs : this.#realNow() + this.#offsetMs;
  }

  advance(milliseconds: number): void {
    this.#offsetMs += milliseconds;
  }

  set(time: Date | number): void {
    this.#offsetMs += toMs(time) - this.now();
  }
}

function toMs(time: Date | number): number {
  return typeof time === 'number' ? time : time.getTime();
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `YYYY-MM-DD`, UTC. */
export function formatDate(ms: number): string {
  const date = new Date(ms);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** `YYYY-MM-DD HH:MM:SS`, UTC: the provider's timestamps (spec 2.1). */
export function formatDateTime(ms: number): string {
  const date = new Date(ms);
  return `${formatDate(ms)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** ISO 8601 without offset, `YYYY-MM-DDTHH:MM:SS`: the dealer's dates (spec 2.7). */
export function formatIsoLocal(ms: number): string {
  return formatDateTime(ms).replace(' ', 'T');
}

/** ISO 8601 with UTC offset, `YYYY-MM-DDTHH:MM:SS+00:00`: card payment times (spec 2.6). */
export function formatIsoOffset(ms: number): string {
  return `${formatIsoLocal(ms)}+00:00`;
}

/** Unix seconds of a millisecond time. */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
