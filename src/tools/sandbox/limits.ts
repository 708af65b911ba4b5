/*
 * Bounds of what the sandbox takes from its options, its methods and its controls. Each refusal
 * names the option, the value and the allowed range, before anything changes.
 */

/** The record clock stays within what `Date` and the `YYYY-MM-DD HH:MM:SS` format can show. */
export const CLOCK_RANGE = { min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) } as const;

/** Amounts a settled deposit may take: positive, at most 2 decimals' worth of precision above. */
export const MAX_AMOUNT = 1_000_000_000_000;
