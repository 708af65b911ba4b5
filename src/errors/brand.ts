// The brand that recognises payorch's errors across copies of the package, apart from the classes
// (error.ts) so that code which only brands a class of its own entry (api-error.ts, the sandbox's
// SandboxError) does not import the classes with it.

// A prototype chain does not cross copies of payorch: an app whose code `import`s it while a
// dependency `require`s it loads the ESM and the CommonJS build side by side, each with its own
// classes (two installed versions, or a loader's second copy, do the same). Each error class
// therefore marks its prototype under a `Symbol.for` key, which lives in one registry per realm and
// so is shared by every copy; a subclass's instances carry the marks of all their ancestors through
// the prototype chain. `isPayorchError` and the classes' `instanceof` read them. The marks name no
// version: a class's name and fields are part of what a major version keeps.
export const markOf = (name: string): symbol => Symbol.for(`payorch.error.${name}`);
/** Where a class's prototype holds its own brand, read by {@link isPayorchError} to find the mark to look for. */
export const OWN_BRAND = Symbol.for('payorch.error');

export type ErrorClass<T extends Error = Error> = abstract new (...args: never[]) => T;

/** An error class of payorch: its brand is the name it is exported under, a static field of its own. */
type BrandedClass = ErrorClass & { readonly brandName?: string };

/**
 * Brands `errorClass` and every ancestor that has a brand of its own, once, on first need (its
 * first construction, or {@link isPayorchError} asked about it): it sets `name` on the prototype
 * and on the class, and the marks that {@link isPayorchError} recognises. Not at definition: a
 * top-level call (a static block) keeps every error class in every bundle that imports the file,
 * used or not, and a verification-only bundle then carried them all (bench/findings.md).
 * test/errors/guards.test.ts fails for an exported class without a `brandName`.
 */
export function brandChain(errorClass: ErrorClass): void {
  for (let current = errorClass as BrandedClass; typeof current === 'function'; current = Object.getPrototypeOf(current) as BrandedClass) {
    // A class of the caller's own, even one extending a payorch class, has no brand of its own.
    if (!Object.hasOwn(current, 'brandName') || current.brandName === undefined) continue;
    // Its ancestors were branded in the same pass.
    if (Object.hasOwn(current.prototype as object, OWN_BRAND)) return;
    brand(current, current.brandName);
  }
}

function brand(errorClass: ErrorClass, name: string): void {
  Object.defineProperty(errorClass.prototype, 'name', { value: name, writable: true, configurable: true });
  // The bundler renames a class that refers to itself (`class _APIError`), and Node prints an
  // uncaught error under its constructor's name when that differs from `error.name`.
  Object.defineProperty(errorClass, 'name', { value: name, configurable: true });
  Object.defineProperty(errorClass.prototype, OWN_BRAND, { value: name });
  Object.defineProperty(errorClass.prototype, markOf(name), { value: true });
}
