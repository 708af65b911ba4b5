import { APIResource } from '../../internal/resource.js';
import type { Transport } from '../../internal/transport.js';
import { bankEndpoints } from './bank.js';
import type { BankChannel } from './bank.js';
import { ThirdPartyChannel } from './channel.js';
import { cryptoEndpoints } from './crypto.js';
import type { CryptoChannel } from './crypto.js';
import { walletEndpoints } from './wallet.js';
import type { WalletChannel } from './wallet.js';

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
    this.bank = new ThirdPartyChannel(transport, credentialKey, bankEndpoints);
    this.crypto = new ThirdPartyChannel(transport, credentialKey, cryptoEndpoints);
    this.wallet = new ThirdPartyChannel(transport, credentialKey, walletEndpoints);
  }
}
