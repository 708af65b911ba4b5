import * as z from 'zod/mini';
import { RequestValidationError } from '../errors/error.js';
import { dayNumber, dayString } from './date-windows.js';

/*
 * The cursor of `dealer.transactions.readNew`: when the last run read, and the ids it handed out
 * that a later run may read again (those dated within the look-back). History has no id order and
 * no "since" query (spec 4.13), so the ids are the only way to tell a record seen from a new one.
 */

/** What a cursor holds, decoded. */
export interface CursorState {
  /** The wallet it belongs to. */
  readonly walletId: string;
  /** When the run that made it started reading, in milliseconds since 1970. */
  readonly readAt: number;
  /** Each id handed out, with the day number of its date. */
  readonly seen: Map<string, number>;
}

// Built on first use: importing the package builds no schema.
function cursorJson() {
  return z.object({
    v: z.literal(1),
    w: z.string(),
    t: z.number().check(z.int(), z.nonnegative()),
    d: z.record(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)), z.array(z.string())),
  });
}
let cursorSchema: ReturnType<typeof cursorJson> | undefined;

const PREFIX = 'ptx1.';

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** The day number of a transaction's `date` (`YYYY-MM-DD...`), or `fallback` when it has none. */
export function dayOfDate(date: string, fallback: number): number {
  return /^\d{4}-\d{2}-\d{2}/.test(date) ? dayNumber(date.slice(0, 10)) : fallback;
}

/** The cursor text of a state: ids grouped by day, so that a day's ids are dropped together. */
export function encodeCursor(state: CursorState): string {
  const days: Record<string, string[]> = {};
  for (const [id, day] of state.seen) (days[dayString(day)] ??= []).push(id);
  return PREFIX + toBase64Url(JSON.stringify({ v: 1, w: state.walletId, t: Math.floor(state.readAt), d: days }));
}

/**
 * Reads a cursor that `readNew` returned for this wallet.
 * @throws {RequestValidationError} naming `cursor`, for text that is not one, or another wallet's
 */
export function decodeCursor(operation: string, cursor: string, walletId: string): CursorState {
  const refuse = (message: string): never => {
    throw new RequestValidationError(operation, [{ field: 'cursor', rule: 'invalid_option', message }]);
  };
  let parsed: z.output<ReturnType<typeof cursorJson>> | undefined;
  if (cursor.startsWith(PREFIX)) {
    try {
      const result = z.safeParse((cursorSchema ??= cursorJson()), JSON.parse(fromBase64Url(cursor.slice(PREFIX.length))));
      parsed = result.success ? result.data : undefined;
    } catch {
      parsed = undefined;
    }
  }
  if (parsed === undefined) return refuse('is not a cursor that readNew returned; store the `cursor` of its result as it is');
  if (parsed.w !== walletId) refuse('belongs to another wallet_id; keep one cursor per wallet');
  const seen = new Map<string, number>();
  for (const [day, ids] of Object.entries(parsed.d)) for (const id of ids) seen.set(id, dayNumber(day));
  return { walletId, readAt: parsed.t, seen };
}
