import type { z } from 'zod/mini';
import type { FailedCall } from '../errors/error.js';
import type { RequestOptions } from '../core/request-options.js';
import type { Answered } from '../core/api-promise.js';
import { APIError, RequestAbortedError, ResponseValidationError, TimeoutError, redactText, secretForms } from '../errors/api-error.js';
import { DEFAULT_CLIENT_MAX_RESPONSE_BYTES } from '../core/client-options.js';
import { DEFAULT_CLIENT_TIMEOUT_MS, checkBaseUrl } from '../core/option-checks.js';
import { callUrl, endpointPath } from './call.js';
import type { Call, TransportConfig } from './call.js';
import type * as CallEngineModule from './call-engine.js';
import type { CallEngine, EngineErrors } from './call-engine.js';
import type { Endpoint } from './endpoint.js';
import { LazyModule } from './lazy-module.js';
import { parseRequest } from './validation.js';
import type { Signing } from './signer.js';

export type { Call, TransportConfig } from './call.js';

/**
 * Sending, retries and reading answers (call-engine.ts), imported on the first call of any
 * client, with the endpoint tables: importing payorch compiles only what a client's construction
 * needs (bench/findings.md).
 */
const ENGINE = /* @__PURE__ */ new LazyModule<typeof CallEngineModule>("its call engine (a chunk of the package, imported on a client's first call)", () => import('./call-engine.js'), 'not_sent');

/** What the engine throws, handed to it: see its constructor. */
const ENGINE_ERRORS: EngineErrors = { APIError, RequestAbortedError, ResponseValidationError, TimeoutError, redactText, secretForms };

/**
 * What a client holds of HTTP: its settings, checked when the client is made, and the call engine
 * that does the rest (signing every attempt, one deadline per call, the money-safe retry policy,
 * clock correction, typed errors), made on the first call and shared by every client made with
 * `withSite()` from this one, so that they share the clock offset it learns.
 */
export class Transport {
  readonly #config: TransportConfig;
  /** The base URL, without a trailing `/`; each call's path is below it. */
  readonly #root: string;
  #engine: CallEngine | undefined;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#root = checkBaseUrl(config.owner, config.baseUrl, config.allowInsecureHttp === true);
  }

  /**
   * Validates `params` against the endpoint's strict schema, then sends them as the body
   * (POST) or the query string (GET). Nothing is sent when validation fails.
   */
  send<P extends z.ZodMiniType, R extends z.ZodMiniType>(endpoint: Endpoint<P, R>, params: unknown, signing: Signing, options?: RequestOptions, secrets?: readonly string[]): Promise<Answered<z.output<R>>> {
    let parsed: unknown;
    try {
      parsed = parseRequest(endpoint.operation, endpoint.params, params);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(error);
    }
    const inQuery = endpoint.method === 'GET';
    const call: Call<R> = {
      operation: endpoint.operation,
      method: endpoint.method,
      path: endpointPath({ api: this.#config.api, endpoint }),
      signing,
      resendable: endpoint.resendable,
      ...(parsed === undefined ? {} : inQuery ? { query: parsed as Record<string, string | number> } : { body: parsed }),
      schema: endpoint.response,
      secrets,
    };
    return this.request(call, options);
  }

  // Not async, nor send(): each layer of promises is work on every call. Once made, the engine is
  // called at once: no extra turn of the event loop per call.
  request<S extends z.ZodMiniType>(call: Call<S>, options?: RequestOptions): Promise<Answered<z.output<S>>> {
    const engine = this.#engine;
    if (engine !== undefined) return engine.request(call, options);
    return this.#loadEngine().then((loaded) => loaded.request(call, options));
  }

  async #loadEngine(): Promise<CallEngine> {
    const { CallEngine } = await ENGINE.load();
    this.#engine ??= new CallEngine(this.#config, this.#root, ENGINE_ERRORS, this.#config.maxResponseBytes ?? DEFAULT_CLIENT_MAX_RESPONSE_BYTES);
    return this.#engine;
  }

  /** The client's `timeout` for one call, in milliseconds: a wait made of several calls cuts each to it. */
  get callTimeout(): number {
    return this.#config.timeout ?? DEFAULT_CLIENT_TIMEOUT_MS;
  }

  /** What a `RequestAbortedError` raised outside a call (between two pages of a read) names. @internal */
  describeCall(endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>, query?: Call<z.ZodMiniType>['query']): FailedCall {
    const url = callUrl(this.#root, { path: endpointPath({ api: this.#config.api, endpoint }), query });
    return { operation: `${this.#config.api}.${endpoint.operation}`, request: { method: endpoint.method, url } };
  }
}
