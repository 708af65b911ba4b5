import { median } from './stats.js';

export interface Variant {
  readonly name: string;
  readonly call: () => Promise<unknown>;
}

export interface Timing {
  /** Wall-clock microseconds per call, one value per round. */
  readonly wall: number[];
  /** CPU microseconds (user + system, whole process) per call, one value per round. */
  readonly cpu: number[];
}

/**
 * Calls each variant `calls` times in a row, one after another, for `rounds` rounds, rotating which
 * goes first so that neither always runs on a warmer or colder machine. Sequential calls: this is
 * latency, one request in flight, as a request handler waiting on the service sees it.
 */
export async function compareCalls(
  variants: readonly Variant[],
  { rounds, calls, warmup }: { rounds: number; calls: number; warmup: number },
): Promise<Map<string, Timing>> {
  const timings = new Map<string, Timing>(variants.map((variant) => [variant.name, { wall: [], cpu: [] }]));
  for (const variant of variants) {
    for (let i = 0; i < warmup; i++) await variant.call();
  }
  for (let round = 0; round < rounds; round++) {
    for (let v = 0; v < variants.length; v++) {
      const variant = variants[(round + v) % variants.length]!;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < calls; i++) await variant.call();
      const wall = ((performance.now() - start) * 1000) / calls;
      const cpu = process.cpuUsage(cpuStart);
      const timing = timings.get(variant.name)!;
      timing.wall.push(wall);
      timing.cpu.push((cpu.user + cpu.system) / calls);
    }
  }
  return timings;
}

/**
 * Operations per CPU second of synchronous functions: each round runs each variant for about
 * `roundMs`, in rotating order; returns one ops/s value per round and variant. CPU time
 * (`process.cpuUsage()`), not wall time, so that time the process spent descheduled on a busy
 * machine does not count against whichever variant was running.
 */
export function compareSync(
  variants: readonly { readonly name: string; readonly run: (iteration: number) => unknown }[],
  { rounds, roundMs }: { rounds: number; roundMs: number },
): Map<string, number[]> {
  const results = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  let sink: unknown;
  // Warm-up: let the JIT settle on every variant before anything is counted.
  for (const variant of variants) {
    const end = performance.now() + roundMs;
    for (let i = 0; performance.now() < end; i++) sink = variant.run(i);
  }
  for (let round = 0; round < rounds; round++) {
    for (let v = 0; v < variants.length; v++) {
      const variant = variants[(round + v) % variants.length]!;
      const cpuStart = process.cpuUsage();
      const end = performance.now() + roundMs;
      let done = 0;
      // Check the clock every 64 calls so that reading it costs nothing measurable.
      while (performance.now() < end) {
        for (let i = 0; i < 64; i++) sink = variant.run(done + i);
        done += 64;
      }
      const cpu = process.cpuUsage(cpuStart);
      results.get(variant.name)!.push((done * 1e6) / (cpu.user + cpu.system));
    }
  }
  if (sink === Symbol.for('never')) console.log(sink);
  return results;
}

/**
 * Median over rounds of `variant` divided by `baseline` (or minus it), each round's pair measured
 * back to back: a load that comes and goes on a shared machine then weighs on both sides of each
 * pair, not on one variant's rounds more than the other's.
 */
export function paired(timings: Map<string, Timing>, variant: string, baseline: string, what: keyof Timing, how: 'ratio' | 'difference'): number {
  const a = timings.get(variant)![what];
  const b = timings.get(baseline)![what];
  return median(a.map((value, round) => (how === 'ratio' ? value / b[round]! : value - b[round]!)));
}

/** Median of one variant's per-round values. */
export function medianOf(timings: Map<string, Timing>, name: string, what: keyof Timing): number {
  return median(timings.get(name)![what]);
}
