import type { PayorchError } from './payorch-error.js';

// `instanceof` fails across copies of payorch: an app whose code `import`s it while a dependency
// `require`s it loads the ESM and the CommonJS build side by side, each with its own classes (two
// installed versions do the same). Each error class therefore marks its prototype under a
// `Symbol.for` key, which lives in one registry per realm and so is shared by every copy; a
// subclass's instances carry the marks of all their ancestors through the prototype chain.
const markOf = (name: string): symbol => Symbol.for(`payorch.error.${name}`);
/** Where a class's prototype holds its own brand, read by {@link isPayorchError} to find the mark to look for. */
const OWN_BRAND = Symbol.for('payorch.error');

type ErrorClass<T extends PayorchError = PayorchError> = abstract new (...args: never[]) => T;

/**
 * Brands an error class: sets `name` on its prototype (a minifier renaming the class cannot change
 * it) and the mark that {@link isPayorchError} recognises. Called once in every error class's
 * static block; test/errors/guards.test.ts fails for an exported class that forgets it.
 */
export function brand(errorClass: ErrorClass, name: string): void {
  Object.defineProperty(errorClass.prototype, 'name', { value: name, writable: true, configurable: true });
  Object.defineProperty(errorClass.prototype, OWN_BRAND, { value: name });
  Object.defineProperty(errorClass.prototype, markOf(name), { value: true });
}

/**
 * Whether `value` is an error payorch throws, or, given `errorClass`, an instance of that class or
 * one of its subclasses: from this copy of payorch or another (its ESM and CommonJS builds loaded
 * side by side, or two installed versions), where `instanceof` fails. Works for every error class
 * of every entry point (`SandboxError` of `payorch/sandbox` included).
 *
 * @example
 * ```ts
 * try {
 *   await provider.manual.startDeposit(params);
 * } catch (error) {
 *   if (isPayorchError(error, AuthenticationError)) console.error('check the keys:', error.reason);
 *   else if (isPayorchError(error, APIError)) console.error(error.status, error.error);
 *   else if (isPayorchError(error)) console.error(error.name, error.outcome);
 *   else throw error;
 * }
 * ```
 */
export function isPayorchError(value: unknown): value is PayorchError;
export function isPayorchError<T extends PayorchError>(value: unknown, errorClass: abstract new (...args: never[]) => T): value is T;
export function isPayorchError(value: unknown, errorClass?: ErrorClass): boolean {
  const name = errorClass === undefined ? 'PayorchError' : ownBrand(errorClass);
  return typeof value === 'object' && value !== null && (value as Partial<Record<symbol, unknown>>)[markOf(name)] === true;
}

function ownBrand(errorClass: ErrorClass): string {
  const prototype = errorClass.prototype as Partial<Record<symbol, unknown>>;
  const name = Object.hasOwn(prototype, OWN_BRAND) ? prototype[OWN_BRAND] : undefined;
  // A class of the caller's own, even one extending PayorchError, carries no mark of its own.
  if (typeof name !== 'string') throw new TypeError(`isPayorchError: ${errorClass.name || 'the class given'} is not an error class of payorch`);
  return name;
}
