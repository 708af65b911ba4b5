import { DEALER_ENDPOINTS } from './dealer.js';
import { PROVIDER_ENDPOINTS } from './provider.js';
import type { ApiEndpoint } from './row.js';

export type { ApiEndpoint, EndpointExample, RowSpec } from './row.js';

/*
 * The registry: every endpoint of the spec, in the order of its sections (4.2, 4.13). Each row
 * joins the endpoint its client sends (src/provider, src/dealer: operation name, method, path,
 * hash, `resendable`, schemas) to a valid example, the gaps of the spec it meets, its dealer error
 * codes and how the sandbox answers it (its rows, beside it). The sandbox routes by it, `payorch call`
 * runs it, the OpenAPI document and docs/spec-gaps.md are generated from it, and every test that
 * needs "every endpoint" iterates it: a new endpoint is one row. The clients do not import it
 * (each resource sends its own endpoint), so the main entry carries none of it.
 */

/** Every endpoint of the Provider API (spec 4.2) and of the Dealer API (spec 4.13). */
export const API_ENDPOINTS: readonly ApiEndpoint[] = [...PROVIDER_ENDPOINTS, ...DEALER_ENDPOINTS];

/** Where a row lives below the base URL (`/api/provider/welcome`): the function the clients send by too. */
export { endpointPath } from '../../internal/call.js';

/** The registry's name of a row, its API first: `provider.manual.startDeposit`. */
export const operationId = ({ api, endpoint }: Pick<ApiEndpoint, 'api' | 'endpoint'>): string => `${api}.${endpoint.operation}`;

/** The arguments of a row's client method before its options, from its example: `[params]`, `[{ key }]` or none. */
export const exampleArguments = ({ endpoint, example }: Pick<ApiEndpoint, 'endpoint' | 'example'>): unknown[] =>
  endpoint.hash === 'key' ? [{ key: example.key }] : example.params === undefined ? [] : [example.params];
