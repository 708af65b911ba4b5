import { createHash } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import type { JsonBodyType } from 'msw';
import { assertMswListening, server } from '../mocks/server.js';

/** A request exactly as it reached the wire. */
export interface WireRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  /** The body text, '' when there was none. */
  readonly body: string;
}

export const BASE_URL = 'https://api.payorch.test';
export const PROVIDER = { apiKey: 'prov_api_4f9a1c', secretKey: 'prov_secret_Zt8qL2mN', credentialKey: 'site_cred_3b1e9d' } as const;
export const DEALER = { apiKey: 'dealer_api_X1', secretKey: 'dealer_sëcret_ğüşiöç' } as const;
/** The customer fields of a provider payment request, and a valid Turkish IBAN: the one copy every helper shares. */
export const CUSTOMER = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' } as const;
export const IBAN = 'TR330006100519786457841326';

/**
 * Answers one method + URL with `answer` and records every request that reached it.
 * `answer` may be a function of the attempt number for retry tests.
 */
export function capture(
  method: 'get' | 'post',
  url: string,
  answer: JsonBodyType | ((attempt: number, request: WireRequest) => Response | JsonBodyType),
): WireRequest[] {
  assertMswListening();
  const seen: WireRequest[] = [];
  server.use(
    http[method](url, async ({ request }) => {
      const wire: WireRequest = { method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text() };
      seen.push(wire);
      const result: Response | JsonBodyType = typeof answer === 'function' ? answer(seen.length, wire) : answer;
      return result instanceof Response ? result : HttpResponse.json(result);
    }),
  );
  return seen;
}

/** SHA-256 hex of the plain concatenation, computed here independently of src/internal/signer.ts. */
export function sha256(...parts: string[]): string {
  return createHash('sha256').update(parts.join(''), 'utf8').digest('hex');
}

/**
 * Asserts the spec 5.1 headers of a signed request and recomputes its hash from X-Timestamp.
 * `between` is the value hashed between the secret and the timestamp (X-Key or credential key).
 */
export function expectSigned(
  request: WireRequest,
  credentials: { apiKey: string; secretKey: string },
  between = '',
): { timestamp: string } {
  const timestamp = request.headers.get('x-timestamp') ?? '';
  if (!/^\d{10}$/.test(timestamp)) throw new Error(`X-Timestamp is not Unix seconds: ${timestamp}`);
  if (Math.abs(Number(timestamp) - Date.now() / 1000) > 5) throw new Error(`X-Timestamp is not now: ${timestamp}`);
  if (request.headers.get('x-api-key') !== credentials.apiKey) throw new Error('X-Api-Key is wrong');
  if (request.headers.get('content-type') !== 'application/json') throw new Error('Content-Type is not application/json');
  const expected = sha256(credentials.apiKey, credentials.secretKey, between, timestamp);
  if (request.headers.get('x-hash') !== expected) throw new Error('X-Hash does not match the recomputed hash');
  return { timestamp };
}
