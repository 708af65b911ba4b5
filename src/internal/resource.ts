import type { z } from 'zod/mini';
import type { Endpoint } from './endpoint.js';
import type { Signing } from './signer.js';
import type { RequestOptions } from '../core/request-options.js';
import type { Transport } from './transport.js';
import type { Answered } from '../core/api-promise.js';
import { APIPromise } from '../core/api-promise.js';
import { RequestValidationError } from '../errors/error.js';
import { LazyModule } from './lazy-module.js';

/** Picks a call's endpoint row out of its API's tables (`C`) once they are loaded. @internal */
export type EndpointRef<C, P extends z.ZodMiniType, R extends z.ZodMiniType> = (calls: C) => Endpoint<P, R>;

/**
 * An API's endpoint tables (its rows with their zod schemas): they and zod were most of what
 * importing payorch compiled. Each API makes one, with the `import()` of its own tables module, and
 * hands it to its calls, so that this folder names no API.
 * @internal
 */
export class CallTables<C> extends LazyModule<C> {
  constructor(load: () => Promise<C>) {
    super("its endpoint tables (a chunk of the package, imported on a client's first call)", load, 'not_sent');
  }
}

/** The options a resource's call takes: those of every call, plus the site key a provider call may act for. */
export interface ResourceRequestOptions extends RequestOptions {
  readonly credentialKey?: string | undefined;
}

/** What `_send` takes: the endpoint row, its parameters, the call's options, an X-Key, and values to keep out of errors. */
type SendArguments<C, P extends z.ZodMiniType, R extends z.ZodMiniType> = [tables: CallTables<C>, endpoint: EndpointRef<C, P, R>, params: z.input<P>, options?: ResourceRequestOptions, key?: string, secrets?: readonly string[]];

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
  protected _send<C, P extends z.ZodMiniType, R extends z.ZodMiniType>(...call: SendArguments<C, P, R>): APIPromise<z.output<R>> {
    return APIPromise.start(() => this._sendAnswered(...call));
  }

  /** What `_send` wraps: the parsed result with its answer. @internal */
  protected _sendAnswered<C, P extends z.ZodMiniType, R extends z.ZodMiniType>(
    tables: CallTables<C>,
    endpoint: EndpointRef<C, P, R>,
    params: z.input<P>,
    options: ResourceRequestOptions = {},
    key?: string,
    secrets: readonly string[] = [],
  ): Promise<Answered<z.output<R>>> {
    const loaded = tables.loaded;
    // Once loaded, the table is read at once: no extra turn of the event loop per call.
    if (loaded !== undefined) return this.#sendRow(endpoint(loaded), params, options, key, secrets);
    return tables.load().then((calls) => this.#sendRow(endpoint(calls), params, options, key, secrets));
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
