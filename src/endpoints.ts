import type { z } from 'zod/mini';
import type { Endpoint } from './core/endpoint.js';
import { dealerCardPaymentEndpoint } from './dealer/credit-card.js';
import { eibanListEndpoint } from './dealer/eibans.js';
import { manualIbanDepositEndpoint, manualIbanWithdrawEndpoint } from './dealer/manual-iban.js';
import { settingsEndpoint } from './dealer/settings.js';
import { transactionListEndpoint } from './dealer/transactions.js';
import { sendMoneyEndpoint, transferStatusEndpoint } from './dealer/transfers.js';
import { listSitesEndpoint, welcomeEndpoint } from './provider/account.js';
import { cardPaymentEndpoint, cardStatusEndpoint } from './provider/credit-card.js';
import { eibanDepositEndpoint, eibanWithdrawEndpoint } from './provider/eiban.js';
import { manualDepositEndpoint, manualWithdrawEndpoint } from './provider/manual.js';
import { bankEndpoints } from './provider/third-party/bank.js';
import { cryptoEndpoints } from './provider/third-party/crypto.js';
import { walletEndpoints } from './provider/third-party/wallet.js';

/*
 * Every endpoint of the spec in one table, in the order of its sections (4.2, 4.13), for what
 * is generated from the endpoints rather than written per endpoint: the CLI's `call`, the
 * OpenAPI document. The clients do not import it (each resource sends its own rows), so the main
 * entry does not carry it.
 */

export type Api = 'provider' | 'dealer';

/** An endpoint row with the API it belongs to. */
export interface ApiEndpoint {
  readonly api: Api;
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
}

const rows = (api: Api, endpoints: readonly Endpoint<z.ZodMiniType, z.ZodMiniType>[]): ApiEndpoint[] => endpoints.map((endpoint) => ({ api, endpoint }));
const channel = (endpoints: typeof bankEndpoints | typeof cryptoEndpoints | typeof walletEndpoints) => [endpoints.deposit, endpoints.gateways, endpoints.withdrawal];

/** The 17 endpoints of the Provider API (spec 4.2) and the 8 of the Dealer API (spec 4.13). */
export const API_ENDPOINTS: readonly ApiEndpoint[] = [
  ...rows('provider', [
    welcomeEndpoint,
    listSitesEndpoint,
    manualDepositEndpoint,
    manualWithdrawEndpoint,
    eibanDepositEndpoint,
    eibanWithdrawEndpoint,
    cardPaymentEndpoint,
    cardStatusEndpoint,
    ...channel(bankEndpoints),
    ...channel(cryptoEndpoints),
    ...channel(walletEndpoints),
  ]),
  ...rows('dealer', [
    settingsEndpoint,
    manualIbanDepositEndpoint,
    manualIbanWithdrawEndpoint,
    eibanListEndpoint,
    transactionListEndpoint,
    sendMoneyEndpoint,
    transferStatusEndpoint,
    dealerCardPaymentEndpoint,
  ]),
];

/** Where an endpoint lives below the base URL: `/api/provider/welcome`. */
export const fullPath = ({ api, endpoint }: ApiEndpoint): string => `/api/${api}${endpoint.path}`;
