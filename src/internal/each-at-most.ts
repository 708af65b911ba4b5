/**
 * Runs `work` over `items`, at most `concurrency` at once, and resolves with its results in the
 * order of `items`: the bounded pool of every sweep that reads statuses (reconcile, transfers).
 * `work` must not reject.
 */
export async function eachAtMost<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
