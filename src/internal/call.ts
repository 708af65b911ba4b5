import type { z } from 'zod/mini';
import type { FailedCall } from '../errors/error.js';
import type { Api } from '../core/api.js';
import type { ClientOptions } from '../core/client-options.js';
import type { EndpointLocation } from './endpoint.js';
import type { Credentials, Signing } from './signer.js';

/** Settings shared by every call of a client: the client's options, minus the keys, plus where the API lives. */
export interface TransportConfig extends Omit<ClientOptions, 'apiKey' | 'secretKey'> {
  readonly credentials: Credentials;
  /** Who made the transport (`new ProviderClient`), named when an option is refused. */
  readonly owner: string;
  /** The API (`provider`): where its endpoints live (endpointPath) and the first part of an operation's name in error messages. */
  readonly api: Api;
}

/** One call as a resource describes it; the transport does the rest. */
export interface Call<S extends z.ZodMiniType> {
  /** Public name of the call, for error messages (`manual.startDeposit`). */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  /** Path below the base URL, starting with `/`: `/api/provider/welcome`. */
  readonly path: string;
  readonly signing: Signing;
  /** True when sending it twice cannot move money twice; only then are ambiguous failures retried. */
  readonly resendable: boolean;
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly schema: S;
  /**
   * Values of this call that must not reach an error message even when the service echoes them
   * (a site credential key sent in the body), besides the secret key, the hashes and the keys
   * of `signing`, which the transport knows.
   */
  readonly secrets?: readonly string[] | undefined;
}

/** The URL of a call below `root` (the base URL without a trailing `/`), with its query. */
export function callUrl(root: string, call: { readonly path: string; readonly query?: Call<z.ZodMiniType>['query'] | undefined }): string {
  // Most calls have no query: no URLSearchParams to build for them.
  if (call.query === undefined) return `${root}${call.path}`;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query)) {
    if (value !== undefined) query.set(name, String(value));
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return `${root}${call.path}${search}`;
}

/** What an error without an answer says about its call: never a header, never a key. */
export function failedCall(api: Api, call: Pick<Call<z.ZodMiniType>, 'operation' | 'method' | 'resendable'>, url: string): FailedCall {
  return { operation: `${api}.${call.operation}`, request: { method: call.method, url }, resendable: call.resendable };
}

// The paths live here, not beside defineEndpoint (endpoint.ts): what the main entry loads at once
// imports this module, and endpoint.ts, with the tables, only on a client's first call.

/** Where an API lives below the base URL: `/api/provider`, `/api/dealer`. Built here only. */
export const apiPath = (api: Api): string => `/api/${api}`;

/**
 * The path an endpoint is sent to, served at and documented under, below the base URL:
 * `/api/dealer/withdraw`. Every reader (transport, sandbox, OpenAPI, CLI) asks this one function.
 */
export function endpointPath({ api, endpoint }: { readonly api: Api; readonly endpoint: EndpointLocation }): string {
  if (endpoint.fullPath !== undefined) return endpoint.fullPath;
  return `${apiPath(api)}${endpoint.path}`;
}
