import type { z } from 'zod/mini';
import type { Api } from '../../core/api.js';
import type { DealerErrorCode } from '../../errors/api-error.js';
import type { ValidationIssue } from '../../errors/error.js';
import type { Endpoint } from '../../internal/endpoint.js';
import type { SpecGap } from '../../spec-gaps.js';
import type { Failure, Reply } from '../sandbox/answers.js';
import { serve } from '../sandbox/route.js';
import type { RouteContext, Serve } from '../sandbox/route.js';

/*
 * What one row of the registry (src/tools/registry/index.ts) holds, and how a row is written. Each
 * row joins an endpoint of a client (src/provider, src/dealer: its operation name, method, path,
 * hash, `resendable` and schemas) to what the other readers need of it: a valid example, the
 * gaps of the spec it meets, its dealer error codes, and how the sandbox answers it.
 */

/** What a client method takes for a request: the site credential key of a card payment may be left to the client (spec 5.1 rule 2). */
type MethodParams<T> = T extends { readonly credential_key: string } ? Omit<T, 'credential_key'> & { readonly credential_key?: string } : T;

/** A valid call of an endpoint and a success answer, typed by its schemas: what tests send and the OpenAPI examples show. */
export interface EndpointExample<P extends z.ZodMiniType, R extends z.ZodMiniType> {
  /** The parameters the client method takes; left out for a call that takes none. */
  readonly params?: MethodParams<z.input<P>>;
  /** The X-Key of a call signed with the key hash (spec 5.1): its client method takes `{ key }`. */
  readonly key?: string;
  /** A success answer with the spec's types, as the service sends it. */
  readonly answer: z.input<R>;
}

/** A row as it is written: its example, the gaps of the spec it meets, its error codes and the sandbox's answer. */
export interface RowSpec<P extends z.ZodMiniType, R extends z.ZodMiniType> extends EndpointExample<P, R> {
  /** What the spec does not show about the endpoint (docs/spec-gaps.md). */
  readonly gaps?: readonly SpecGap[];
  /** The dealer error codes of spec 7.4 it answers with (the Endpoint column of its table). */
  readonly codes?: readonly DealerErrorCode[];
  /** How the sandbox answers it, given the parameters the endpoint's schema parsed: a body its answer schema accepts, or a failure. */
  readonly handle: (context: RouteContext, params: z.output<P>) => Reply<z.input<R>>;
  /** Turns a schema failure into the endpoint's own error, where the spec gives one (the dealer codes of 7.4). */
  readonly invalid?: (issues: readonly ValidationIssue[]) => Failure | undefined;
}

/** An endpoint row with the API it belongs to and what the readers of the registry need of it. */
export interface ApiEndpoint {
  readonly api: Api;
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
  readonly example: EndpointExample<z.ZodMiniType, z.ZodMiniType>;
  readonly gaps: readonly SpecGap[];
  readonly codes: readonly DealerErrorCode[];
  /** How the sandbox answers a request to it: the raw parameters validated with the endpoint's strict schema, then `handle`. */
  readonly serve: Serve;
}

const row =
  (api: Api) =>
  <P extends z.ZodMiniType, R extends z.ZodMiniType>(endpoint: Endpoint<P, R>, { gaps = [], codes = [], handle, invalid, ...example }: RowSpec<P, R>): ApiEndpoint => ({
    api,
    endpoint,
    example,
    gaps,
    codes,
    serve: serve(endpoint, handle, invalid),
  });

/** A row of the Provider API. */
export const provider = /* @__PURE__ */ row('provider');
/** A row of the Dealer API. */
export const dealer = /* @__PURE__ */ row('dealer');
