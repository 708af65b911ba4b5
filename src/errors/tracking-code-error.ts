import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * A string is not a tracking code of spec 2.1 (`PREFIX-segment-unixSeconds`, for example
 * `MAN-a8Xk29Qp-1763812000`) nor a transfer id (`TRF-segment`).
 *
 * @example
 * ```ts
 * try {
 *   parseTrackingCode('ORDER-42');
 * } catch (error) {
 *   if (error instanceof TrackingCodeError) console.log(error.value); // 'ORDER-42'
 * }
 * ```
 */
export class TrackingCodeError extends PayorchError {
  static {
    brand(this, 'TrackingCodeError');
  }
  /** The value that was given, cut to 64 characters. */
  readonly value: string;
  /** Made by the tracking-code parser; names what is wrong with the code. */
  constructor(value: unknown) {
    const shown = typeof value === 'string' ? value.slice(0, 64) : `(${typeof value})`;
    super(
      `Not a tracking code: "${shown}". Expected a prefix of spec 2.1 (MAN, WIT, EIBAN, EIBAN-WIT, CC, TPBD, TPBW, TPCD, TPCW, TPWD, TPWW, DEP, WDR), ` +
        'a hyphen, an alphanumeric segment, a hyphen and Unix seconds (MAN-a8Xk29Qp-1763812000), or TRF- and an alphanumeric segment.',
      { outcome: 'not_sent' },
    );
    this.value = shown;
  }
}
