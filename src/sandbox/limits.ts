import { SandboxError } from './sandbox-error.js';
import type { OptionDeclaration } from '../core/option-checks.js';

/*
 * Bounds of what the sandbox takes from its options, its methods and its controls. Each refusal
 * names the option, the value and the allowed range, before anything changes.
 */

/** The record clock stays within what `Date` and the `YYYY-MM-DD HH:MM:SS` format can show. */
export const CLOCK_RANGE = { min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) } as const;

/** Amounts a settled deposit may take: positive, at most 2 decimals' worth of precision above. */
export const MAX_AMOUNT = 1_000_000_000_000;

/** A finite number within [min, max], or a SandboxError naming `name`. */
export function checkNumber(name: string, value: unknown, min: number, max: number, integer = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new SandboxError('invalid_input', `${name} must be ${integer ? 'an integer' : 'a finite number'} from ${min} to ${max}, not ${shownValue(value)}`);
  }
  return value;
}

/** A record-clock time in milliseconds since the epoch, within {@link CLOCK_RANGE}. */
export function checkClockTime(name: string, ms: number): number {
  if (!Number.isFinite(ms) || ms < CLOCK_RANGE.min || ms > CLOCK_RANGE.max) {
    throw new SandboxError('invalid_input', `${name} would put the record clock at ${shownValue(ms)} ms since 1970, outside 1970-01-01 to 9999-12-31`);
  }
  return ms;
}

const TEN_YEARS_SECONDS = 10 * 365 * 86_400;

/** The numeric and URL options of createSandbox(); the fixtures check their own. */
export const SANDBOX_OPTIONS: readonly OptionDeclaration[] = [
  { name: 'callbackRetry.attempts', rule: { type: 'number', min: 1, max: 20, integer: true } },
  { name: 'callbackRetry.backoffMs', rule: { type: 'number', min: 0, max: 3_600_000, unit: 'milliseconds' } },
  // AbortSignal.timeout takes at most 2^31 - 1 ms; Node turns more into 1 ms.
  { name: 'callbackRetry.timeoutMs', rule: { type: 'number', min: 1, max: 2 ** 31 - 1, integer: true } },
  { name: 'callbackRetry.resign', rule: { type: 'boolean' } },
  { name: 'lifetimeSeconds', rule: { type: 'number', min: 0, max: TEN_YEARS_SECONDS, unit: 'seconds' } },
  { name: 'transferCompletionSeconds', rule: { type: 'number', min: 0, max: TEN_YEARS_SECONDS, unit: 'seconds' } },
  { name: 'maxRecords', rule: { type: 'number', min: 1, max: 10_000_000, integer: true } },
  { name: 'maxDeliveries', rule: { type: 'number', min: 1, max: 1_000_000, integer: true } },
  { name: 'publicUrl', rule: { type: 'httpUrl' } },
  { name: 'startTime', rule: { type: 'time', ...CLOCK_RANGE } },
];

function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return String(value);
}
