// SHA-256 and HMAC-SHA256 on every runtime: node:crypto where the runtime offers it (Node, Bun,
// Deno, workerd with nodejs_compat), the pure-JS ones elsewhere (edge runtimes, browsers).
// node:crypto is taken on the first hash (../node-builtin.ts), never imported: the main entry then
// names no Node built-in for a bundler to resolve, and a serverless receiver's cold start does not
// pay for loading it. The one-shot
// `hash()` (Node 20.12+) rather than a createHash chain: it builds no Hash object for the short
// strings payorch signs (docs/decisions.md). HMAC has no one-shot form: `createHmac`.
import type * as NodeCrypto from 'node:crypto';
import { nodeBuiltin } from '../node-builtin.js';
import { pureHmacSha256Hex, pureSha256Hex } from './pure-sha256.js';

// SHA-256 and HMAC are resolved apart, so that a bundle that never signs a job (verifyCallback
// alone) leaves the pure-JS HMAC out.
function nodeCrypto(): typeof NodeCrypto | undefined {
  return nodeBuiltin('node:crypto') as typeof NodeCrypto | undefined;
}

function loadSha256(): (text: string) => string {
  const crypto = nodeCrypto();
  const oneShot = typeof crypto?.hash === 'function' ? crypto.hash : undefined;
  const chain = typeof crypto?.createHash === 'function' ? crypto.createHash : undefined;
  return oneShot !== undefined ? (text) => oneShot('sha256', text, 'hex') : chain !== undefined ? (text) => chain('sha256').update(text, 'utf8').digest('hex') : pureSha256Hex;
}

function loadHmac(): (key: string, text: string) => string {
  const crypto = nodeCrypto();
  const createHmac = typeof crypto?.createHmac === 'function' ? crypto.createHmac : undefined;
  return createHmac === undefined ? pureHmacSha256Hex : (key, text) => createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

let sha256: ((text: string) => string) | undefined;
let hmac: ((key: string, text: string) => string) | undefined;

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export const sha256Hex = (text: string): string => (sha256 ??= loadSha256())(text);

/** Lowercase hex HMAC-SHA256 of the UTF-8 encoding of `text`, keyed with the UTF-8 encoding of `key`. */
export const hmacSha256Hex = (key: string, text: string): string => (hmac ??= loadHmac())(key, text);
