import type { z } from 'zod/mini';
import type { Endpoint } from './endpoint.js';
import type { Signing } from './signer.js';
import type { RequestOptions } from '../core/request-options.js';
import type { Transport } from './transport.js';
import type { Answered } from '../core/api-promise.js';
import { APIPromise } from '../core/api-promise.js';
import { PayorchError, RequestValidationError } from '../errors/error.js';
import type * as CallsModule from './calls.js';

/** The endpoint rows and schemas of every call, loaded on a client's first call (calls.ts). @internal */
export type Calls = typeof CallsModule;

/** Picks a call's endpoint row out of the table once it is loaded. @internal */
export type EndpointRef<P extends z.ZodMiniType, R extends z.ZodMiniType> = (calls: Calls) => Endpoint<P, R>;

let callsLoaded: Calls | undefined;
let callsLoading: Promise<Calls> | undefined;

/**
 * The endpoint tables, imported on the first call of any client rather than with payorch: they
 * and zod were most of what importing payorch compiled (bench/findings.md). A failed import fails
 * the call with a PayorchError that says so (nothing was sent), and the next call tries again.
 * @internal
 */
export function loadCalls(): Promise<Calls> {
  if (callsLoaded !== undefined) return Promise.resolve(callsLoaded);
  callsLoading ??= import('./calls.js').then(
    (calls) => (callsLoaded = calls),
    (cause: unknown) => {
      callsLoading = undefined;
      throw new PayorchError(`payorch could not load its endpoint tables (a chunk of the package, imported on the first call): ${cause instanceof Error ? cause.message : String(cause)}`, { cause, outcome: 'not_sent' });
    },
  );
  return callsLoading;
}

/** The options a resource's call takes: those of every call, plus the site key a provider call may act for. */
export interface ResourceRequestOptions extends RequestOptions {
  readonly credentialKey?: string | undefined;
}

/** What `_send` takes: the endpoint row, its parameters, the call's options, an X-Key, and values to keep out of errors. */
type SendArguments<P extends z.ZodMiniType, R extends z.ZodMiniType> = [endpoint: EndpointRef<P, R> | Endpoint<P, R>, params: z.input<P>, options?: ResourceRequestOptions, key?: string, secrets?: readonly string[]];

/**
 * The base of every resource of both APIs, and of the clients: the transport, and what signing a
 * call needs beyond it (the site credential key a provider client acts for; a dealer client has
 * none, its rows are all signed with the basic hash). Private fields behind protected getters, so
 * that logging a client never prints the transport's keys. The clients' declarations extend it, so
 * the main entry exports it as a type; its members are all internal, left out of them.
 */
export class APIResource {
  readonly #transport: Transport;
  readonly #credentialKey: string | undefined;

  /** @internal */
  constructor(transport: Transport, credentialKey?: string) {
    this.#transport = transport;
    this.#credentialKey = credentialKey;
  }

  /** The transport every call of this resource goes through. @internal */
  protected get _transport(): Transport {
    return this.#transport;
  }

  /** The site credential key the client acts for, if any. @internal */
  protected get _credentialKey(): string | undefined {
    return this.#credentialKey;
  }

  /** Signs one endpoint row as the row says, sends it, and parses the answer. @internal */
  protected _send<P extends z.ZodMiniType, R extends z.ZodMiniType>(...call: SendArguments<P, R>): APIPromise<z.output<R>> {
    return APIPromise.start(() => this._sendAnswered(...call));
  }

  /** What `_send` wraps: the parsed result with its answer. @internal */
  protected _sendAnswered<P extends z.ZodMiniType, R extends z.ZodMiniType>(
    endpoint: EndpointRef<P, R> | Endpoint<P, R>,
    params: z.input<P>,
    options: ResourceRequestOptions = {},
    key?: string,
    secrets: readonly string[] = [],
  ): Promise<Answered<z.output<R>>> {
    if (typeof endpoint !== 'function') return this.#sendRow(endpoint, params, options, key, secrets);
    // Once loaded, the table is read at once: no extra turn of the event loop per call.
    if (callsLoaded !== undefined) return this.#sendRow(endpoint(callsLoaded), params, options, key, secrets);
    return loadCalls().then((calls) => this.#sendRow(endpoint(calls), params, options, key, secrets));
  }

  #sendRow<P extends z.ZodMiniType, R extends z.ZodMiniType>(endpoint: Endpoint<P, R>, params: z.input<P>, options: ResourceRequestOptions, key: string | undefined, secrets: readonly string[]): Promise<Answered<z.output<R>>> {
    return this.#transport.send(endpoint, params, this.#signing(endpoint, options, key), options, [...secrets, ...this._credentialKeys(options)]);
  }

  /**
   * The site credential keys a call may carry, signed or in its body (spec 5.1 rule 2), to be
   * kept out of error messages even when the service echoes them. @internal
   */
  protected _credentialKeys(options: ResourceRequestOptions): string[] {
    const key = options.credentialKey ?? this.#credentialKey;
    return key === undefined ? [] : [key];
  }

  /** The site credential key of a call, or a refusal before anything is sent. @internal */
  protected _requireCredentialKey(operation: string, options: ResourceRequestOptions): string {
    const credentialKey = options.credentialKey ?? this.#credentialKey;
    if (credentialKey === undefined || credentialKey === '') {
      throw new RequestValidationError(operation, [
        {
          field: 'credentialKey',
          rule: 'required',
          message: 'this call needs a site credential key: set credentialKey on the client, use provider.withSite(key), or pass { credentialKey } to the call',
        },
      ]);
    }
    return credentialKey;
  }

  #signing(endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>, options: ResourceRequestOptions, key: string | undefined): Signing {
    switch (endpoint.hash) {
      case 'basic':
        return { hash: 'basic' };
      case 'credential':
        return { hash: 'credential', credentialKey: this._requireCredentialKey(endpoint.operation, options) };
      case 'key':
        if (key === undefined) throw new RequestValidationError(endpoint.operation, [{ field: 'key', rule: 'required', message: 'is required' }]);
        return { hash: 'key', key };
    }
  }
}
