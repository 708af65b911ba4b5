// Every signed tracking code ends with its record's creation time in Unix seconds (spec 2.1), and
// verification requires it. Inboxes keep keys by this record time, not by when they applied them:
// a re-signed redelivery verifies at any age, so only the record's age bounds once-only.
const RECORD_TIME = /-(\d{1,12})$/;

/**
 * The record time of a tracking code, in Unix seconds: the one reader every inbox shares.
 * @throws {TypeError} when the code does not end with one (verifyCallback accepts no such code, but an inbox may be called directly)
 */
export function recordTimeOf(trackingCode: string): number {
  const digits = RECORD_TIME.exec(trackingCode)?.[1];
  if (digits === undefined) throw new TypeError(`inbox.process: the tracking code ${JSON.stringify(trackingCode.slice(0, 64))} does not end with the record's Unix seconds (spec 2.1)`);
  return Number(digits);
}
