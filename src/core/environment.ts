import { RequestValidationError } from '../errors/error.js';
import type { ValidationIssue } from '../errors/error.js';
import type { Api } from './api.js';

/*
 * The environment variables payorch reads itself where the runtime has them: the keys of a client
 * or receiver built without them, a client's PAYORCH_BASE_URL, and PAYORCH_LOG. Read at construction, never at import, and
 * defensively: a Worker or a browser has no `process`, Deno without --allow-env throws on a read,
 * and the main entry and payorch/webhooks load no Node built-in.
 */

/** The runtimes' two ways to the environment, as far as payorch reads them. */
interface Runtime {
  readonly process?: { readonly env?: Readonly<Record<string, string | undefined>> };
  readonly Deno?: {
    readonly env?: { get?(name: string): string | undefined };
    readonly permissions?: { querySync?(descriptor: { readonly name: 'env'; readonly variable: string }): { readonly state?: string } };
  };
}

/**
 * The value of the environment variable `name`: from `process.env` (Node, Bun, Deno 2, a Worker
 * with `nodejs_compat`), else `Deno.env`. `undefined` where there is no environment, where reading
 * it is not allowed, or when it is empty.
 */
export function environmentVariable(name: string): string | undefined {
  const runtime = globalThis as Runtime;
  if (runtime.Deno !== undefined && !denoGrants(runtime.Deno, name)) return undefined;
  let value: string | undefined;
  try {
    value = runtime.process?.env?.[name];
  } catch {
    // A process.env that refuses the read (Deno without --allow-env).
  }
  if (value === undefined || value === '') {
    try {
      value = runtime.Deno?.env?.get?.(name);
    } catch {
      // Deno without --allow-env: NotCapable.
    }
  }
  return value === '' ? undefined : value;
}

/**
 * Whether Deno lets `name` be read without asking. At a terminal, Deno stops the program at a read
 * it was not given --allow-env for and asks the user, even for a variable payorch only looks at
 * (PAYORCH_LOG, a key given as an option elsewhere): only a granted read is made. A Deno without
 * the query reads as before, and refuses by throwing.
 */
function denoGrants(deno: NonNullable<Runtime['Deno']>, name: string): boolean {
  try {
    const { permissions } = deno;
    return permissions?.querySync === undefined || permissions.querySync({ name: 'env', variable: name }).state === 'granted';
  } catch {
    return false;
  }
}

/**
 * The environment variable names payorch's examples, CLI and sandbox agree on, in the order the
 * sandbox prints them: the library reads its own from here too. Code reads them from here; prose
 * (README, guides, help texts) writes them out and test/docs/environment-names.test.ts checks it
 * uses no other.
 */
export const ENVIRONMENT_NAMES = {
  baseUrl: 'PAYORCH_BASE_URL',
  providerApiKey: 'PAYORCH_PROVIDER_API_KEY',
  providerSecretKey: 'PAYORCH_PROVIDER_SECRET_KEY',
  credentialKey: 'PAYORCH_CREDENTIAL_KEY',
  sitesKey: 'PAYORCH_SITES_KEY',
  dealerApiKey: 'PAYORCH_DEALER_API_KEY',
  dealerSecretKey: 'PAYORCH_DEALER_SECRET_KEY',
} as const;

/** The environment variables of a pair of keys. */
export interface KeyNames {
  readonly apiKey: string;
  readonly secretKey: string;
}

/** Where an API's keys are read from when not given: the names the CLI and the examples use. */
export function keyNames(api: Api): KeyNames {
  const names = ENVIRONMENT_NAMES;
  return api === 'provider' ? { apiKey: names.providerApiKey, secretKey: names.providerSecretKey } : { apiKey: names.dealerApiKey, secretKey: names.dealerSecretKey };
}

/** A client's environment variables: the service's address and the API's keys. */
export function clientNames(api: Api): KeyNames & { readonly baseUrl: string } {
  return { baseUrl: ENVIRONMENT_NAMES.baseUrl, ...keyNames(api) };
}

/**
 * `options` with each option of `names` it leaves out (or sets to `undefined`) read from its
 * environment variable: an option given wins. One in neither place is refused, naming the option
 * and the variable. Anything but an object is returned as it is, for the option check to refuse.
 */
export function withEnvironment<K extends string, T extends Partial<Readonly<Record<K, string | undefined>>>>(where: string, options: T, names: Readonly<Record<K, string>>): T & Readonly<Record<K, string>> {
  // Not an object: the option check refuses it, naming what it must be.
  if (typeof options !== 'object' || (options as unknown) === null) return options as T & Readonly<Record<K, string>>;
  const given = options as Partial<Readonly<Record<K, unknown>>>;
  const read: Partial<Record<K, string>> = {};
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(names) as K[]) {
    if (given[name] !== undefined) continue;
    const value = environmentVariable(names[name]);
    if (value === undefined) issues.push({ field: name, rule: 'invalid_option', message: `is missing: give the ${name} option, or set ${names[name]} where the runtime has environment variables (Node, Bun, Deno with --allow-env)` });
    else read[name] = value;
  }
  if (issues.length > 0) throw new RequestValidationError(where, issues);
  return (Object.keys(read).length === 0 ? options : { ...options, ...read }) as T & Readonly<Record<K, string>>;
}
