import ky, { isHTTPError, isTimeoutError } from 'ky';
import type { z } from 'zod';
import { APIError } from '../errors/api-error.js';
import type { FailedRequest } from '../errors/api-error.js';
import { ConnectionError } from '../errors/connection-error.js';
import { PayorchError } from '../errors/payorch-error.js';
import { RequestAbortedError } from '../errors/request-aborted-error.js';
import { ResponseValidationError } from '../errors/response-validation-error.js';
import { TimeoutError } from '../errors/timeout-error.js';
import { requestHash } from './signer.js';
import type { Credentials, Signing } from './signer.js';
import type { Endpoint } from './endpoint.js';
import { parseRequest, toIssues } from './validation.js';

/** Settings shared by every call of a client. */
export interface TransportConfig {
  /** Service address without the API path, for example `https://pay.example.com`. */
  readonly baseUrl: string;
  /** `/api/provider` or `/api/dealer`. */
  readonly apiPath: string;
  readonly credentials: Credentials;
  readonly timeout?: number | undefined;
  readonly maxRetries?: number | undefined;
  readonly fetch?: typeof globalThis.fetch | undefined;
  readonly allowInsecureHttp?: boolean | undefined;
  readonly maxResponseBytes?: number | undefined;
  readonly clockOffsetMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * Per-call settings, the second argument of every client method.
 * A per-call value beats the client's.
 */
export interface RequestOptions {
  /** Stops the call, its retries and its body read. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds for the whole call, retries and body included.
   * @default the client's `timeout` (30000)
   */
  readonly timeout?: number | undefined;
  /**
   * Retries of a read-only call after a connection failure, 408, 429 or 5xx. Payment-creating
   * calls are retried only when the connection was refused, so the service cannot have seen them.
   * @default the client's `maxRetries` (2)
   */
  readonly maxRetries?: number | undefined;
}

/** One call as a resource describes it; the transport does the rest. */
export interface Call<S extends z.ZodType> {
  /** Public name of the call, for error messages (`manual.startDeposit`). */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  /** Path below the API path, starting with `/`. */
  readonly path: string;
  readonly signing: Signing;
  /** True when sending it twice cannot move money twice; only then are ambiguous failures retried. */
  readonly readOnly: boolean;
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly schema: S;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504];
const MAX_RETRY_AFTER_MS = 20_000;
const MAX_BACKOFF_MS = 8_000;

/**
 * The only code that speaks HTTP. It signs every attempt afresh, applies the timeout and the
 * money-safe retry policy, parses JSON and turns every failure into a typed {@link PayorchError}.
 */
export class Transport {
  readonly #config: TransportConfig;
  readonly #root: string;
  readonly #ky: typeof ky;
  readonly #now: () => number;
  /** Server time minus local time, learned from a "Request timestamp expired" answer. */
  #clockOffsetMs: number;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#root = checkBaseUrl(config.baseUrl, config.allowInsecureHttp === true) + config.apiPath;
    this.#now = config.now ?? Date.now;
    this.#clockOffsetMs = config.clockOffsetMs ?? 0;
    this.#ky = ky.create({
      timeout: false, // one deadline of our own covers retries and the body read
      throwHttpErrors: true,
      // A redirect would re-send a payment body to wherever it points: never follow one.
      redirect: 'manual',
      // Read at call time, not now: msw and other test doubles patch globalThis.fetch later.
      fetch: (input, init) => (config.fetch ?? globalThis.fetch)(input, init),
    });
  }

  /** Current estimate of server time minus local time, in milliseconds. */
  get clockOffsetMs(): number {
    return this.#clockOffsetMs;
  }

  /**
   * Validates `params` against the endpoint's strict schema, then sends them as the body
   * (POST) or the query string (GET). Nothing is sent when validation fails.
   */
  async send<P extends z.ZodType, R extends z.ZodType>(
    endpoint: Endpoint<P, R>,
    params: unknown,
    signing: Signing,
    options?: RequestOptions,
  ): Promise<z.output<R>> {
    const parsed: unknown = parseRequest(endpoint.operation, endpoint.params, params);
    const inQuery = endpoint.method === 'GET';
    return this.request(
      {
        operation: endpoint.operation,
        method: endpoint.method,
        path: endpoint.path,
        signing,
        readOnly: endpoint.readOnly,
        ...(parsed === undefined ? {} : inQuery ? { query: parsed as Record<string, string | number> } : { body: parsed }),
        schema: endpoint.response,
      },
      options,
    );
  }

  async request<S extends z.ZodType>(call: Call<S>, options: RequestOptions = {}): Promise<z.output<S>> {
    const timeout = options.timeout ?? this.#config.timeout ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? this.#config.maxRetries ?? DEFAULT_MAX_RETRIES;
    const deadline = AbortSignal.timeout(timeout);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const url = this.#url(call);
    const failed: FailedRequest = { method: call.method, url };
    const sentHashes: string[] = [];
    let skewRetried = false;

    const fail = (error: unknown): never => {
      if (error instanceof PayorchError) throw error;
      if (options.signal?.aborted === true) throw new RequestAbortedError(options.signal.reason);
      if (deadline.aborted || isTimeoutError(error)) throw new TimeoutError(timeout);
      const refused = isConnectionRefused(error);
      throw new ConnectionError(`${refused ? 'Connection refused' : 'Connection failed'}: ${call.method} ${url}`, { cause: error, refused });
    };

    if (options.signal?.aborted === true) fail(options.signal.reason);

    let response: Response;
    try {
      response = await this.#ky(url, {
        method: call.method,
        headers: this.#headers(call),
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal,
        retry: {
          // One spare attempt for the clock-skew retry, which ky counts against the same limit.
          limit: maxRetries + 1,
          methods: ['get', 'post'],
          statusCodes: RETRY_STATUS_CODES,
          afterStatusCodes: [429, 503],
          maxRetryAfter: MAX_RETRY_AFTER_MS,
          backoffLimit: MAX_BACKOFF_MS,
          jitter: true,
          shouldRetry: ({ error, retryCount }) => {
            if (retryCount > maxRetries || signal.aborted) return false;
            if (isConnectionRefused(error)) return true;
            // Past this point the service may have received the request.
            if (!call.readOnly) return false;
            if (isHTTPError(error)) return undefined; // ky's status list and Retry-After handling
            return !isTimeoutError(error) && error instanceof TypeError;
          },
        },
        hooks: {
          beforeRequest: [
            (request) => {
              const timestamp = String(Math.floor((this.#now() + this.#clockOffsetMs) / 1000));
              request.headers.set('X-Timestamp', timestamp);
              const hash = requestHash(this.#config.credentials, call.signing, timestamp);
              sentHashes.push(hash);
              request.headers.set('X-Hash', hash);
            },
          ],
          afterResponse: [
            async (_request, _options, answer) => {
              // The service refused the timestamp, so it did nothing: correcting the clock and
              // sending again once is safe even for payments.
              if (answer.status !== 401 || skewRetried) return undefined;
              const serverTime = Date.parse(answer.headers.get('date') ?? '');
              if (Number.isNaN(serverTime) || !/timestamp expired/i.test(await answer.text())) return undefined;
              const offset = serverTime - this.#now();
              if (Math.abs(offset - this.#clockOffsetMs) < 2_000) return undefined;
              this.#clockOffsetMs = offset;
              skewRetried = true;
              return ky.retry({ delay: 0, code: 'CLOCK_SKEW' });
            },
          ],
        },
      });
    } catch (error) {
      if (!isHTTPError(error)) return fail(error);
      const body = await this.#readBody(error.response, failed).catch(fail);
      throw APIError.generate({
        status: error.response.status,
        headers: headerRecord(error.response.headers),
        body: body.parsed,
        request: failed,
        redact: this.#secrets(call, sentHashes),
      });
    }

    const body = await this.#readBody(response, failed).catch(fail);
    const headers = headerRecord(response.headers);
    if (!body.isJson || isFailureFlag(body.parsed)) {
      throw APIError.generate({ status: response.status, headers, body: body.parsed, request: failed, redact: this.#secrets(call, sentHashes) });
    }
    const result = call.schema.safeParse(body.parsed);
    if (!result.success) {
      throw new ResponseValidationError(call.operation, { status: response.status, issues: toIssues(result.error), body: body.parsed, rawBody: body.text });
    }
    return result.data;
  }

  /** What must not reach an error message even when the service echoes it back in its text. */
  #secrets(call: Call<z.ZodType>, sentHashes: readonly string[]): string[] {
    const secrets = [this.#config.credentials.secretKey, ...sentHashes];
    if (call.signing.hash === 'key') secrets.push(call.signing.key);
    if (call.signing.hash === 'credential') secrets.push(call.signing.credentialKey);
    // Card payments carry the site credential key in the body instead (spec 5.1 rule 2).
    const bodyKey: unknown = typeof call.body === 'object' && call.body !== null ? (call.body as { credential_key?: unknown }).credential_key : undefined;
    if (typeof bodyKey === 'string') secrets.push(bodyKey);
    return secrets;
  }

  #url(call: Call<z.ZodType>): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return `${this.#root}${call.path}${search}`;
  }

  #headers(call: Call<z.ZodType>): Record<string, string> {
    const headers: Record<string, string> = {
      ...call.headers,
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'X-Api-Key': this.#config.credentials.apiKey,
    };
    if (call.signing.hash === 'key') headers['X-Key'] = call.signing.key;
    if (call.signing.hash === 'credential') headers['X-Credential-Key'] = call.signing.credentialKey;
    return headers;
  }

  async #readBody(response: Response, failed: FailedRequest): Promise<{ text: string; parsed: unknown; isJson: boolean }> {
    const limit = this.#config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const text = await readCapped(response, limit, failed);
    try {
      return { text, parsed: JSON.parse(text) as unknown, isJson: true };
    } catch {
      return { text, parsed: text, isJson: false };
    }
  }
}

async function readCapped(response: Response, limit: number, failed: FailedRequest): Promise<string> {
  const tooLarge = () =>
    new APIError(`The answer is larger than maxResponseBytes (${limit} bytes) (HTTP ${response.status}, ${failed.method} ${new URL(failed.url).pathname})`, {
      status: response.status,
      headers: headerRecord(response.headers),
      body: undefined,
      request: failed,
    });
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function isFailureFlag(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
}

function headerRecord(headers: Headers): Record<string, string> {
  return Object.fromEntries(headers);
}

/** True only when the connection was refused: then the service cannot have received the request. */
export function isConnectionRefused(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ConnectionRefused') return true;
    if (/ECONNREFUSED|connection refused/i.test(current.message)) return true;
  }
  return false;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Signatures cover no part of the body, so over plain HTTP anyone on the path could change an
 * amount or an IBAN: only loopback may use it without an explicit opt-in.
 */
function checkBaseUrl(baseUrl: string, allowInsecureHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new PayorchError(`baseUrl is not a valid URL: ${baseUrl}`, { cause });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new PayorchError(`baseUrl must use https: ${baseUrl}`);
  }
  if (url.protocol === 'http:' && !allowInsecureHttp && !LOOPBACK.test(url.hostname)) {
    throw new PayorchError(`baseUrl must use https unless the host is loopback or allowInsecureHttp is set: ${baseUrl}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new PayorchError(`baseUrl must not have a query or fragment: ${baseUrl}`);
  }
  return url.href.replace(/\/+$/, '');
}
