import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import type { Endpoint } from '../../src/core/endpoint.js';
import type { ProviderClient, ProviderRequestOptions } from '../../src/index.js';
import { welcomeEndpoint, listSitesEndpoint } from '../../src/provider/account.js';
import { cardPaymentEndpoint, cardStatusEndpoint } from '../../src/provider/credit-card.js';
import { eibanDepositEndpoint, eibanWithdrawEndpoint } from '../../src/provider/eiban.js';
import { manualDepositEndpoint, manualWithdrawEndpoint } from '../../src/provider/manual.js';
import { bankEndpoints } from '../../src/provider/third-party/bank.js';
import { cryptoEndpoints } from '../../src/provider/third-party/crypto.js';
import { walletEndpoints } from '../../src/provider/third-party/wallet.js';

/** One public call of the ProviderClient: its endpoint row, a valid input, and how to make it. */
export interface ProviderCall {
  readonly endpoint: Endpoint<z.ZodType, z.ZodType>;
  /** Valid parameters, or undefined for a call that takes none. */
  readonly valid: Record<string, unknown> | undefined;
  readonly invoke: (client: ProviderClient, params: never, options?: ProviderRequestOptions) => Promise<unknown>;
}

const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';

/** Every call of the ProviderClient; `definedProviderOperations()` proves that none is missing. */
export const PROVIDER_CALLS: readonly ProviderCall[] = [
  { endpoint: welcomeEndpoint, valid: undefined, invoke: (client, _params, options) => client.welcome(options) },
  { endpoint: listSitesEndpoint, valid: { key: 'x-key-0123456789' }, invoke: (client, params, options) => client.listSites(params, options) },
  { endpoint: manualDepositEndpoint, valid: { ...customer, amount: 250 }, invoke: (client, params, options) => client.manual.startDeposit(params, options) },
  { endpoint: manualWithdrawEndpoint, valid: { ...customer, iban, amount: 100 }, invoke: (client, params, options) => client.manual.startWithdraw(params, options) },
  { endpoint: eibanDepositEndpoint, valid: { ...customer, amount: 250 }, invoke: (client, params, options) => client.eiban.startDeposit(params, options) },
  { endpoint: eibanWithdrawEndpoint, valid: { ...customer, iban, amount: 100 }, invoke: (client, params, options) => client.eiban.startWithdraw(params, options) },
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

/** The operation names of every endpoint row the provider modules export, found by reading them. */
export async function definedProviderOperations(): Promise<string[]> {
  const root = fileURLToPath(new URL('../../src/provider/', import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const operations = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 1) return;
    const row = value as Partial<Endpoint<z.ZodType, z.ZodType>>;
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
export const PAYMENT_CALLS = PROVIDER_CALLS.filter((call) => !call.endpoint.readOnly);
