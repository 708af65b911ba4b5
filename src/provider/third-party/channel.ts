import type { z } from 'zod/mini';
import type { APIPromise } from '../../core/api-promise.js';
import type { Endpoint } from '../../internal/endpoint.js';
import { APIResource } from '../../internal/resource.js';
import type { Transport } from '../../internal/transport.js';
import type { ProviderRequestOptions } from '../request-options.js';
import { PROVIDER_CALLS } from '../tables.js';
import type { ProviderCalls } from '../tables.js';
import type { GatewayList } from './gateways.js';
import type { NoParams } from '../../internal/shared-shapes.js';
import type { BankDepositParams, BankWithdrawalParams } from './bank.js';
import type { CryptoDepositParams, CryptoWithdrawalParams } from './crypto.js';
import type { ThirdPartyDeposit, ThirdPartyWithdrawal } from './records.js';
import type { WalletDepositParams, WalletWithdrawalParams } from './wallet.js';

/** The three endpoints of one third-party channel (bank, crypto or wallet). No entry exports it. */
export interface ChannelEndpoints<DP extends z.ZodMiniType, DR extends z.ZodMiniType, WP extends z.ZodMiniType, WR extends z.ZodMiniType> {
  readonly deposit: Endpoint<DP, DR>;
  readonly gateways: Endpoint<typeof NoParams, typeof GatewayList>;
  readonly withdrawal: Endpoint<WP, WR>;
}

/** The gateways of one third-party channel (spec 2.5). */
export class ThirdPartyGateways extends APIResource {
  readonly #endpoint: (calls: ProviderCalls) => Endpoint<typeof NoParams, typeof GatewayList>;
  /** @internal */
  constructor(transport: Transport, credentialKey: string | undefined, endpoint: (calls: ProviderCalls) => Endpoint<typeof NoParams, typeof GatewayList>) {
    super(transport, credentialKey);
    this.#endpoint = endpoint;
  }

  /**
   * Lists the gateways a withdrawal may use, with their amount bounds and required fields.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.thirdParty.crypto.gateways.list();
   * const gateway = data.gateways.find((g) => g.supported_crypto_types?.includes('USDT (TRC20)'));
   * ```
   */
  list(options?: ProviderRequestOptions): APIPromise<GatewayList> {
    return this._send(PROVIDER_CALLS, this.#endpoint, undefined, options);
  }
}

/**
 * A third-party channel: deposits through a tracking page where the customer picks a gateway,
 * and withdrawals through a gateway chosen from `gateways.list()` (spec 4.10 to 4.12).
 */
export class ThirdPartyChannel<DP extends z.ZodMiniType, DR extends z.ZodMiniType, WP extends z.ZodMiniType, WR extends z.ZodMiniType> extends APIResource {
  /** The gateways a withdrawal may use (spec 2.5). */
  readonly gateways: ThirdPartyGateways;
  readonly #endpoints: (calls: ProviderCalls) => ChannelEndpoints<DP, DR, WP, WR>;
  /** @internal */
  constructor(transport: Transport, credentialKey: string | undefined, endpoints: (calls: ProviderCalls) => ChannelEndpoints<DP, DR, WP, WR>) {
    super(transport, credentialKey);
    this.#endpoints = endpoints;
    this.gateways = new ThirdPartyGateways(transport, credentialKey, (calls) => endpoints(calls).gateways);
  }

  /**
   * Starts a deposit; redirect the customer to `data.payment_url`, where they choose how to pay.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.thirdParty.bank.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 300 });
   * ```
   */
  startDeposit(params: z.input<DP>, options?: ProviderRequestOptions): APIPromise<z.output<DR>> {
    return this._send(PROVIDER_CALLS, (calls) => this.#endpoints(calls).deposit, params, options);
  }

  /**
   * Starts a withdrawal through a gateway of `gateways.list()`.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.thirdParty.bank.startWithdrawal({
   *   fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 300, gateway_id: 1, iban: 'TR330006100519786457841326',
   * });
   * ```
   */
  startWithdrawal(params: z.input<WP>, options?: ProviderRequestOptions): APIPromise<z.output<WR>> {
    return this._send(PROVIDER_CALLS, (calls) => this.#endpoints(calls).withdrawal, params, options);
  }
}

/** The bank channel's calls: `provider.thirdParty.bank`. */
export interface BankChannel extends ThirdPartyChannel<typeof BankDepositParams, typeof ThirdPartyDeposit, typeof BankWithdrawalParams, typeof ThirdPartyWithdrawal> {}

/** The crypto channel's calls: `provider.thirdParty.crypto`. */
export interface CryptoChannel extends ThirdPartyChannel<typeof CryptoDepositParams, typeof ThirdPartyDeposit, typeof CryptoWithdrawalParams, typeof ThirdPartyWithdrawal> {}

/** The wallet channel's calls: `provider.thirdParty.wallet`. */
export interface WalletChannel extends ThirdPartyChannel<typeof WalletDepositParams, typeof ThirdPartyDeposit, typeof WalletWithdrawalParams, typeof ThirdPartyWithdrawal> {}
