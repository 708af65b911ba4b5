import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as z from 'zod/mini';
import type { Endpoint } from '../../src/internal/endpoint.js';
import type { APIPromise, DealerClient, ProviderClient, ProviderRequestOptions } from '../../src/index.js';
import { dealerCardPaymentEndpoint } from '../../src/dealer/credit-card.js';
import { eibanListEndpoint } from '../../src/dealer/eibans.js';
import { manualIbanDepositEndpoint, manualIbanWithdrawEndpoint } from '../../src/dealer/manual-iban.js';
import { settingsEndpoint } from '../../src/dealer/settings.js';
import { transactionListEndpoint } from '../../src/dealer/transactions.js';
import { sendMoneyEndpoint, transferStatusEndpoint } from '../../src/dealer/transfers.js';
import { welcomeEndpoint, listSitesEndpoint } from '../../src/provider/account.js';
import { cardPaymentEndpoint, cardStatusEndpoint } from '../../src/provider/credit-card.js';
import { eibanDepositEndpoint, eibanWithdrawalEndpoint } from '../../src/provider/eiban.js';
import { manualDepositEndpoint, manualWithdrawalEndpoint } from '../../src/provider/manual.js';
import { bankEndpoints } from '../../src/provider/third-party/bank.js';
import { cryptoEndpoints } from '../../src/provider/third-party/crypto.js';
import { walletEndpoints } from '../../src/provider/third-party/wallet.js';

/** One public call of a client: its endpoint row, a valid input, and how to make it. */
export interface ApiCall<C> {
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
  /** Valid parameters, or undefined for a call that takes none. */
  readonly valid: Record<string, unknown> | undefined;
  readonly invoke: (client: C, params: never, options?: ProviderRequestOptions) => APIPromise<unknown>;
}
export type ProviderCall = ApiCall<ProviderClient>;
export type DealerCall = ApiCall<DealerClient>;

const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';

/** Every call of the ProviderClient; `definedOperations('provider')` proves that none is missing. */
export const PROVIDER_CALLS: readonly ProviderCall[] = [
  { endpoint: welcomeEndpoint, valid: undefined, invoke: (client, _params, options) => client.welcome(options) },
  { endpoint: listSitesEndpoint, valid: { key: 'x-key-0123456789' }, invoke: (client, params, options) => client.listSites(params, options) },
  { endpoint: manualDepositEndpoint, valid: { ...customer, amount: 250 }, invoke: (client, params, options) => client.manual.startDeposit(params, options) },
  { endpoint: manualWithdrawalEndpoint, valid: { ...customer, iban, amount: 100 }, invoke: (client, params, options) => client.manual.startWithdrawal(params, options) },
  { endpoint: eibanDepositEndpoint, valid: { ...customer, amount: 250 }, invoke: (client, params, options) => client.eiban.startDeposit(params, options) },
  { endpoint: eibanWithdrawalEndpoint, valid: { ...customer, iban, amount: 100 }, invoke: (client, params, options) => client.eiban.startWithdrawal(params, options) },
  {
    endpoint: cardPaymentEndpoint,
    valid: { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 },
    invoke: (client, params, options) => client.creditCard.createPayment(params, options),
  },
  { endpoint: cardStatusEndpoint, valid: { tracking_code: 'CC-k3J9x-1763812000' }, invoke: (client, params, options) => client.creditCard.getStatus(params, options) },
  { endpoint: bankEndpoints.deposit, valid: { ...customer, amount: 300 }, invoke: (client, params, options) => client.thirdParty.bank.startDeposit(params, options) },
  { endpoint: bankEndpoints.gateways, valid: undefined, invoke: (client, _params, options) => client.thirdParty.bank.listGateways(options) },
  {
    endpoint: bankEndpoints.withdrawal,
    valid: { ...customer, amount: 300, gateway_id: 1, iban },
    invoke: (client, params, options) => client.thirdParty.bank.startWithdrawal(params, options),
  },
  { endpoint: cryptoEndpoints.deposit, valid: { ...customer, amount: 300 }, invoke: (client, params, options) => client.thirdParty.crypto.startDeposit(params, options) },
  { endpoint: cryptoEndpoints.gateways, valid: undefined, invoke: (client, _params, options) => client.thirdParty.crypto.listGateways(options) },
  {
    endpoint: cryptoEndpoints.withdrawal,
    valid: { ...customer, amount: 300, gateway_id: 2, crypto_type: 'USDT (TRC20)', wallet_address: 'TXyz' },
    invoke: (client, params, options) => client.thirdParty.crypto.startWithdrawal(params, options),
  },
  { endpoint: walletEndpoints.deposit, valid: { ...customer, amount: 300 }, invoke: (client, params, options) => client.thirdParty.wallet.startDeposit(params, options) },
  { endpoint: walletEndpoints.gateways, valid: undefined, invoke: (client, _params, options) => client.thirdParty.wallet.listGateways(options) },
  {
    endpoint: walletEndpoints.withdrawal,
    valid: { ...customer, amount: 300, gateway_id: 3, wallet_number: 'W-1' },
    invoke: (client, params, options) => client.thirdParty.wallet.startWithdrawal(params, options),
  },
];

