import { MAX_TIMEOUT_MS, declareOptions } from '../core/option-checks.js';

// The settings of `dealer.transfers.waitFor`, apart from the resources: src/index.ts exports every
// name of resources.ts as a type, and these are values too.

/** Settings of `dealer.transfers.waitFor`. */
export interface WaitForTransferOptions {
  /**
   * How long to wait for an end status, in milliseconds, reads included.
   * @default 300000 (5 minutes)
   * @example 60_000
   */
  readonly timeout?: number | undefined;
  /**
   * The first pause between two reads, in milliseconds; each pause doubles, up to 30 s (or this
   * value when it is larger).
   * @default 1000
   * @example 5_000
   */
  readonly interval?: number | undefined;
  /**
   * Stops the wait, and the read under way, with a `RequestAbortedError`.
   * @example AbortSignal.timeout(10_000)
   */
  readonly signal?: AbortSignal | undefined;
}

export const DEFAULT_WAIT_MS = 300_000;
export const DEFAULT_INTERVAL_MS = 1_000;
export const MAX_PAUSE_MS = 30_000;

export const WAIT_OPTIONS = /* @__PURE__ */ declareOptions<WaitForTransferOptions>()([
  { name: 'timeout', rule: { type: 'number', min: 1, max: MAX_TIMEOUT_MS, integer: true, unit: 'milliseconds' }, default: DEFAULT_WAIT_MS },
  { name: 'interval', rule: { type: 'number', min: 10, max: 3_600_000, integer: true, unit: 'milliseconds' }, default: DEFAULT_INTERVAL_MS },
  { name: 'signal', rule: { type: 'object', methods: ['addEventListener', 'removeEventListener'], allowed: 'an AbortSignal' } },
]);
