import type { ProviderContext } from '../context.js';
import { bankEndpoints } from './bank.js';
import type { BankChannel } from './bank.js';
import { ThirdPartyChannel } from './channel.js';
import { cryptoEndpoints } from './crypto.js';
import type { CryptoChannel } from './crypto.js';
import { walletEndpoints } from './wallet.js';
import type { WalletChannel } from './wallet.js';

/** Third-party gateways: bank, crypto and wallet channels (spec 4.10 to 4.12). */
export class ThirdParty {
  /** Bank transfers through external gateways (spec 4.10). */
  readonly bank: BankChannel;
  /** Crypto payments through external gateways (spec 4.11). */
  readonly crypto: CryptoChannel;
  /** Wallet payments through external gateways (spec 4.12). */
  readonly wallet: WalletChannel;
  /** @internal */
  constructor(context: ProviderContext) {
    this.bank = new ThirdPartyChannel(context, bankEndpoints);
    this.crypto = new ThirdPartyChannel(context, cryptoEndpoints);
    this.wallet = new ThirdPartyChannel(context, walletEndpoints);
  }
}
