import type { ClientOptions } from '../core/client-options.js';
import { APIPromise } from '../core/api-promise.js';
import type { Signing } from '../internal/signer.js';
import { checkSettings, clientOptions } from '../core/client-options.js';
import { clientNames, withEnvironment } from '../core/environment.js';
import type { ClientSettings } from '../core/client-options.js';
import { SITE_KEY_OPTION, checkNames, checkOptions, declareOptions, takingSandboxAccounts } from '../core/option-checks.js';
import { RequestValidationError } from '../errors/error.js';
import { checkRawRequest, rawCall } from '../internal/raw-call.js';
import type { RawRequest } from '../core/raw-request.js';
import { Transport } from '../internal/transport.js';
import type { Welcome } from './account.js';
import type { ProviderRequestOptions } from './request-options.js';
import { ProviderResources } from './resources.js';
import { PROVIDER_CALLS } from './tables.js';

/** Settings of a {@link ProviderClient}. */
export interface ProviderClientOptions extends ClientOptions {
  /**
   * Site credential key used by calls signed with the credential hash, and put into the body of
   * card payments. Calls that need one fail before sending when none is set here or per call.
   * @default undefined (then `withSite(key)` or a per-call `{ credentialKey }` supplies it)
   * @example process.env.PAYORCH_CREDENTIAL_KEY
   */
  readonly credentialKey?: string | undefined;
}

/** A request to an endpoint the SDK does not wrap yet, signed like every other call. */
export type ProviderRawRequest = RawRequest &
  (
    | { readonly hash: 'basic' }
    /** The key hash; `key` is sent as X-Key. */
    | { readonly hash: 'key'; readonly key: string }
    /** The credential hash; `credentialKey` defaults to the client's. */
    | { readonly hash: 'credential'; readonly credentialKey?: string }
  );

// Made in a function called under a pure mark, so that a bundle without the client drops it all.
const PROVIDER_OPTIONS = /* @__PURE__ */ providerOptions();
const PROVIDER_NAMES = /* @__PURE__ */ clientNames('provider');

/**
 * A client's options and the site it acts for, checked at start-up rather than on the first
 * payment. Exported for test/docs/option-defaults.test.ts, which reads each `@default` against it. @internal
 */
export function providerOptions() {
  return takingSandboxAccounts(declareOptions<ProviderClientOptions>()([...clientOptions('provider'), SITE_KEY_OPTION]));
}

/**
 * The key under which withSite() hands its transport to the client it makes. Not exported, so no
 * caller's options can carry it: only a client of this module shares its transport.
 */
const parentTransport = Symbol('parentTransport');
interface SiteOptions extends ProviderClientOptions {
  readonly [parentTransport]?: Transport | undefined;
}

/**
 * Client of the Provider API (`{baseUrl}/api/provider`): every endpoint of spec 4.2, signed,
 * validated before sending, with typed answers.
 *
 * @example
 * ```ts
 * import { ProviderClient } from 'payorch';
 *
 * // The keys are read from PAYORCH_PROVIDER_API_KEY and PAYORCH_PROVIDER_SECRET_KEY.
 * const provider = new ProviderClient({
 *   baseUrl: 'https://pay.example.com',
 *   credentialKey: process.env.PAYORCH_CREDENTIAL_KEY, // the site the calls act for
 * });
 * const { provider: me } = await provider.welcome();
 * ```
 */
export class ProviderClient extends ProviderResources {
  readonly #options: ProviderClientOptions;

  /**
   * Makes a client; nothing is sent until the first call.
   * @param options keys, service address and transport settings; see {@link ProviderClientOptions}.
   * Each key and the address left out (or all of them, with no argument) are read from
   * `PAYORCH_PROVIDER_API_KEY`, `PAYORCH_PROVIDER_SECRET_KEY` and `PAYORCH_BASE_URL`.
   * @throws {RequestValidationError} for an impossible option, a name that is not an option, or a key or the address in neither place
   */
  constructor(options: ProviderClientOptions = {}) {
    // A misspelt name first (baseURL): else it would be told as the option missing from both places.
    checkNames('new ProviderClient', options, PROVIDER_OPTIONS);
    // With the keys it was given or read: withSite() and withOptions() make their clients with them.
    const settings = withEnvironment('new ProviderClient', options, PROVIDER_NAMES);
    checkOptions('new ProviderClient', settings, PROVIDER_OPTIONS);
    const transport = (settings as SiteOptions)[parentTransport] ?? new Transport({ ...settings, api: 'provider', owner: 'new ProviderClient', credentials: settings });
    super(transport, settings.credentialKey);
    this.#options = settings;
  }

