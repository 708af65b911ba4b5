// SHA-256 on every runtime: node:crypto where the runtime offers it (Node, Bun, Deno, workerd with
// nodejs_compat), the pure-JS hash elsewhere (edge runtimes, browsers). node:crypto is taken on the
// first hash, through the synchronous `process.getBuiltinModule` (Node 20.16+), never imported: the
// main entry then names no Node built-in for a bundler to resolve, and a serverless receiver's cold
// start does not pay for loading it. The one-shot `hash()` (Node 20.12+) rather than a createHash
// chain: it builds no Hash object for the short strings payorch signs (docs/decisions.md).
import type * as NodeCrypto from 'node:crypto';
import { pureSha256Hex } from './pure-sha256.js';

type HashText = (text: string) => string;

function load(): HashText {
  const host = (globalThis as { readonly process?: { readonly getBuiltinModule?: (id: string) => unknown } }).process;
  let crypto: typeof NodeCrypto | undefined;
  try {
    crypto = host?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
  } catch {
    // Next.js's edge runtime puts every function of `process` behind one that throws "not
    // supported in the Edge Runtime": no node:crypto there.
  }
  if (crypto === undefined || (typeof crypto.hash !== 'function' && typeof crypto.createHash !== 'function')) return pureSha256Hex;
  const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;
  return oneShot === undefined ? (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex') : (text) => oneShot('sha256', text, 'hex');
}

let hashText: HashText | undefined;

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export const sha256Hex: HashText = (text) => (hashText ??= load())(text);
