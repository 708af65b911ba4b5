/** Middle value of `values` (mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Half the distance between the 25th and 75th percentiles, relative to the median: how noisy a figure was. */
export function relativeSpread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))]!;
  return (at(0.75) - at(0.25)) / 2 / median(values);
}

export const format = {
  us: (value: number): string => `${value.toFixed(value < 10 ? 2 : 1)} µs`,
  ms: (value: number): string => `${value.toFixed(value < 10 ? 2 : 1)} ms`,
  ratio: (value: number): string => `${value.toFixed(2)}x`,
  perSecond: (value: number): string => `${Math.round(value).toLocaleString('en-US')}/s`,
  count: (value: number): string => Math.round(value).toLocaleString('en-US'),
  bytes: (value: number): string => (value < 1024 ? `${value} B` : `${(value / 1024).toFixed(1)} KiB`),
  mib: (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`,
  /** `± 3%`: the relative spread of the runs a median came from. */
  spread: (values: readonly number[]): string => `±${(relativeSpread(values) * 100).toFixed(0)}%`,
};
