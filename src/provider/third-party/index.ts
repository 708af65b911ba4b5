import { APIResource } from '../../internal/resource.js';
import type { Transport } from '../../internal/transport.js';
import type { BankChannel } from './channel.js';
import { ThirdPartyChannel } from './channel.js';
import type { CryptoChannel } from './channel.js';
import type { WalletChannel } from './channel.js';

/** Third-party gateways: bank, crypto and wallet channels (spec 4.10 to 4.12). */
export class ProviderThirdParty extends APIResource {
  /** Bank transfers through external gateways (spec 4.10). */
  readonly bank: BankChannel;
  /** Crypto payments through external gateways (spec 4.11). */
  readonly crypto: CryptoChannel;
  /** Wallet payments through external gateways (spec 4.12). */
  readonly wallet: WalletChannel;
  /** @internal */
  constructor(transport: Transport, credentialKey: string | undefined) {
    super(transport, credentialKey);
    this.bank = new ThirdPartyChannel(transport, credentialKey, (calls) => calls.bankEndpoints);
    this.crypto = new ThirdPartyChannel(transport, credentialKey, (calls) => calls.cryptoEndpoints);
    this.wallet = new ThirdPartyChannel(transport, credentialKey, (calls) => calls.walletEndpoints);
  }
}
