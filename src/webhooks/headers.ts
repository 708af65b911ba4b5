import { CallbackVerificationError } from '../errors/error.js';

/**
 * Request headers as frameworks hand them over: Node's `IncomingMessage.headers` (arrays
 * included) or any plain object, in any letter case, or a Fetch API `Headers`.
 */
export type CallbackHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The three headers every callback carries (spec 6.1). */
export interface SignatureHeaders {
  readonly apiKey: string;
  readonly timestamp: string;
  readonly hash: string;
}

const NAMES = [
  ['apiKey', 'X-Api-Key'],
  ['timestamp', 'X-Timestamp'],
  ['hash', 'X-Hash'],
] as const;

interface HeaderLookup {
  get(name: string): unknown;
}

function isHeaderLookup(value: object): value is HeaderLookup {
  return typeof (value as Partial<Record<'get', unknown>>).get === 'function';
}

const LOWER_NAMES: readonly string[] = NAMES.map(([, name]) => name.toLowerCase());
// Lower-casing keeps the length of any name that becomes one of these, so a key of another
// length is skipped without lower-casing it (most headers of a request).
const LENGTHS: ReadonlySet<number> = new Set(LOWER_NAMES.map((name) => name.length));

// Every value given for each of NAMES: a repeated header must be seen as repeated, never reduced
// to one. A plain object is scanned once for all three names, each name lower-cased once.
function valuesOfNames(headers: object): unknown[][] {
  if (isHeaderLookup(headers)) {
    return NAMES.map(([, name]) => {
      const value = headers.get(name);
      return value === null || value === undefined ? [] : [value];
    });
  }
  const found: unknown[][] = LOWER_NAMES.map(() => []);
  const record = headers as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(record)) {
    if (!LENGTHS.has(key.length)) continue;
    const values = found[LOWER_NAMES.indexOf(key.toLowerCase())];
    const value = record[key];
    if (values === undefined || value === undefined) continue;
    if (Array.isArray(value)) values.push(...(value as unknown[]));
    else values.push(value);
  }
  return found;
}

function single(name: string, values: readonly unknown[]): string {
  const [value] = values;
  if (values.length > 1) throw new CallbackVerificationError('repeated_header', `${name} is given ${values.length} times; exactly one is required`);
  if (typeof value !== 'string') throw new CallbackVerificationError('empty_header', `${name} is not text`);
  if (value === '') throw new CallbackVerificationError('empty_header', `${name} is empty`);
  return value;
}

/**
 * Reads X-Api-Key, X-Timestamp and X-Hash. Returns `undefined` when none of them is present
 * (the dealer card callback may be verified from its body alone, spec 6.5).
 *
 * @throws {CallbackVerificationError} `missing_header` when only some are present,
 * `repeated_header` when one is given more than once, `empty_header` when one is empty or not text
 */
export function readSignatureHeaders(headers: unknown): SignatureHeaders | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers !== 'object') throw new CallbackVerificationError('missing_header', 'the headers are not an object');
  const found = valuesOfNames(headers);
  const [apiKey = [], timestamp = [], hash = []] = found;
  if (apiKey.length === 0 && timestamp.length === 0 && hash.length === 0) return undefined;
  // Listed only when one is missing: every delivery reads the headers.
  if (apiKey.length === 0 || timestamp.length === 0 || hash.length === 0) {
    const missing = NAMES.filter((_, index) => found[index]?.length === 0).map(([, name]) => name);
    throw new CallbackVerificationError('missing_header', `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`);
  }
  return { apiKey: single('X-Api-Key', apiKey), timestamp: single('X-Timestamp', timestamp), hash: single('X-Hash', hash) };
}

/**
 * The Content-Type header, or `undefined` when it is absent, not text or given more than once (a
 * body is then read as it would be without one).
 */
export function readContentType(headers: unknown): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  if (isHeaderLookup(headers)) {
    const value = headers.get('content-type');
    return typeof value === 'string' ? value : undefined;
  }
  let found: unknown;
  let count = 0;
  const record = headers as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(record)) {
    if (key.length !== 12 || key.toLowerCase() !== 'content-type') continue;
    const value = record[key];
    const values: readonly unknown[] = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
    count += values.length;
    found = values[0];
  }
  return count === 1 && typeof found === 'string' ? found : undefined;
}
