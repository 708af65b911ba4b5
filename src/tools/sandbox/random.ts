/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same keys, ids and
 * history on every run and every machine. Not for secrets: the sandbox has none worth keeping.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: string | number) {
    this.#state = typeof seed === 'number' ? seed >>> 0 : fnv1a(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly [T, ...T[]]): T {
    return items[this.int(0, items.length - 1)] ?? items[0];
  }

  /** `length` characters of [A-Za-z0-9]. */
  alphanumeric(length: number): string {
    return this.#draw(ALPHANUMERIC, length);
  }

  /** `length` characters of [0-9]. */
  digits(length: number): string {
    return this.#draw('0123456789', length);
  }

  /** `length` characters of [0-9a-f]. */
  hex(length: number): string {
    return this.#draw('0123456789abcdef', length);
  }

  #draw(alphabet: string, length: number): string {
    let text = '';
    for (let index = 0; index < length; index++) text += alphabet.charAt(this.int(0, alphabet.length - 1));
    return text;
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** FNV-1a over UTF-16 code units: spreads a string seed over 32 bits. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
