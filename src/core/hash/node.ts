// SHA-256 where node:crypto exists (Node, Bun, Deno: the `node` condition of package.json
// `imports`, "#hash"). The one-shot `hash()` (Node 20.12+) rather than a createHash chain:
// it is the faster of the two on the short strings payorch signs (figures in docs/decisions.md).
import * as crypto from 'node:crypto';

const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export const sha256Hex: (text: string) => string =
  oneShot === undefined ? (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex') : (text) => oneShot('sha256', text, 'hex');
