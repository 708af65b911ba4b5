// Your application's side of a callback: apply each tracking_code + status once. The service
// may deliver the same callback again (it retries what it recorded as failed), so a repeat is
// acknowledged with 200 and not applied twice. In production the Set is a database table with a
// unique key on (tracking_code, status), written in the same transaction as the balance change.
import type { VerifiedCallback } from 'payorch';

/** What to do with a verified callback, seen for the first time. */
export type OnCallback = (callback: VerifiedCallback) => void | Promise<void>;

export function processOnce(onCallback: OnCallback): (callback: VerifiedCallback) => Promise<void> {
  const seen = new Set<string>();
  return async (callback) => {
    const key = `${callback.payload.tracking_code} ${callback.payload.status}`;
    if (seen.has(key)) return;
    // Claimed before the await, so that two deliveries arriving together are not both applied.
    seen.add(key);
    try {
      await onCallback(callback);
    } catch (error) {
      // Not applied: release the claim and let the receiver answer 500, so that the service retries.
      seen.delete(key);
      throw error;
    }
  };
}

/** The default action of a receiver run from the command line: say what arrived. */
export function logCallback(callback: VerifiedCallback): void {
  const { tracking_code: trackingCode, status, amount } = callback.payload;
  console.log(`${callback.kind} ${trackingCode} ${status} amount=${String(amount)}`);
}