/** Every call of the DealerClient; `definedOperations('dealer')` proves that none is missing. */
export const DEALER_CALLS: readonly DealerCall[] = [
  { endpoint: settingsEndpoint, valid: undefined, invoke: (client, _params, options) => client.getSettings(options) },
  {
    endpoint: manualIbanDepositEndpoint,
    valid: { username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 250 },
    invoke: (client, params, options) => client.manualIban.deposit(params, options),
  },
  {
    endpoint: manualIbanWithdrawEndpoint,
    valid: { username: 'ada', userid: 'u-1', amount: 100, recipient_name: 'Ada Yılmaz', recipient_iban: iban },
    invoke: (client, params, options) => client.manualIban.withdraw(params, options),
  },
  { endpoint: eibanListEndpoint, valid: undefined, invoke: (client, _params, options) => client.eibans.list(options) },
  {
    endpoint: transactionListEndpoint,
    valid: { wallet_id: 'W-1', start_date: '2026-11-20', end_date: '2026-11-22', page: 2 },
    invoke: (client, params, options) => client.transactions.list(params, options),
  },
  {
    endpoint: sendMoneyEndpoint,
    valid: { wallet_id: 'W-1', recipient_iban: iban, recipient_name: 'Ada Yılmaz', amount: 10, description: 'refund' },
    invoke: (client, params, options) => client.transfers.send(params, options),
  },
  { endpoint: transferStatusEndpoint, valid: { transfer_id: 'TRF-a1b2' }, invoke: (client, params, options) => client.transfers.getStatus(params, options) },
  {
    endpoint: dealerCardPaymentEndpoint,
    valid: { username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.com', phone: '+905551112233', amount: 200 },
    invoke: (client, params, options) => client.creditCard.createPayment(params, options),
  },
];

/** The operation names of every endpoint row the modules of `src/<area>/` export, found by reading them. */
export async function definedOperations(area: 'provider' | 'dealer'): Promise<string[]> {
  const root = fileURLToPath(new URL(`../../src/${area}/`, import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const operations = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 1) return;
    const row = value as Partial<Endpoint<z.ZodMiniType, z.ZodMiniType>>;
    if (typeof row.operation === 'string' && typeof row.path === 'string' && row.params !== undefined) operations.add(row.operation);
    else for (const nested of Object.values(value)) visit(nested, depth + 1);
  };
  for (const file of files) {
    const module = (await import(pathToFileURL(join(root, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) visit(value, 0);
  }
  return [...operations].sort();
}

/** Calls that create a money movement: never resent once the service may have seen them. */
export const PAYMENT_CALLS = PROVIDER_CALLS.filter((call) => !call.endpoint.resendable);
export const DEALER_PAYMENT_CALLS = DEALER_CALLS.filter((call) => !call.endpoint.resendable);
