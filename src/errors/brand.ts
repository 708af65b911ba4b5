/** The name of every error class that has a type guard (src/errors/guards.ts). */
export type ErrorBrand =
  | 'PayorchError'
  | 'APIError'
  | 'AuthenticationError'
  | 'PermissionDeniedError'
  | 'UnprocessableEntityError'
  | 'RequestValidationError'
  | 'ResponseValidationError'
  | 'ConnectionError'
  | 'TimeoutError'
  | 'RequestAbortedError'
  | 'CallbackVerificationError'
  | 'TrackingCodeError'
  | 'SandboxError';

/**
 * The mark an error class puts on its prototype. `Symbol.for` keys live in one registry per
 * realm, so the ESM and the CommonJS copy of payorch (or two installed versions) share them, and
 * a subclass's instances carry every mark of its ancestors through the prototype chain.
 */
export const brandKey = (brand: ErrorBrand): symbol => Symbol.for(`payorch.error.${brand}`);

/** Marks a class's instances as `brand`. Called once in each error class's static block. */
export function brand(errorClass: abstract new (...args: never[]) => Error, name: ErrorBrand): void {
  Object.defineProperty(errorClass.prototype, brandKey(name), { value: true });
}

/** Whether `value` carries the mark of the class `name`, from any copy of payorch. */
export function isBranded(value: unknown, name: ErrorBrand): boolean {
  return typeof value === 'object' && value !== null && (value as Partial<Record<symbol, unknown>>)[brandKey(name)] === true;
}
