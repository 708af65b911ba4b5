import { RequestValidationError } from '../../src/index.js';

/** What `run` throws or rejects with, which must be a RequestValidationError: anything else fails the test. */
export async function refusalOf(run: () => unknown): Promise<RequestValidationError> {
  let thrown: unknown;
  try {
    await run();
  } catch (error) {
    thrown = error;
  }
  if (thrown instanceof RequestValidationError) return thrown;
  throw new Error(`expected a RequestValidationError, got ${String(thrown)}`);
}
