import type { Logger, RequestEvent, ResponseEvent } from './observability.js';
import { LOG_LEVEL_OPTION } from './log-level.js';
import type { LogLevel } from './log-level.js';
import { BASE_URL_OPTION, CALL_SETTINGS, LOGGER_OPTION, TRACER_OPTION, checkOptions, declareOptions, everyOption, takingSandboxAccounts } from './option-checks.js';
import { RequestValidationError } from '../errors/error.js';
import type { OptionDeclaration, OptionName } from './option-checks.js';
import { keyNames } from './environment.js';
import type { Api } from './api.js';
import type { TracerLike } from './tracing.js';

/** Settings every client takes. Per-call `RequestOptions` override `timeout` and `maxRetries`. */
export interface ClientOptions {
  /**
   * Address of the service, without `/api/provider` or `/api/dealer`. Must be https unless the
   * host is loopback or `allowInsecureHttp` is set. Left out, it is read from `PAYORCH_BASE_URL`
   * where the runtime has environment variables; missing from both, the constructor throws.
   * @example 'https://pay.example.com'
   */
  readonly baseUrl?: string | undefined;
  /**
   * API key, sent as X-Api-Key, a non-empty string. Left out, it is read from
   * `PAYORCH_PROVIDER_API_KEY` (`PAYORCH_DEALER_API_KEY` for a `DealerClient`) where the runtime
   * has environment variables; missing from both, the constructor throws a `RequestValidationError`.
   * @example 'prov_api_b019ec636752'
   */
  readonly apiKey?: string | undefined;
  /**
   * Secret key, a non-empty string. It only enters the hash; it is never sent, logged or put into
   * an error, even when the service echoes it back. Left out, it is read from
   * `PAYORCH_PROVIDER_SECRET_KEY` (`PAYORCH_DEALER_SECRET_KEY`), as `apiKey` is.
   * @example process.env.PAYORCH_PROVIDER_SECRET_KEY
   */
  readonly secretKey?: string | undefined;
  /**
   * Milliseconds for a whole call, retries and body included: a finite number from 1 to
   * 2147483647 (2^31-1), checked in the constructor.
   * @default 30000
   * @example 10_000
   */
  readonly timeout?: number | undefined;
  /**
   * Retries of resendable calls after a connection failure, 408, 429 or 5xx. Other calls are
   * only retried when the connection was refused. The one resend after a refused
   * timestamp (clock skew) does not count. An integer from 0 to 10.
   * @default 2
   * @example 0
   */
  readonly maxRetries?: number | undefined;
  /**
   * The `fetch` to use, for a proxy or a test double. Read at call time. It is called with a
   * `Request` and an init object, as ky calls it. See docs/runtimes-and-proxies.md.
   * @default globalThis.fetch
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * declare const keys: { baseUrl: string; apiKey: string; secretKey: string };
   * import { ProxyAgent } from 'undici'; // undici 7: its agents fit the fetch of Node 22, 24 and 26
   * const dispatcher = new ProxyAgent('http://egress.internal:3128');
   * new ProviderClient({ ...keys, fetch: (input, init) => fetch(input, { ...init, dispatcher } as RequestInit) });
   * ```
   */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /**
   * Allows a plain-http `baseUrl` on a host that is not loopback. The hash does not cover the
   * body, so anyone on the path could change an amount or an IBAN: use only inside a trusted network.
   * @default false
   * @example true
   */
  readonly allowInsecureHttp?: boolean | undefined;
  /**
   * Largest answer body accepted, in bytes (a positive integer); a larger one fails with an `APIError`.
   * @default 4194304
   * @example 1_048_576
   */
  readonly maxResponseBytes?: number | undefined;
  /**
   * Known server time minus local time, in milliseconds, added to every X-Timestamp. The client
   * also learns it from a "Request timestamp expired" answer.
   * @default 0
   * @example 600_000
   */
  readonly clockOffsetMs?: number | undefined;
  /**
   * The clock, in milliseconds since the epoch, for tests.
   * @default Date.now
   * @example () => Date.parse('2026-11-22T10:00:00Z')
   */
  readonly now?: (() => number) | undefined;
  /**
   * Receives what the client does, at the levels `logLevel` lets through: every attempt at
   * `debug`, a learned clock offset and every failed call at `info` (the caller has the error), every
   * retry at `warn`, a hook that threw at `error`.
   * Called as `logger.level(fields, message)`, which `console` and pino both accept. Secrets,
   * bodies and query values are never passed.
   * @default the console (the message alone), at `logLevel`
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * declare const keys: { baseUrl: string; apiKey: string; secretKey: string };
   * new ProviderClient({ ...keys, logger: console });
   * ```
   */
  readonly logger?: Logger | undefined;
  /**
   * How much is logged, to `logger` or, without one, to the console: `'off'`, `'error'` (failed
   * calls), `'warn'` (and retries), `'info'` (and a learned clock offset) or `'debug'` (and every
   * attempt). Without it, the `PAYORCH_LOG` environment variable decides where the runtime has one
   * (Node, Bun, Deno: `PAYORCH_LOG=debug node app.js`); a Worker has none, so set the option.
   * A line names the operation, method, path, status and duration: never a body, a key, a hash
   * or a query value.
   * @default PAYORCH_LOG, else 'warn'
   * @example 'debug'
   */
  readonly logLevel?: LogLevel | undefined;
  /**
   * Called just before each attempt goes on the wire, retries included. Its headers have every
   * key and the hash cut to the last 4 characters. An exception it throws is logged and ignored.
   * @default none
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * declare const keys: { baseUrl: string; apiKey: string; secretKey: string };
   * declare const metrics: { count(name: string, attributes: object): void };
   * new ProviderClient({ ...keys, onRequest: ({ method, url, attempt }) => metrics.count('payorch.request', { method, url, attempt }) });
   * ```
   */
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  /**
   * Called when each attempt ends, with its status or error, its duration and the wait before
   * the next attempt. An exception it throws is logged and ignored: it never changes the result.
   * @default none
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * declare const keys: { baseUrl: string; apiKey: string; secretKey: string };
   * declare const histogram: { observe(attributes: object, value: number): void };
   * new ProviderClient({ ...keys, onResponse: ({ url, status, durationMs }) => histogram.observe({ url, status }, durationMs) });
   * ```
   */
  readonly onResponse?: ((event: ResponseEvent) => void) | undefined;
  /**
   * An OpenTelemetry `Tracer`: each call becomes one CLIENT span named by its operation
   * (`manual.startDeposit`), covering its retries and body read, with the HTTP client attributes,
   * an event per retry and status ERROR on failure. The span is active during the call, so a
   * `fetch` instrumentation nests under it. No key or hash reaches a span. See docs/observability.md.
   * @default no spans
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * declare const keys: { baseUrl: string; apiKey: string; secretKey: string };
   * import { trace } from '@opentelemetry/api';
   * new ProviderClient({ ...keys, tracer: trace.getTracer('my-app') });
   * ```
   */
  readonly tracer?: TracerLike | undefined;
}