  /**
   * A client that acts for another site. It shares this client's transport (settings and the
   * clock offset learned from the service), so making one per site costs nothing.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const shop = provider.withSite(process.env.PAYORCH_CREDENTIAL_KEY!);
   * await shop.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
   * ```
   */
  withSite(credentialKey: string): ProviderClient {
    const options: SiteOptions = { ...this.#options, credentialKey, [parentTransport]: this._transport };
    return new ProviderClient(options);
  }

  /**
   * A client with other settings (timeout, maxRetries, fetch, hooks, logger, logLevel, tracer,
   * ...) and the same keys, service address and site key. Keys, `baseUrl` and the site key are
   * refused: they make another client (`new ProviderClient`, `withSite`). It has a transport of
   * its own, so the settings of this client are untouched.
   *
   * @throws {RequestValidationError} for an option of the client's identity, a name that is not an option, or an impossible value
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * declare const tracking_code: string;
   * const patient = provider.withOptions({ timeout: 120_000, maxRetries: 5 });
   * await patient.creditCard.getStatus({ tracking_code });
   * ```
   */
  withOptions(settings: ClientSettings): ProviderClient {
    checkSettings('provider.withOptions', settings, PROVIDER_OPTIONS);
    // Not the parent's transport withSite() shares: the new settings need a transport of their own.
    const options: SiteOptions = { ...this.#options, ...settings, credentialKey: this._credentialKey, [parentTransport]: undefined };
    return new ProviderClient(options);
  }

  /**
   * Connection test: checks the keys, the clock and the IP whitelist (spec 4.3).
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { provider: me } = await provider.welcome();
   * console.log(me.name, me.is_active);
   * ```
   */
  welcome(options?: ProviderRequestOptions): APIPromise<Welcome> {
    return this._send(PROVIDER_CALLS, (calls) => calls.welcomeEndpoint, undefined, options);
  }

  /**
   * Signs and sends a request to a Provider API path the SDK does not wrap yet. The answer is
   * checked for failure like any other, and returned as parsed JSON.
   *
   * @throws {RequestValidationError} before sending, for a path that leaves `/api/provider` (`..`,
   * `//`, an absolute URL, a query or fragment), a header name that is not an HTTP token, a GET
   * with a body, a body JSON cannot hold, or a `hash` the spec does not have
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const answer = await provider.request({ method: 'POST', path: '/new-endpoint', hash: 'credential', body: { a: 1 } });
   * ```
   */
  request(params: ProviderRawRequest, options: ProviderRequestOptions = {}): APIPromise<unknown> {
    return APIPromise.start(async () => {
      checkRawRequest(params);
      const hash: unknown = params.hash;
      if (hash !== 'basic' && hash !== 'credential' && hash !== 'key') throw new RequestValidationError('request', [{ field: 'hash', rule: 'invalid_value', message: `must be 'basic', 'credential' or 'key' (spec 5.1); got ${typeof hash === 'string' ? JSON.stringify(hash) : typeof hash}` }]);
      const signing: Signing =
        params.hash === 'credential'
          ? { hash: 'credential', credentialKey: params.credentialKey ?? this._requireCredentialKey('request', options) }
          : params.hash === 'key'
            ? { hash: 'key', key: params.key }
            : { hash: 'basic' };
      const { unknownAnswer } = await PROVIDER_CALLS.load();
      return this._transport.request(rawCall('provider', params, signing, unknownAnswer(), this._credentialKeys(options)), options);
    });
  }

}
