import { InboxError } from '../errors/error.js';
import { printable } from '../errors/printable.js';

/**
 * The refusal of a claim the inbox's own table refused, before any handler ran: nothing was applied,
 * so the callback is delivered again. `byHand` when the engine's error is a constraint's or a
 * trigger's, which only something added to the table by hand raises. The engine's error is its cause.
 */
export function claimRefusal(entry: string, table: string, callback: string, error: unknown, byHand: boolean): InboxError {
  const why = printable(error instanceof Error ? error.message : String(error));
  return new InboxError(
    byHand
      ? `${entry}: ${table} refused the claim of ${callback} (${why}): a constraint or trigger added by hand? Nothing was applied, so that it is delivered again`
      : `${entry}: the claim of ${callback} in ${table} failed (${why}); nothing was applied, so that it is delivered again`,
    { cause: error },
  );
}
