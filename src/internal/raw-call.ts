import type * as z from 'zod/mini';
import { RequestValidationError } from '../errors/error.js';
import type { ValidationIssue } from '../errors/error.js';
import type { RawRequest } from '../core/raw-request.js';
import type { Api } from '../core/api.js';
import { apiPath } from './call.js';
import type { Call } from './call.js';
import type { Signing } from './signer.js';

// RFC 3986 path characters (unreserved, sub-delims, ':' '@') and percent escapes, in segments
// that each start with '/'.
const PATH = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+)+\/?$/;
// RFC 9110 token: what fetch accepts as a header name.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string') return 'must be a string';
  if (!path.startsWith('/')) return 'must start with / (a path below the API, not a URL)';
  if (path.includes('?') || path.includes('#')) return 'must not hold a query or fragment: pass query instead';
  if (!PATH.test(path)) return 'must be segments of URL path characters, with no empty segment (//), backslash, space or control character';
  for (const segment of path.split('/')) {
    // A percent-encoded dot or slash is decoded by some servers and proxies: treat it as decoded.
    const decoded = segment.replace(/%2e/gi, '.').replace(/%2f|%5c/gi, '/');
    if (decoded === '.' || decoded === '..') return 'must not have a . or .. segment, percent-encoded or not: it would leave the API';
    if (decoded.includes('/')) return 'must not hold a percent-encoded / or \\';
  }
  return undefined;
}

/**
 * Checks a raw request before anything is sent: the method, a path that stays below the API,
 * header names that are HTTP tokens, and no body on a GET. A bad header name would otherwise
 * surface from fetch as a TypeError that looks like a network failure.
 *
 * @throws {RequestValidationError} naming each problem
 */
export function checkRawRequest(params: RawRequest): void {
  if (typeof params !== 'object' || (params as unknown) === null) {
    throw new RequestValidationError('request', [{ field: '(params)', rule: 'invalid_argument', message: 'must be an object: { method, path, body?, query?, headers? }' }]);
  }
  const issues: ValidationIssue[] = [];
  const given = params as Partial<Record<keyof RawRequest, unknown>>;
  if (given.method !== 'GET' && given.method !== 'POST') issues.push({ field: 'method', rule: 'invalid_value', message: 'must be GET or POST' });
  const problem = pathProblem(given.path);
  if (problem !== undefined) issues.push({ field: 'path', rule: 'invalid_path', message: problem });
  for (const name of Object.keys(params.headers ?? {})) {
    if (!TOKEN.test(name)) issues.push({ field: `headers.${name}`, rule: 'header_name', message: 'is not a valid HTTP header name (letters, digits and !#$%&\'*+-.^_`|~ only)' });
  }
  if (params.method === 'GET' && params.body !== undefined) {
    // fetch itself refuses it, and its TypeError would look like a network failure.
    issues.push({ field: 'body', rule: 'not_allowed', message: 'a GET request has no body: use query' });
  } else if (params.body !== undefined) {
    // Serialised at sending: its failure there would read as a failed connection that may have moved money.
    const problem = jsonProblem(params.body);
    if (problem !== undefined) issues.push({ field: 'body', rule: 'invalid_value', message: problem });
  }
  for (const [name, value] of Object.entries(given.query ?? {})) {
    const type = typeof value;
    if (value !== undefined && type !== 'string' && !(type === 'number' && Number.isFinite(value))) issues.push({ field: `query.${name}`, rule: 'invalid_value', message: `must be a string or a finite number; got ${value === null ? 'null' : type}` });
  }
  if (issues.length > 0) throw new RequestValidationError('request', issues);
}

/** Why `body` cannot be sent as JSON, if it cannot: a cycle, a BigInt, a toJSON that throws, a function. */
function jsonProblem(body: unknown): string | undefined {
  try {
    // JSON.stringify gives undefined, whatever its type says, for a function or a symbol.
    const text = JSON.stringify(body) as string | undefined;
    return text === undefined ? `cannot be sent as JSON (a ${typeof body})` : undefined;
  } catch (error) {
    return `cannot be sent as JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * The transport call of a raw request {@link checkRawRequest} passed: its answer is parsed JSON,
 * unchecked (`schema`: `z.unknown()`, from the endpoint tables loaded on the first call, so that this
 * module brings no zod). `secrets` are values its body may carry (a site credential key, spec 5.1 rule 2).
 */
export function rawCall(api: Api, params: RawRequest, signing: Signing, schema: z.ZodMiniUnknown, secrets?: readonly string[]): Call<z.ZodMiniUnknown> {
  return {
    operation: `request ${params.path}`,
    method: params.method,
    // A raw request's path is below its API's prefix, as an endpoint's `path` is.
    path: `${apiPath(api)}${params.path}`,
    signing,
    resendable: params.resendable ?? false,
    body: params.body,
    ...(params.query === undefined ? {} : { query: params.query }),
    ...(params.headers === undefined ? {} : { headers: params.headers }),
    schema,
    ...(secrets === undefined ? {} : { secrets }),
  };
}