// The value `maxResponseBytes` takes when left out; the transport reads it here. (The per-call
// options and the base URL are declared in option-checks.ts.)
export const DEFAULT_CLIENT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * The options every client takes, checked in its constructor so that a bad value fails at
 * start-up rather than on the first payment, once the keys left out were read from the
 * environment ({@link withEnvironment}). `api` names the environment variables of the keys. Any
 * other name is refused, but a sandbox account's fields: the guides spread one into a client.
 */
export function clientOptions(api: Api): readonly OptionDeclaration<OptionName<ClientOptions>>[] {
  const names = keyNames(api);
  return takingSandboxAccounts(declareOptions<ClientOptions>()([
    { name: 'apiKey', rule: { type: 'key' }, required: true, env: names.apiKey },
    { name: 'secretKey', rule: { type: 'key' }, required: true, env: names.secretKey },
    ...CALL_SETTINGS,
    { name: 'maxResponseBytes', rule: { type: 'number', min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }, default: DEFAULT_CLIENT_MAX_RESPONSE_BYTES },
    { name: 'clockOffsetMs', rule: { type: 'number', min: -Infinity, max: Infinity }, default: 0 },
    ...(['fetch', 'now', 'onRequest', 'onResponse'] as const).map((name): OptionDeclaration<typeof name> => ({ name, rule: { type: 'function' } })),
    TRACER_OPTION,
    LOG_LEVEL_OPTION,
    LOGGER_OPTION,
    { name: 'allowInsecureHttp', rule: { type: 'boolean' }, default: false },
    BASE_URL_OPTION,
  ]));
}

/**
 * What `withOptions()` changes: the settings of a client, not who it is. Keys, the site key and
 * the service's address make another client (`new ProviderClient`, `withSite`).
 */
export type ClientSettings = Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'secretKey' | 'allowInsecureHttp'>;

/** The options `withOptions()` refuses, and what to use instead. */
const IDENTITY_OPTIONS: Readonly<Record<string, string>> = {
  baseUrl: 'the service address belongs to a new client',
  apiKey: 'keys belong to a new client',
  secretKey: 'keys belong to a new client',
  allowInsecureHttp: 'it goes with the service address, which belongs to a new client',
  credentialKey: 'the site key stays the one this client acts for: use withSite(key) for another',
};

/** The declarations withOptions() checks by, of each client's: its settings, not its identity. */
const SETTINGS_OF = new WeakMap<readonly OptionDeclaration[], readonly OptionDeclaration[]>();

/**
 * Checks the options given to `withOptions()`: those of a client's identity are refused, naming
 * the option; any other name it does not take too; the rest as the constructor checks them.
 */
export function checkSettings(owner: string, settings: ClientSettings, declared: readonly OptionDeclaration[]): void {
  const given = typeof settings === 'object' && (settings as unknown) !== null ? Object.keys(settings) : [];
  const refused = given.filter((name) => Object.hasOwn(IDENTITY_OPTIONS, name));
  if (refused.length > 0) {
    throw new RequestValidationError(owner, refused.map((name) => ({ field: name, rule: 'invalid_option', message: `cannot be changed by withOptions(): ${IDENTITY_OPTIONS[name] ?? ''}` })));
  }
  let settingsDeclared = SETTINGS_OF.get(declared);
  if (settingsDeclared === undefined) {
    settingsDeclared = everyOption(declared.filter((option) => option.required !== true && !Object.hasOwn(IDENTITY_OPTIONS, option.name)));
    SETTINGS_OF.set(declared, settingsDeclared);
  }
  checkOptions(owner, settings, settingsDeclared);
}
