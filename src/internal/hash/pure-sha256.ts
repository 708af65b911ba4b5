// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain JavaScript, so that the main entry
// needs no Node built-in and `verifyCallback` and a job's seal stay synchronous on runtimes whose
// only hash is WebCrypto's async digest. Where node:crypto exists, hash/sha256.ts hashes with it
// instead; the choice and its numbers are in docs/decisions.md. Pinned by the FIPS and RFC 4231
// examples, the signing vectors and property tests against node:crypto (test/internal/hash.test.ts).

// FIPS 180-4, 4.2.2 and 5.3.3: the round constants are the first 32 bits of the fractional parts
// of the cube roots of the first 64 primes, the initial hash those of the square roots of the first
// 8. Computed rather than written out as a table: doubles hold those bits exactly (the FIPS
// examples in test/internal/hash.test.ts fail for any wrong one). Computed on the first hash, not
// at load: where node:crypto hashes, this is only the fallback, and the tables cost more than all
// the rest of payorch/webhooks does when it loads.
interface Tables {
  readonly K: Int32Array;
  readonly INITIAL: Int32Array;
  readonly HEX: readonly string[];
}
let tables: Tables | undefined;

function computeTables(): Tables {
  const primes: number[] = [];
  for (let candidate = 2; primes.length < 64; candidate++) if (primes.every((prime) => candidate % prime !== 0)) primes.push(candidate);
  const fraction32 = (root: number): number => (root - Math.floor(root)) * 0x100000000;
  return {
    K: Int32Array.from(primes, (prime) => fraction32(Math.cbrt(prime))),
    INITIAL: Int32Array.from(primes.slice(0, 8), (prime) => fraction32(Math.sqrt(prime))),
    HEX: Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0')),
  };
}

// Indexes below are in range by construction; `as number` says so without a run-time check.
// Scratch space reused by every call: hashing is synchronous, so no two calls share it at once.
const W = new Int32Array(64);
const H = new Int32Array(8);
let scratch = new Uint8Array(256);
let scratchView = new DataView(scratch.buffer);
// Made by the first pure hash: where node:crypto hashes, no TextEncoder is built at import.
let encoder: TextEncoder | undefined;

function compress(K: Int32Array, view: DataView, offset: number): void {
  for (let i = 0; i < 16; i++) W[i] = view.getInt32(offset + i * 4);
  for (let i = 16; i < 64; i++) {
    const w15 = (W[i - 15] as number);
    const w2 = (W[i - 2] as number);
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  let a = (H[0] as number);
  let b = (H[1] as number);
  let c = (H[2] as number);
  let d = (H[3] as number);
  let e = (H[4] as number);
  let f = (H[5] as number);
  let g = (H[6] as number);
  let h = (H[7] as number);
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + (K[i] as number) + (W[i] as number)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = ((H[0] as number) + a) | 0;
  H[1] = ((H[1] as number) + b) | 0;
  H[2] = ((H[2] as number) + c) | 0;
  H[3] = ((H[3] as number) + d) | 0;
  H[4] = ((H[4] as number) + e) | 0;
  H[5] = ((H[5] as number) + f) | 0;
  H[6] = ((H[6] as number) + g) | 0;
  H[7] = ((H[7] as number) + h) | 0;
}

/** Scratch space of at least `room` bytes: the shared one, grown when small texts need more. */
function scratchOf(room: number): { readonly buffer: Uint8Array; readonly view: DataView } {
  if (scratch.length >= room) return { buffer: scratch, view: scratchView };
  const buffer = new Uint8Array(room);
  const view = new DataView(buffer.buffer);
  // Keep only a small scratch buffer: the hashed strings are keys, short codes and jobs, not bodies.
  if (room <= 4096) [scratch, scratchView] = [buffer, view];
  return { buffer, view };
}

/** Hashes the first `length` bytes of `buffer` into H, padding them in place (the buffer has 72 bytes of room past them). */
function hashBytes(K: Int32Array, INITIAL: Int32Array, buffer: Uint8Array, view: DataView, length: number): void {
  // Padding: 0x80, zeros to 56 mod 64, then the bit length as a 64-bit big-endian number.
  const padded = (((length + 8) >>> 6) + 1) << 6;
  buffer.fill(0, length, padded);
  buffer[length] = 0x80;
  const bits = length * 8;
  const high = Math.floor(bits / 0x100000000);
  buffer[padded - 8] = high >>> 24;
  buffer[padded - 7] = high >>> 16;
  buffer[padded - 6] = high >>> 8;
  buffer[padded - 5] = high;
  buffer[padded - 4] = bits >>> 24;
  buffer[padded - 3] = bits >>> 16;
  buffer[padded - 2] = bits >>> 8;
  buffer[padded - 1] = bits;
  H.set(INITIAL);
  for (let offset = 0; offset < padded; offset += 64) compress(K, view, offset);
}

function hexOfH(HEX: readonly string[]): string {
  let hex = '';
  for (let i = 0; i < 8; i++) {
    const word = (H[i] as number);
    hex += (HEX[word >>> 24] as string) + (HEX[(word >>> 16) & 0xff] as string) + (HEX[(word >>> 8) & 0xff] as string) + (HEX[word & 0xff] as string);
  }
  return hex;
}

/** Writes H, big-endian, at `offset` of `view`. */
function writeH(view: DataView, offset: number): void {
  for (let i = 0; i < 8; i++) view.setInt32(offset + i * 4, H[i] as number);
}

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export function pureSha256Hex(text: string): string {
  const { K, INITIAL, HEX } = (tables ??= computeTables());
  // UTF-8 takes at most 3 bytes per UTF-16 code unit; 72 more leave room for the padding.
  const { buffer, view } = scratchOf(text.length * 3 + 72);
  hashBytes(K, INITIAL, buffer, view, (encoder ??= new TextEncoder()).encodeInto(text, buffer).written);
  return hexOfH(HEX);
}

// RFC 2104: HMAC(K, m) = H((K' ^ opad) || H((K' ^ ipad) || m)), K' the key padded to the block.
const BLOCK = 64;

/**
 * Lowercase hex HMAC-SHA256 (RFC 2104) of the UTF-8 encoding of `text`, keyed with the UTF-8
 * encoding of `key`.
 */
export function pureHmacSha256Hex(key: string, text: string): string {
  const { K, INITIAL, HEX } = (tables ??= computeTables());
  // A key longer than the block is hashed first (RFC 2104, 2).
  let keyBytes = (encoder ??= new TextEncoder()).encode(key);
  if (keyBytes.length > BLOCK) {
    const { buffer, view } = scratchOf(keyBytes.length + 72);
    buffer.set(keyBytes);
    hashBytes(K, INITIAL, buffer, view, keyBytes.length);
    keyBytes = new Uint8Array(32);
    writeH(new DataView(keyBytes.buffer), 0);
  }
  const { buffer, view } = scratchOf(BLOCK + text.length * 3 + 72);
  for (let i = 0; i < BLOCK; i++) buffer[i] = (keyBytes[i] ?? 0) ^ 0x36;
  hashBytes(K, INITIAL, buffer, view, BLOCK + (encoder ??= new TextEncoder()).encodeInto(text, buffer.subarray(BLOCK)).written);
  for (let i = 0; i < BLOCK; i++) buffer[i] = (keyBytes[i] ?? 0) ^ 0x5c;
  writeH(view, BLOCK);
  hashBytes(K, INITIAL, buffer, view, BLOCK + 32);
  return hexOfH(HEX);
}
