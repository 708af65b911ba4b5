/** Ends a switch over a union: the compiler proves the call unreachable, the throw guards a lying cast. */
export function assertNever(value: never): never {
  throw new TypeError(`Unexpected value: ${JSON.stringify(value)}`);
}
