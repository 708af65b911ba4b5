import { CallbackVerificationError } from '../errors/callback-verification-error.js';

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

// Every value given for `name`: a repeated header must be seen as repeated, never reduced to one.
function valuesOf(headers: object, name: string): unknown[] {
  if (isHeaderLookup(headers)) {
    const value = headers.get(name);
    return value === null || value === undefined ? [] : [value];
  }
  const lower = name.toLowerCase();
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    if (Array.isArray(value)) values.push(...(value as unknown[]));
    else values.push(value);
  }
  return values;
}

function single(name: string, values: readonly unknown[]): string {
  const [value] = values;
  if (values.length > 1) throw new CallbackVerificationError('missing_header', `${name} is given ${values.length} times; exactly one is required`);
  if (typeof value !== 'string') throw new CallbackVerificationError('missing_header', `${name} is not text`);
  if (value === '') throw new CallbackVerificationError('missing_header', `${name} is empty`);
  return value;
}

/**
 * Reads X-Api-Key, X-Timestamp and X-Hash. Returns `undefined` when none of them is present
 * (the dealer card callback may be verified from its body alone, spec 6.5).
 *
 * @throws {CallbackVerificationError} `missing_header` when only some are present, or one is
 * empty, repeated or not text
 */
export function readSignatureHeaders(headers: unknown): SignatureHeaders | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers !== 'object') throw new CallbackVerificationError('missing_header', 'the headers are not an object');
  const found = NAMES.map(([, name]) => valuesOf(headers, name));
  if (found.every((values) => values.length === 0)) return undefined;
  const [apiKey = [], timestamp = [], hash = []] = found;
  const missing = NAMES.filter((_, index) => found[index]?.length === 0).map(([, name]) => name);
  if (missing.length > 0) throw new CallbackVerificationError('missing_header', `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`);
  return { apiKey: single('X-Api-Key', apiKey), timestamp: single('X-Timestamp', timestamp), hash: single('X-Hash', hash) };
}
