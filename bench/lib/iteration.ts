/** What an iteration run (bench/children/iterate.ts) reports to bench/figures/iteration.ts. */
export interface IterationRun {
  /** Wall time of the whole walk, minus the time spent in the forced collections. */
  readonly ms: number;
  readonly records: number;
  readonly startHeap: number;
  /** Highest heapUsed sampled: live objects plus garbage not collected yet. */
  readonly peakHeap: number;
  /** Highest heapUsed right after a forced full collection: what the walk keeps alive. */
  readonly peakLiveHeap: number;
  readonly startRss: number;
  readonly peakRss: number;
}

/** A full collection every this many records, to read the live heap; its time is not counted. */
export const CHECKPOINT = 2_000;

export const RANGE = { start_date: '2025-03-01', end_date: '2025-03-10' } as const;
export const RANGE_DAYS = 10;
