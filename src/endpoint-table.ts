import type { z } from 'zod/mini';
import { apiPath } from './internal/endpoint.js';
import type { Api } from './core/api.js';
import type { Endpoint } from './internal/endpoint.js';
import { dealerCardPaymentEndpoint } from './dealer/credit-card.js';
import { eibanListEndpoint } from './dealer/eibans.js';
import { manualIbanDepositEndpoint, manualIbanWithdrawEndpoint } from './dealer/manual-iban.js';
import { settingsEndpoint } from './dealer/settings.js';
import { transactionListEndpoint } from './dealer/transactions.js';
import { sendMoneyEndpoint, transferStatusEndpoint } from './dealer/transfers.js';
import { listSitesEndpoint, welcomeEndpoint } from './provider/account.js';
import { cardPaymentEndpoint, cardStatusEndpoint } from './provider/credit-card.js';
import { eibanDepositEndpoint, eibanWithdrawalEndpoint } from './provider/eiban.js';
import { manualDepositEndpoint, manualWithdrawalEndpoint } from './provider/manual.js';
import { bankEndpoints } from './provider/third-party/bank.js';
import { cryptoEndpoints } from './provider/third-party/crypto.js';
import { walletEndpoints } from './provider/third-party/wallet.js';
import {
  BANK_ACCOUNT_HOLDER,
  CARD_STATUS_HASH,
  CRYPTO_WALLET_DEPOSIT_BODY,
  CRYPTO_WALLET_HASH,
  CRYPTO_WALLET_MINIMUM,
  DEALER_CARD_CONTACT,
  DEALER_CODE_FIELD,
  DEALER_CODE_STATUS,
  DEALER_GET,
  DEALER_MANUAL_MINIMUM,
  DEALER_POST,
  DEALER_RECIPIENT_IBAN,
  EIBAN_THIRD_PARTY_METHOD,
  EMPTY_BODY_CONTENT_TYPE,
  GATEWAY_BOUNDS,
  GATEWAY_ID_RANGE,
  RECIPIENT_IBAN_LENGTH,
  TRANSACTION_RANGE,
  WALLET_ACCOUNT_HOLDER,
} from './spec-gaps.js';
import type { SpecGap } from './spec-gaps.js';

/*
 * Every endpoint of the spec in one table, in the order of its sections (4.2, 4.13), for what
 * is generated from the endpoints rather than written per endpoint: the sandbox's routes, the
 * CLI's `call`, the OpenAPI document and its notes, the endpoint tables of docs/spec-gaps.md.
 * The clients do not import it (each resource sends its own rows), so the main entry does not
 * carry it, nor the gap texts.
 */

/** An endpoint row with the API it belongs to and what the spec does not show about it. */
export interface ApiEndpoint {
  readonly api: Api;
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
  readonly gaps: readonly SpecGap[];
}

const provider = (endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>, ...gaps: SpecGap[]): ApiEndpoint => ({ api: 'provider', endpoint, gaps });
const dealer = (endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>, ...gaps: SpecGap[]): ApiEndpoint => ({ api: 'dealer', endpoint, gaps });

/** The three endpoints of a third-party channel; crypto and wallet add the gaps the bank samples fill. */
const channel = (endpoints: typeof bankEndpoints | typeof cryptoEndpoints | typeof walletEndpoints, ...withdrawalGaps: SpecGap[]): ApiEndpoint[] => {
  const guessed = endpoints === bankEndpoints ? [] : [CRYPTO_WALLET_HASH, CRYPTO_WALLET_MINIMUM];
  return [
    provider(endpoints.deposit, EIBAN_THIRD_PARTY_METHOD, ...guessed, ...(endpoints === bankEndpoints ? [] : [CRYPTO_WALLET_DEPOSIT_BODY])),
    provider(endpoints.gateways, EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE),
    provider(endpoints.withdrawal, EIBAN_THIRD_PARTY_METHOD, ...guessed, GATEWAY_ID_RANGE, GATEWAY_BOUNDS, ...withdrawalGaps),
  ];
};

/** Every endpoint of the Provider API (spec 4.2) and of the Dealer API (spec 4.13). */
export const API_ENDPOINTS: readonly ApiEndpoint[] = [
  provider(welcomeEndpoint, EMPTY_BODY_CONTENT_TYPE),
  provider(listSitesEndpoint, EMPTY_BODY_CONTENT_TYPE),
  provider(manualDepositEndpoint),
  provider(manualWithdrawalEndpoint),
  provider(eibanDepositEndpoint, EIBAN_THIRD_PARTY_METHOD),
  provider(eibanWithdrawalEndpoint, EIBAN_THIRD_PARTY_METHOD, RECIPIENT_IBAN_LENGTH),
  provider(cardPaymentEndpoint),
  provider(cardStatusEndpoint, CARD_STATUS_HASH),
  ...channel(bankEndpoints, RECIPIENT_IBAN_LENGTH, BANK_ACCOUNT_HOLDER),
  ...channel(cryptoEndpoints),
  ...channel(walletEndpoints, WALLET_ACCOUNT_HOLDER),
  dealer(settingsEndpoint, DEALER_GET),
  dealer(manualIbanDepositEndpoint, DEALER_POST, DEALER_MANUAL_MINIMUM),
  dealer(manualIbanWithdrawEndpoint, DEALER_POST, DEALER_MANUAL_MINIMUM, DEALER_RECIPIENT_IBAN),
  dealer(eibanListEndpoint, DEALER_GET),
  dealer(transactionListEndpoint, TRANSACTION_RANGE, DEALER_CODE_FIELD, DEALER_CODE_STATUS),
  dealer(sendMoneyEndpoint, DEALER_POST, DEALER_RECIPIENT_IBAN, DEALER_CODE_FIELD, DEALER_CODE_STATUS),
  dealer(transferStatusEndpoint),
  dealer(dealerCardPaymentEndpoint, DEALER_POST, DEALER_CARD_CONTACT),
];

/** Where an endpoint lives below the base URL: `/api/provider/welcome`. */
export const fullPath = ({ api, endpoint }: Pick<ApiEndpoint, 'api' | 'endpoint'>): string => `${apiPath(api)}${endpoint.path}`;
