/**
 * A Node built-in (`node:crypto`, `node:module`, …) where the runtime offers one (Node, Bun, Deno,
 * workerd with nodejs_compat), else `undefined`: taken through the synchronous
 * `process.getBuiltinModule` (Node 20.16+) on first need, never imported, so that an entry names no
 * built-in for a bundler to resolve and an import does not pay for loading one.
 */
export function nodeBuiltin(id: string): unknown {
  const host = (globalThis as { readonly process?: { readonly getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return host?.getBuiltinModule?.(id);
  } catch {
    // Next.js's edge runtime puts every function of `process` behind one that throws "not
    // supported in the Edge Runtime".
    return undefined;
  }
}
