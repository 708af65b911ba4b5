import type { ClientOptions } from '../core/client-options.js';
import { APIPromise } from '../core/api-promise.js';
import { checkSettings, clientOptions } from '../core/client-options.js';
import { clientNames, withEnvironment } from '../core/environment.js';
import type { ClientSettings } from '../core/client-options.js';
import { checkNames, checkOptions } from '../core/option-checks.js';
import { checkRawRequest, rawCall } from '../internal/raw-call.js';
import type { RawRequest } from '../core/raw-request.js';
import { Transport } from '../internal/transport.js';
import type { RequestOptions } from '../core/request-options.js';
import { DEALER_CALLS } from './tables.js';
import { DealerResources } from './resources.js';

const DEALER_OPTIONS = /* @__PURE__ */ clientOptions('dealer');
const DEALER_NAMES = /* @__PURE__ */ clientNames('dealer');

/**
 * Client of the Dealer API (`{baseUrl}/api/dealer`): every endpoint of spec 4.13, each request
 * signed with the basic hash (spec 5.2), validated before sending, with typed answers.
 *
 * @example
 * ```ts
 * import { DealerClient } from 'payorch';
 *
 * // The keys are read from PAYORCH_DEALER_API_KEY and PAYORCH_DEALER_SECRET_KEY.
 * const dealer = new DealerClient({ baseUrl: 'https://pay.example.com' });
 * const { eibans } = await dealer.eibans.list();
 * ```
 */
export class DealerClient extends DealerResources {
  readonly #options: ClientOptions;

  /**
   * Makes a client; nothing is sent until the first call.
   * @param options the keys of the dealer account and the settings every client takes. Each key
   * and the address left out (or all of them, with no argument) are read from
   * `PAYORCH_DEALER_API_KEY`, `PAYORCH_DEALER_SECRET_KEY` and `PAYORCH_BASE_URL`.
   * @throws {RequestValidationError} for an impossible option, a name that is not an option, or a key or the address in neither place
   * @example
   * ```ts
   * import { DealerClient } from 'payorch';
   * declare const apiKey: string;
   * declare const secretKey: string;
   * const dealer = new DealerClient({ baseUrl: 'https://pay.example.com', apiKey, secretKey, timeout: 10_000 });
   * ```
   */
  constructor(options: ClientOptions = {}) {
    // A misspelt name first (baseURL): else it would be told as the option missing from both places.
    checkNames('new DealerClient', options, DEALER_OPTIONS);
    const settings = withEnvironment('new DealerClient', options, DEALER_NAMES);
    checkOptions('new DealerClient', settings, DEALER_OPTIONS);
    const transport = new Transport({ ...settings, api: 'dealer', owner: 'new DealerClient', credentials: settings });
    // No credential key: every dealer row is signed with the basic hash (spec 5.2).
    super(transport);
    // With the keys it was given or read: withOptions() makes its client with them.
    this.#options = settings;
  }

  /**
   * A client with other settings (timeout, maxRetries, fetch, hooks, logger, logLevel, tracer,
   * ...) and the same keys and service address, which are refused here: they make a new client.
   * It has a transport of its own, so the settings of this client are untouched.
   *
   * @throws {RequestValidationError} for `apiKey`, `secretKey`, `baseUrl` or `allowInsecureHttp`, a name that is not an option, or an impossible value
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const quick = dealer.withOptions({ timeout: 5_000, maxRetries: 0 });
   * await quick.settings.get();
   * ```
   */
  withOptions(settings: ClientSettings): DealerClient {
    checkSettings('dealer.withOptions', settings, DEALER_OPTIONS);
    return new DealerClient({ ...this.#options, ...settings });
  }

  /**
   * Signs (basic hash, spec 5.2) and sends a request to a Dealer API path the SDK does not wrap,
   * or overrides a choice the spec leaves open (docs/spec-gaps.md). The answer is checked for
   * failure like any other and returned as parsed JSON. Treated as payment-creating (never
   * resent after an ambiguous failure) unless `resendable` is set.
   *
   * @throws {RequestValidationError} before sending, for a path that leaves `/api/dealer`, a
   * header name that is not an HTTP token, a GET with a body, or a body JSON cannot hold
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const answer = await dealer.request({ method: 'POST', path: '/transactions', body: { page: 1 }, resendable: true });
   * ```
   */
  request(params: RawRequest, options?: RequestOptions): APIPromise<unknown> {
    return APIPromise.start(async () => {
      checkRawRequest(params);
      const { unknownAnswer } = await DEALER_CALLS.load();
      return this._transport.request(rawCall('dealer', params, { hash: 'basic' }, unknownAnswer()), options);
    });
  }
}
