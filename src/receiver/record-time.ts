// The one reader of a tracking code's record time, shared by every inbox: each applies its
// retention rule by the age of the record, which the signed tracking code carries (spec 2.1).

const RECORD_TIME = /-(\d{1,12})$/;

/**
 * The record's creation time, in Unix seconds, that a tracking code ends with, or `undefined`
 * when it ends with none (verifyCallback accepts no such code, but an inbox may be called directly).
 */
export function recordTimeOf(trackingCode: string): number | undefined {
  const match = RECORD_TIME.exec(trackingCode);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
