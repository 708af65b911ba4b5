/*
 * "Did you mean": the closest name a user could have meant, for operations, commands and flags.
 * Case is ignored (manual.startdeposit is manual.startDeposit), and a name is suggested only
 * when it is a few edits away, so that a wild guess gets no misleading answer.
 */

/** Levenshtein distance: insertions, deletions and substitutions. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate closest to `input`, when it is within a third of its length (at least 2 edits). */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(wanted.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(wanted, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** `; did you mean X?` for a message, or nothing. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closest(input, candidates);
  return match === undefined ? '' : `; did you mean ${match}?`;
}
