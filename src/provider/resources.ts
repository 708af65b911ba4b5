import type { z } from 'zod/mini';
import { APIPromise } from '../core/api-promise.js';
import { APIResource } from '../internal/resource.js';
import { parseRequest } from '../internal/validation.js';
import type { SiteList, SiteListParams } from './account.js';
import type { CardPayment, CardPaymentParams, CardPaymentStatusParams, CardPaymentStatusResult } from './credit-card.js';
import type { EibanDeposit, EibanDepositParams, EibanWithdrawal, EibanWithdrawalParams } from './eiban.js';
import type { ManualDeposit, ManualDepositParams, ManualWithdrawal, ManualWithdrawalParams } from './manual.js';
import type { ProviderRequestOptions } from './request-options.js';
import { ProviderThirdParty } from './third-party/index.js';
import { PROVIDER_CALLS } from './tables.js';

// The provider API's resources: what a ProviderClient is made of at construction (ProviderResources,
// below: a new resource is its class and its field there), without zod.
// Each call finds its endpoint row in the tables loaded on the first call (calls.ts),
// so this module imports no module that imports zod: the build would load it with payorch otherwise.

/** Manual bank transactions: IBAN deposits and withdrawals of a site (spec 4.5, 4.6). */
export class ProviderManual extends APIResource {
  /**
   * Starts a manual IBAN deposit; redirect the customer to `data.payment_url`.
   * The end status arrives by deposit callback.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * declare function redirect(url: string): void; // your framework's
   * const { data } = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
   * redirect(data.payment_url);
   * ```
   */
  startDeposit(params: ManualDepositParams, options?: ProviderRequestOptions): APIPromise<ManualDeposit> {
    return this._send(PROVIDER_CALLS, (calls) => calls.manualDepositEndpoint, params, options);
  }

  /**
   * Starts a manual withdrawal to the customer's IBAN; it is `pending` until the withdrawal callback.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.manual.startWithdrawal({
   *   fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', iban: 'TR330006100519786457841326', amount: 100,
   * });
   * ```
   */
  startWithdrawal(params: ManualWithdrawalParams, options?: ProviderRequestOptions): APIPromise<ManualWithdrawal> {
    return this._send(PROVIDER_CALLS, (calls) => calls.manualWithdrawalEndpoint, params, options);
  }
}

/** E-IBAN deposits and withdrawals of a site (spec 4.7). */
export class ProviderEiban extends APIResource {
  /**
   * Starts an E-IBAN deposit; redirect the customer to `data.payment_url`.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.eiban.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 500 });
   * ```
   */
  startDeposit(params: EibanDepositParams, options?: ProviderRequestOptions): APIPromise<EibanDeposit> {
    return this._send(PROVIDER_CALLS, (calls) => calls.eibanDepositEndpoint, params, options);
  }

  /**
   * Starts an E-IBAN withdrawal; it is `pending` until the withdrawal callback.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.eiban.startWithdrawal({
   *   fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', iban: 'TR330006100519786457841326', amount: 100,
   * });
   * ```
   */
  startWithdrawal(params: EibanWithdrawalParams, options?: ProviderRequestOptions): APIPromise<EibanWithdrawal> {
    return this._send(PROVIDER_CALLS, (calls) => calls.eibanWithdrawalEndpoint, params, options);
  }
}

/** Provider card payments (spec 4.8, 4.9). */
export class ProviderCreditCard extends APIResource {
  /**
   * Creates a card payment; redirect the customer to `data.payment_url`. The site credential
   * key travels in the body (spec 5.1 rule 2), taken from the client or the call when left out.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.creditCard.createPayment({
   *   username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150,
   * });
   * ```
   */
  createPayment(params: CardPaymentParams, options: ProviderRequestOptions = {}): APIPromise<CardPayment> {
    return APIPromise.start(() => {
      // Anything but an object goes to the schema as it is, to be refused with a RequestValidationError.
      const credentialKey: unknown =
        typeof params === 'object' && (params as unknown) !== null
          ? (params.credential_key ?? this._requireCredentialKey('creditCard.createPayment', options))
          : undefined;
      const body: unknown = credentialKey === undefined ? params : { ...params, credential_key: credentialKey };
      const secrets = typeof credentialKey === 'string' ? [credentialKey] : [];
      return this._sendAnswered(PROVIDER_CALLS, (calls) => calls.cardPaymentEndpoint, body as z.input<typeof CardPaymentParams>, options, undefined, secrets);
    });
  }

  /**
   * Reads the status of a card payment; safe to repeat, so it retries on transient failures.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * declare function fulfil(): Promise<void>;
   * const { data } = await provider.creditCard.getStatus({ tracking_code: 'CC-k3J9x-1700000000' });
   * if (data.status === 'success') fulfil();
   * ```
   */
  getStatus(params: CardPaymentStatusParams, options?: ProviderRequestOptions): APIPromise<CardPaymentStatusResult> {
    return this._send(PROVIDER_CALLS, (calls) => calls.cardStatusEndpoint, params, options);
  }
}

/** The provider's sites (spec 4.4). */
export class ProviderSites extends APIResource {
  /**
   * Lists the provider's sites; `key` is the additional verification key, sent as X-Key (spec 4.4).
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { sites } = await provider.sites.list({ key: process.env.PAYORCH_SITES_KEY! });
   * ```
   */
  list(params: SiteListParams, options?: ProviderRequestOptions): APIPromise<SiteList> {
    return APIPromise.start(async () => {
      const calls = await PROVIDER_CALLS.load();
      const { key } = parseRequest(calls.listSitesEndpoint.operation, calls.SiteListParams, params);
      return this._sendAnswered(PROVIDER_CALLS, () => calls.listSitesEndpoint, undefined, options, key);
    });
  }
}

/**
 * The parts of a `ProviderClient`, one field per resource, each named as its calls' operation
 * names begin (`manual.startDeposit`), acting for the client's site. The client extends it.
 */
export class ProviderResources extends APIResource {
  /** Manual IBAN deposits and withdrawals (spec 4.5, 4.6). */
  readonly manual = new ProviderManual(this._transport, this._credentialKey);
  /** E-IBAN deposits and withdrawals (spec 4.7). */
  readonly eiban = new ProviderEiban(this._transport, this._credentialKey);
  /** Card payments and their status (spec 4.8, 4.9). */
  readonly creditCard = new ProviderCreditCard(this._transport, this._credentialKey);
  /** Third-party bank, crypto and wallet gateways (spec 4.10 to 4.12). */
  readonly thirdParty = new ProviderThirdParty(this._transport, this._credentialKey);
  /** The provider's sites (spec 4.4). */
  readonly sites = new ProviderSites(this._transport, this._credentialKey);
}
