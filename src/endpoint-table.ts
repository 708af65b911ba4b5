import type { z } from 'zod/mini';
import { apiPath } from './internal/endpoint.js';
import type { Api } from './core/api.js';
import type { DealerErrorCode } from './errors/api-error.js';
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
 * The registry: every endpoint of the spec in one table, in the order of its sections (4.2,
 * 4.13), with what every reader of an endpoint needs beside its client row (src/provider,
 * src/dealer: operation name, method, path, hash, `resendable`, schemas). The sandbox routes by
 * it, `payorch call` runs it, the OpenAPI document and docs/spec-gaps.md are generated from it,
 * and every test that needs "every endpoint" iterates it: a new endpoint is one row here. The
 * clients do not import it (each resource sends its own row), so the main entry carries neither
 * the examples nor the gap texts.
 */

/** What a client method takes for a request: the site credential key of a card payment may be left to the client (spec 5.1 rule 2). */
type MethodParams<T> = T extends { readonly credential_key: string } ? Omit<T, 'credential_key'> & { readonly credential_key?: string } : T;

/** A valid call of an endpoint and a success answer, typed by its schemas: what tests send and the OpenAPI examples show. */
export interface EndpointExample<P extends z.ZodMiniType, R extends z.ZodMiniType> {
  /** The parameters the client method takes; left out for a call that takes none. */
  readonly params?: MethodParams<z.input<P>>;
  /** The X-Key of a call signed with the key hash (spec 5.1): its client method takes `{ key }`. */
  readonly key?: string;
  /** A success answer with the spec's types, as the service sends it. */
  readonly answer: z.input<R>;
}

/** What a row says besides its endpoint: an example, the gaps of the spec it meets, its error codes. */
export interface RowSpec<P extends z.ZodMiniType, R extends z.ZodMiniType> extends EndpointExample<P, R> {
  /** What the spec does not show about the endpoint (docs/spec-gaps.md). */
  readonly gaps?: readonly SpecGap[];
  /** The dealer error codes of spec 7.4 it answers with (the Endpoint column of its table). */
  readonly codes?: readonly DealerErrorCode[];
}

/** An endpoint row with the API it belongs to and what the readers of the registry need of it. */
export interface ApiEndpoint {
  readonly api: Api;
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
  readonly example: EndpointExample<z.ZodMiniType, z.ZodMiniType>;
  readonly gaps: readonly SpecGap[];
  readonly codes: readonly DealerErrorCode[];
}

const row =
  (api: Api) =>
  <P extends z.ZodMiniType, R extends z.ZodMiniType>(endpoint: Endpoint<P, R>, { gaps = [], codes = [], ...example }: RowSpec<P, R>): ApiEndpoint => ({ api, endpoint, example, gaps, codes });
const provider = row('provider');
const dealer = row('dealer');

const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const site = { id: 7, name: 'shop.example' };
const iban = 'TR330006100519786457841326';
/** The gaps of crypto and wallet that the bank samples fill (spec 4.11, 4.12). */
const GUESSED = [CRYPTO_WALLET_HASH, CRYPTO_WALLET_MINIMUM];
/** The gaps of every third-party withdrawal, after those a channel's samples leave (spec 2.5, 4.10 to 4.12). */
const GATEWAY_GAPS = [GATEWAY_ID_RANGE, GATEWAY_BOUNDS];

