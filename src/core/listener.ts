/**
 * Calls a function the user gave payorch to be told something (`onError`, a logger's method,
 * `onDeadLetter`, a hook) with `args`, on `self` for a logger's method. Typed as returning `void`,
 * it may still be `async`: one that throws, or whose promise rejects, is handed to `failed`, and
 * neither reaches the code that told it nor becomes an unhandled rejection, which ends a Node
 * process.
 */
export function callListener<A extends readonly unknown[]>(listener: (...args: A) => unknown, args: A, failed: (error: unknown) => void, self?: object): void {
  let result: unknown;
  try {
    result = Reflect.apply(listener, self, args);
  } catch (error) {
    failed(error);
    return;
  }
  if (typeof (result as Partial<PromiseLike<unknown>> | null | undefined)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, failed);
}
