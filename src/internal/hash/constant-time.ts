// One comparison for both SHA-256 paths (node:crypto and pure JS): no Buffer, no node:crypto.

/**
 * Whether two strings are equal, in time that depends only on their lengths: every code unit is
 * compared, with no early exit, so that a forger learns nothing from how long a mismatch took.
 */
export function constantTimeEqual(actual: string, expected: string): boolean {
  // A wrong length still costs a full pass over the expected value.
  const other = actual.length === expected.length ? actual : expected;
  let difference = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= other.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}
