// SHA-256 and HMAC-SHA256 on every runtime: node:crypto where the runtime offers it (Node, Bun,
// Deno, workerd with nodejs_compat), the pure-JS ones elsewhere (edge runtimes, browsers).
// node:crypto is taken on the first hash, through the synchronous `process.getBuiltinModule`
// (Node 20.16+), never imported: the main entry then names no Node built-in for a bundler to
// resolve, and a serverless receiver's cold start does not pay for loading it. The one-shot
// `hash()` (Node 20.12+) rather than a createHash chain: it builds no Hash object for the short
// strings payorch signs (docs/decisions.md). HMAC has no one-shot form: `createHmac`.
import type * as NodeCrypto from 'node:crypto';
import { pureHmacSha256Hex, pureSha256Hex } from './pure-sha256.js';

interface Hashes {
  readonly sha256: (text: string) => string;
  readonly hmac: (key: string, text: string) => string;
}

const PURE: Hashes = { sha256: pureSha256Hex, hmac: pureHmacSha256Hex };

function load(): Hashes {
  const host = (globalThis as { readonly process?: { readonly getBuiltinModule?: (id: string) => unknown } }).process;
  let crypto: typeof NodeCrypto | undefined;
  try {
    crypto = host?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
  } catch {
    // Next.js's edge runtime puts every function of `process` behind one that throws "not
    // supported in the Edge Runtime": no node:crypto there.
  }
  if (crypto === undefined) return PURE;
  const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;
  const chain = typeof crypto.createHash === 'function' ? crypto.createHash : undefined;
  const createHmac = typeof crypto.createHmac === 'function' ? crypto.createHmac : undefined;
  return {
    sha256: oneShot !== undefined ? (text) => oneShot('sha256', text, 'hex') : chain !== undefined ? (text) => chain('sha256').update(text, 'utf8').digest('hex') : pureSha256Hex,
    hmac: createHmac === undefined ? pureHmacSha256Hex : (key, text) => createHmac('sha256', key).update(text, 'utf8').digest('hex'),
  };
}

let hashes: Hashes | undefined;

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export const sha256Hex = (text: string): string => (hashes ??= load()).sha256(text);

/** Lowercase hex HMAC-SHA256 of the UTF-8 encoding of `text`, keyed with the UTF-8 encoding of `key`. */
export const hmacSha256Hex = (key: string, text: string): string => (hashes ??= load()).hmac(key, text);