/** Every endpoint of the Provider API (spec 4.2) and of the Dealer API (spec 4.13). */
export const API_ENDPOINTS: readonly ApiEndpoint[] = [
  provider(welcomeEndpoint, {
    gaps: [EMPTY_BODY_CONTENT_TYPE],
    answer: {
      success: true,
      message: 'Welcome, Demo Payments Ltd.',
      info: 'Your API key, hash and IP address were accepted.',
      next_step: 'List your sites with POST /sites and the X-Key header.',
      provider: { id: 12, name: 'Demo Payments Ltd.', is_active: true },
      timestamp: '2025-11-22 11:52:25',
    },
  }),
  provider(listSitesEndpoint, {
    gaps: [EMPTY_BODY_CONTENT_TYPE],
    key: 'x-key-0123456789',
    answer: {
      success: true,
      provider: { id: 12, name: 'Demo Payments Ltd.' },
      total_sites: 2,
      sites: [
        { ...site, is_active: true, created_at: '2025-01-10 09:30:00' },
        { id: 8, name: 'casino.example', is_active: false, created_at: '2025-03-02 16:05:41' },
      ],
      timestamp: '2025-11-22 11:52:25',
    },
  }),
  provider(manualDepositEndpoint, {
    params: { ...customer, amount: 250 },
    answer: {
      success: true,
      message: 'Deposit request created',
      data: {
        tracking_code: 'MAN-a8Xk29Qp-1763812000',
        payment_url: 'https://pay.example.com/deposit/MAN-a8Xk29Qp-1763812000',
        site,
        customer,
        amount: 250,
        status: 'showing',
        expires_at: '2025-11-22 12:22:25',
        created_at: '2025-11-22 11:52:25',
      },
      timestamp: '2025-11-22 11:52:25',
    },
  }),
  provider(manualWithdrawalEndpoint, {
    params: { ...customer, iban, amount: 100 },
    answer: {
      success: true,
      message: 'Withdrawal request created',
      data: { tracking_code: 'WIT-m3Np8Z-1763812002', site, customer, iban, amount: 100, status: 'pending', created_at: '2025-11-22 11:52:25' },
      timestamp: '2025-11-22 11:52:25',
    },
  }),
  provider(eibanDepositEndpoint, {
    gaps: [EIBAN_THIRD_PARTY_METHOD],
    params: { ...customer, amount: 500 },
    answer: {
      success: true,
      message: 'E-IBAN deposit created',
      data: {
        tracking_code: 'EIBAN-r5Tq1B-1763812003',
        payment_url: 'https://pay.example.com/eiban/EIBAN-r5Tq1B-1763812003',
        site,
        customer,
        amount: 500,
        status: 'showing',
        expires_at: '2025-11-22 12:22:25',
      },
    },
  }),
  provider(eibanWithdrawalEndpoint, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, RECIPIENT_IBAN_LENGTH],
    params: { ...customer, iban, amount: 100 },
    answer: { success: true, message: 'E-IBAN withdrawal created', data: { tracking_code: 'EIBAN-WIT-h8Jd2K-1763812004', site, customer, iban, amount: 100, status: 'pending' } },
  }),
  provider(cardPaymentEndpoint, {
    params: { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 },
    answer: {
      success: true,
      message: 'Payment created',
      data: { tracking_code: 'CC-p4Lm8-1763812100', payment_url: 'https://pay.example.com/card/CC-p4Lm8-1763812100', order_id: 'ORD-55', amount: 150, currency: 'TRY' },
    },
  }),
  provider(cardStatusEndpoint, {
    gaps: [CARD_STATUS_HASH],
    params: { tracking_code: 'CC-p4Lm8-1763812100' },
    answer: {
      success: true,
      data: {
        tracking_code: 'CC-p4Lm8-1763812100',
        order_id: 'ORD-55',
        status: 'success',
        amount: 150,
        currency: 'TRY',
        username: 'ada',
        user_id: 'u-1',
        created_at: '2025-11-22T11:55:00+00:00',
        updated_at: '2025-11-22T11:56:10+00:00',
      },
    },
  }),
  provider(bankEndpoints.deposit, {
    gaps: [EIBAN_THIRD_PARTY_METHOD],
    params: { ...customer, amount: 300 },
    answer: {
      success: true,
      message: 'Third-party bank deposit created',
      data: {
        tracking_code: 'TPBD-c2Vb6N-1763812200',
        payment_url: 'https://pay.example.com/track/TPBD-c2Vb6N-1763812200',
        type: 'third_party_bank_deposit',
        payment_method: 'bank',
        site,
        customer,
        amount: 300,
        status: 'showing',
        expires_at: '2025-11-22 12:22:25',
        created_at: '2025-11-22 11:52:25',
      },
      timestamp: '2025-11-22 11:52:25',
    },
  }),
  provider(bankEndpoints.gateways, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE],
    answer: {
      success: true,
      data: {
        gateways: [
          { id: 1, name: 'Havale Express', code: 'havale_x', min_amount: 100, max_amount: 50000, required_fields: ['iban', 'account_holder'], description: 'Same-day bank transfers' },
          { id: 2, name: 'FAST Bridge', code: 'fast_bridge', min_amount: 50, max_amount: 25000, required_fields: ['iban', 'account_holder'] },
        ],
        count: 2,
      },
    },
  }),
  provider(bankEndpoints.withdrawal, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GATEWAY_GAPS, RECIPIENT_IBAN_LENGTH, BANK_ACCOUNT_HOLDER],
    params: { ...customer, amount: 300, gateway_id: 1, iban, account_holder: 'Ada Yılmaz' },
    answer: {
      success: true,
      message: 'Third-party bank withdrawal created',
      data: {
        tracking_code: 'TPBW-d3Wc7M-1763812201',
        type: 'third_party_bank_withdrawal',
        payment_method: 'bank',
        site,
        customer,
        amount: 300,
        status: 'showing',
        created_at: '2025-11-22 11:52:25',
      },
      timestamp: '2025-11-22 11:52:25',
    },
  }),
  provider(cryptoEndpoints.deposit, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GUESSED, CRYPTO_WALLET_DEPOSIT_BODY],
    params: { ...customer, amount: 1000 },
    answer: {
      success: true,
      message: 'Third-party crypto deposit created',
      data: {
        tracking_code: 'TPCD-e4Xd8L-1763812202',
        payment_url: 'https://pay.example.com/track/TPCD-e4Xd8L-1763812202',
        type: 'third_party_crypto_deposit',
        payment_method: 'crypto',
        amount: 1000,
        status: 'showing',
        expires_at: '2025-11-22 12:52:25',
      },
    },
  }),
  provider(cryptoEndpoints.gateways, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE],
    answer: {
      success: true,
      data: {
        gateways: [
          {
            id: 11,
            name: 'CoinPay',
            code: 'coinpay',
            min_amount: 10,
            max_amount: 100000,
            required_fields: ['crypto_type', 'wallet_address'],
            supported_crypto_types: ['BTC', 'ETH', 'USDT (TRC20)', 'USDT (ERC20)'],
            description: 'Crypto payouts',
          },
        ],
        count: 1,
      },
    },
  }),
  provider(cryptoEndpoints.withdrawal, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GUESSED, ...GATEWAY_GAPS],
    params: { ...customer, amount: 250, gateway_id: 11, crypto_type: 'USDT (TRC20)', wallet_address: 'TXyz8kP2cWq4rVb9mN3sL6tH1gF5dA7eJ0' },
    answer: {
      success: true,
      message: 'Third-party crypto withdrawal created',
      data: { tracking_code: 'TPCW-f5Ye9K-1763812203', type: 'third_party_crypto_withdrawal', payment_method: 'crypto', amount: 250, status: 'showing' },
    },
  }),
  provider(walletEndpoints.deposit, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GUESSED, CRYPTO_WALLET_DEPOSIT_BODY],
    params: { ...customer, amount: 75 },
    answer: {
      success: true,
      message: 'Third-party wallet deposit created',
      data: {
        tracking_code: 'TPWD-g6Zf1J-1763812204',
        payment_url: 'https://pay.example.com/track/TPWD-g6Zf1J-1763812204',
        type: 'third_party_wallet_deposit',
        payment_method: 'wallet',
        amount: 75,
        status: 'showing',
      },
    },
  }),
  provider(walletEndpoints.gateways, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE],
    answer: {
      success: true,
      data: {
        gateways: [
          { id: 21, name: 'PapelWallet', code: 'papel', min_amount: 1, max_amount: 20000, required_fields: ['wallet_number'], description: 'Wallet payouts' },
          { id: 22, name: 'PepWallet', code: 'pep', min_amount: 5, max_amount: 10000, required_fields: ['wallet_number', 'account_holder'] },
        ],
        count: 2,
      },
    },
  }),
  provider(walletEndpoints.withdrawal, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GUESSED, ...GATEWAY_GAPS, WALLET_ACCOUNT_HOLDER],
    params: { ...customer, amount: 60, gateway_id: 21, wallet_number: '5551234567' },
    answer: {
      success: true,
      message: 'Third-party wallet withdrawal created',
      data: { tracking_code: 'TPWW-h7Ag2H-1763812205', type: 'third_party_wallet_withdrawal', payment_method: 'wallet', amount: 60, status: 'showing' },
    },
  }),
  dealer(settingsEndpoint, {
    gaps: [DEALER_GET],
    answer: { success: true, message: 'Welcome, Demo Dealer', dealer_name: 'Demo Dealer', payment_methods: { credit_card: 'active', eiban: 'active', manual_iban: 'inactive' } },
  }),
  dealer(manualIbanDepositEndpoint, {
    gaps: [DEALER_POST, DEALER_MANUAL_MINIMUM],
    params: { username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 1500 },
    answer: {
      success: true,
      message: 'IBAN assigned',
      data: {
        tracking_code: 'DEP-k8Bh3G-1763812300',
        bank_name: 'Demo Bank',
        account_name: 'Demo Dealer Ltd.',
        iban_no: iban,
        amount: 1500,
        formatted_iban: 'TR33 0006 1005 1978 6457 8413 26',
      },
    },
  }),
  dealer(manualIbanWithdrawEndpoint, {
    gaps: [DEALER_POST, DEALER_MANUAL_MINIMUM, DEALER_RECIPIENT_IBAN],
    params: { username: 'ada', userid: 'u-1', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: iban },
    answer: {
      success: true,
      message: 'Withdrawal request received',
      data: { tracking_code: 'WDR-n1Dj5E-1763812302', status: 'pending', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: iban },
    },
  }),
  dealer(eibanListEndpoint, {
    gaps: [DEALER_GET],
    answer: {
      success: true,
      dealer_name: 'Demo Dealer',
      total_eibans: 1,
      eibans: [
        { id: 1, iban_no: iban, bank_name: 'Demo Bank', account_name: 'Demo Dealer Ltd.', wallet_id: 'WLT-1', balance: '75000.00', available_balance: '73500.00' },
      ],
    },
  }),
  dealer(transactionListEndpoint, {
    gaps: [TRANSACTION_RANGE, DEALER_CODE_FIELD, DEALER_CODE_STATUS],
    codes: ['DATE_RANGE_EXCEEDED', 'INVALID_DATE_RANGE', 'WALLET_NOT_ASSIGNED'],
    params: { wallet_id: 'WLT-1', start_date: '2026-03-01', end_date: '2026-03-03' },
    answer: {
      success: true,
      dealer_name: 'Demo Dealer',
      wallet_id: 'WLT-1',
      date_range: { start_date: '2026-03-01', end_date: '2026-03-03' },
      pagination: { current_page: 1, per_page: 100, total_records: 1, total_pages: 1, has_more: false },
      transactions: [
        {
          transactionId: 'TX-1001',
          amount: '1500.00',
          type: 'incoming',
          description: 'Deposit DEP-k8Bh3G',
          senderName: 'Ada Yılmaz',
          senderIban: iban,
          date: '2026-03-01T14:05:00',
        },
      ],
    },
  }),
  dealer(sendMoneyEndpoint, {
    gaps: [DEALER_POST, DEALER_RECIPIENT_IBAN, DEALER_CODE_FIELD, DEALER_CODE_STATUS],
    codes: ['WALLET_NOT_ASSIGNED', 'INSUFFICIENT_BALANCE', 'INVALID_IBAN', 'MIN_AMOUNT_ERROR'],
    params: { wallet_id: 'WLT-1', recipient_iban: iban, recipient_name: 'Ada Yılmaz', amount: 250, description: 'Payout 42' },
    answer: {
      success: true,
      message: 'Transfer started',
      transfer: { transfer_id: 'TRF-8fK2pQ', status: 'pending', amount: '250.00', recipient_iban: iban, recipient_name: 'Ada Yılmaz', created_at: '2026-03-02T09:00:00' },
    },
  }),
  dealer(transferStatusEndpoint, {
    params: { transfer_id: 'TRF-8fK2pQ' },
    answer: {
      success: true,
      dealer_name: 'Demo Dealer',
      transfer: {
        transfer_id: 'TRF-8fK2pQ',
        status: 'completed',
        amount: '250.00',
        recipient_iban: iban,
        recipient_name: 'Ada Yılmaz',
        description: 'Payout 42',
        created_at: '2026-03-02T09:00:00',
        completed_at: '2026-03-02T09:03:12',
      },
    },
  }),
  dealer(dealerCardPaymentEndpoint, {
    gaps: [DEALER_POST, DEALER_CARD_CONTACT],
    params: { username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.com', phone: '+905551112233', amount: 450 },
    answer: {
      success: true,
      message: 'Payment created',
      data: { tracking_code: 'CC-k3J9x-1763812400', payment_url: 'https://pay.example.com/card/CC-k3J9x-1763812400', order_id: 'ORD-77', amount: 450, currency: 'TRY' },
    },
  }),
];

/** Where an endpoint lives below the base URL: `/api/provider/welcome`. */
export const fullPath = ({ api, endpoint }: Pick<ApiEndpoint, 'api' | 'endpoint'>): string => `${apiPath(api)}${endpoint.path}`;

/** The registry's name of a row, its API first: `provider.manual.startDeposit`. */
export const operationId = ({ api, endpoint }: Pick<ApiEndpoint, 'api' | 'endpoint'>): string => `${api}.${endpoint.operation}`;

/** The arguments of a row's client method before its options, from its example: `[params]`, `[{ key }]` or none. */
export const exampleArguments = ({ endpoint, example }: Pick<ApiEndpoint, 'endpoint' | 'example'>): unknown[] =>
  endpoint.hash === 'key' ? [{ key: example.key }] : example.params === undefined ? [] : [example.params];
