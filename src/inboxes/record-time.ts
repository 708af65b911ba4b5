import { RequestValidationError } from '../errors/error.js';
import type { CallbackKey } from './inbox.js';

// Every signed tracking code ends with its record's creation time in Unix seconds (spec 2.1), and
// verification requires it. Inboxes keep keys by this record time, not by when they applied them:
// a re-signed redelivery verifies at any age, so only the record's age bounds once-only.
const RECORD_TIME = /-(\d{1,12})$/;

/**
 * The record time of a tracking code, in Unix seconds: the one reader every inbox shares.
 * @throws {RequestValidationError} when the code does not end with one (verifyCallback accepts no such code, but an inbox may be called directly)
 */
export function recordTimeOf(trackingCode: string): number {
  const digits = RECORD_TIME.exec(trackingCode)?.[1];
  if (digits === undefined) refuse('key.trackingCode', `${JSON.stringify(trackingCode.slice(0, 64))} does not end with the record's Unix seconds (spec 2.1)`);
  return Number(digits);
}

/**
 * The record time of a key, in Unix seconds: the one it carries (a transfer's, whose id holds no
 * time), else the one its tracking code ends with.
 * @throws {RequestValidationError} when it has neither
 */
export function keyRecordTime(key: CallbackKey): number {
  const { recordTime } = key;
  if (recordTime === undefined) return recordTimeOf(key.trackingCode);
  if (!Number.isSafeInteger(recordTime) || recordTime < 0) refuse('key.recordTime', `must be Unix seconds, a non-negative integer; got ${String(recordTime)}`);
  return recordTime;
}

function refuse(field: string, message: string): never {
  throw new RequestValidationError('inbox.process', [{ field, rule: 'invalid_argument', message }]);
}
