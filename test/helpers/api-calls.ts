import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as z from 'zod/mini';
import type { Endpoint } from '../../src/internal/endpoint.js';
import type { APIPromise, DealerClient, ProviderClient, ProviderRequestOptions } from '../../src/index.js';
import { API_ENDPOINTS, exampleArguments, operationId } from '../../src/tools/registry/index.js';
import type { ApiEndpoint } from '../../src/tools/registry/index.js';

/*
 * The public calls of both clients, one per row of the registry (src/tools/registry/index.ts): each
 * made by its operation name, which is its method's path on the client, with the row's example.
 * No list of calls is kept here.
 */

/** One public call of a client: its registry row, a valid input, and how to make it. */
export interface ApiCall<C> {
  readonly row: ApiEndpoint;
  /** Its API and operation name: `provider.manual.startDeposit`. */
  readonly id: string;
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
  /** The row's example parameters as the method takes them, or undefined for a call that takes none. */
  readonly valid: Record<string, unknown> | undefined;
  readonly invoke: (client: C, params: never, options?: ProviderRequestOptions) => APIPromise<unknown>;
}
export type ProviderCall = ApiCall<ProviderClient>;
export type DealerCall = ApiCall<DealerClient>;

type Method = (...args: unknown[]) => APIPromise<unknown>;

/** The client's method of an operation name: `manual.startDeposit` is `client.manual.startDeposit`. */
export function methodOf(client: object, operation: string): Method {
  const names = operation.split('.');
  const last = names.pop() ?? '';
  const target = names.reduce<unknown>((object, name) => (object as Record<string, unknown>)[name], client) as Record<string, unknown>;
  const method = target[last];
  if (typeof method !== 'function') throw new Error(`The client has no method ${operation}`);
  return (...args) => (method as Method).apply(target, args);
}

function callOf<C extends object>(row: ApiEndpoint): ApiCall<C> {
  const [valid] = exampleArguments(row) as [Record<string, unknown> | undefined];
  const takesArguments = valid !== undefined;
  return {
    row,
    id: operationId(row),
    endpoint: row.endpoint,
    valid,
    invoke: (client, params, options) => (takesArguments ? methodOf(client, row.endpoint.operation)(params, options) : methodOf(client, row.endpoint.operation)(options)),
  };
}

/** Every call of the ProviderClient; `definedOperations('provider')` proves that none is missing. */
export const PROVIDER_CALLS: readonly ProviderCall[] = API_ENDPOINTS.filter((row) => row.api === 'provider').map((row) => callOf<ProviderClient>(row));
/** Every call of the DealerClient; `definedOperations('dealer')` proves that none is missing. */
export const DEALER_CALLS: readonly DealerCall[] = API_ENDPOINTS.filter((row) => row.api === 'dealer').map((row) => callOf<DealerClient>(row));

/** The registry's row of an operation (`provider.thirdParty.crypto.gateways.list`). */
export function rowOf(id: string): ApiEndpoint {
  const row = API_ENDPOINTS.find((each) => operationId(each) === id);
  if (row === undefined) throw new Error(`no registry row ${id}`);
  return row;
}

/** The success answer of a row's example, as the service sends it. */
export const exampleAnswer = (id: string): Record<string, unknown> => rowOf(id).example.answer as Record<string, unknown>;

/** The operation names of every endpoint row the modules of `src/<area>/` export, found by reading them. */
export async function definedOperations(area: 'provider' | 'dealer'): Promise<string[]> {
  const root = fileURLToPath(new URL(`../../src/${area}/`, import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const operations = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 1) return;
    const row = value as Partial<Endpoint<z.ZodMiniType, z.ZodMiniType>>;
    if (typeof row.operation === 'string' && (typeof row.path === 'string' || typeof row.fullPath === 'string') && row.params !== undefined) operations.add(row.operation);
    else for (const nested of Object.values(value)) visit(nested, depth + 1);
  };
  for (const file of files) {
    const module = (await import(pathToFileURL(join(root, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) visit(value, 0);
  }
  return [...operations].sort();
}

/**
 * A call's example parameters with the values only a running sandbox can give (the ids it gave
 * out, dates it has records on) in place of the example's: the fields named in `values`.
 */
export function withValues(valid: Record<string, unknown> | undefined, values: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  return valid && Object.fromEntries(Object.entries(valid).map(([name, value]) => [name, values[name] ?? value]));
}

/** Calls that are not resendable: sent at most once once the service may have seen them. */
export const PAYMENT_CALLS = PROVIDER_CALLS.filter((call) => !call.endpoint.resendable);
export const DEALER_PAYMENT_CALLS = DEALER_CALLS.filter((call) => !call.endpoint.resendable);
