import type { z } from 'zod/mini';
import { constantTimeEqual } from '../../internal/hash/constant-time.js';
import { listSitesEndpoint, welcomeEndpoint } from '../../provider/account.js';
import { cardPaymentEndpoint, cardStatusEndpoint } from '../../provider/credit-card.js';
import { eibanDepositEndpoint, eibanWithdrawalEndpoint } from '../../provider/eiban.js';
import { manualDepositEndpoint, manualWithdrawalEndpoint } from '../../provider/manual.js';
import { bankEndpoints } from '../../provider/third-party/bank.js';
import { cryptoEndpoints } from '../../provider/third-party/crypto.js';
import type { GatewayList } from '../../provider/third-party/gateways.js';
import type { ThirdPartyDeposit, ThirdPartyWithdrawal } from '../../provider/third-party/records.js';
import { walletEndpoints } from '../../provider/third-party/wallet.js';
import {
  BANK_ACCOUNT_HOLDER,
  CARD_STATUS_HASH,
  CRYPTO_WALLET_DEPOSIT_BODY,
  CRYPTO_WALLET_HASH,
  CRYPTO_WALLET_MINIMUM,
  EIBAN_THIRD_PARTY_METHOD,
  EMPTY_BODY_CONTENT_TYPE,
  GATEWAY_BOUNDS,
  GATEWAY_ID_RANGE,
  RECIPIENT_IBAN_LENGTH,
  WALLET_ACCOUNT_HOLDER,
} from '../../spec-gaps.js';
import { cardFailure, success, validationFailure } from '../sandbox/answers.js';
import type { Failure, Reply } from '../sandbox/answers.js';
import { formatDateTime, formatIsoOffset } from '../sandbox/clock.js';
import { DEFAULT_GATEWAYS } from '../sandbox/fixtures.js';
import type { Channel, SiteAccount } from '../sandbox/fixtures.js';
import type { SandboxRecordKind } from '../sandbox/record-kinds.js';
import type { StoredRecord } from '../sandbox/records.js';
import { paymentUrl, siteOf } from '../sandbox/route.js';
import type { RouteContext } from '../sandbox/route.js';
import { provider } from './row.js';
import type { ApiEndpoint } from './row.js';

/** The customer fields every provider payment request carries (spec 2.3). */
interface CustomerParams {
  readonly fullname: string;
  readonly username: string;
  readonly user_id: string;
}

/**
 * Every field a provider record can show (spec 2.4); each endpoint picks the ones its answer
 * lists, so a field the spec leaves out of an answer is left out here too.
 */
function recordFields(context: RouteContext, record: StoredRecord, site: SiteAccount, params: CustomerParams) {
  return {
    tracking_code: record.code,
    payment_url: paymentUrl(context, record.code),
    site: { id: site.id, name: site.name },
    customer: { fullname: params.fullname, username: params.username, user_id: params.user_id },
    amount: record.amount,
    status: record.status,
    expires_at: record.expiresAt === undefined ? undefined : formatDateTime(record.expiresAt),
    created_at: formatDateTime(record.createdAt),
  };
}

/** Creates a record of `kind` for the request's site and returns every field it can show. */
function create(context: RouteContext, kind: SandboxRecordKind, params: CustomerParams & { readonly amount: number }) {
  const site = siteOf(context);
  const record = context.service.records.create(kind, { amount: params.amount, siteId: site.id, params });
  return recordFields(context, record, site, params);
}

/** A third-party withdrawal's fields beyond the customer and amount. */
interface WithdrawalParams extends CustomerParams {
  readonly amount: number;
  readonly gateway_id: number;
  readonly crypto_type?: string | undefined;
}

/**
 * The service's checks of a third-party withdrawal against its gateway (spec 2.5, 8): the gateway
 * belongs to the channel, the amount is within its bounds, its required fields are present (those
 * the endpoint's body can carry), and a crypto type is one it supports.
 */
function checkGateway(context: RouteContext, channel: Channel, params: WithdrawalParams, schema: z.ZodMiniType): Failure | undefined {
  const gateway = context.service.fixtures.gateways[channel].find((candidate) => candidate.id === params.gateway_id);
  if (gateway === undefined) return validationFailure([`gateway_id ${params.gateway_id} is not a ${channel} gateway`]);
  const messages: string[] = [];
  if (params.amount < gateway.min_amount || params.amount > gateway.max_amount) {
    messages.push(`amount must be between ${gateway.min_amount} and ${gateway.max_amount} for gateway ${gateway.code}`);
  }
  const accepted = 'shape' in schema ? Object.keys(schema.shape as object) : [];
  const given = params as unknown as Readonly<Record<string, unknown>>;
  for (const field of gateway.required_fields) {
    if (accepted.includes(field) && (typeof given[field] !== 'string' || given[field] === '')) messages.push(`${field} is required by gateway ${gateway.code}`);
  }
  const types = gateway.supported_crypto_types;
  if (params.crypto_type !== undefined && types !== undefined && !types.includes(params.crypto_type)) {
    messages.push(`crypto_type must be one of ${types.join(', ')}`);
  }
  return messages.length > 0 ? validationFailure(messages) : undefined;
}

/** How the sandbox answers the three endpoints of a third-party channel (spec 4.10 to 4.12). */
function channelHandlers(channel: Channel, withdrawalParams: z.ZodMiniType) {
  const type = (direction: 'deposit' | 'withdrawal') => `third_party_${channel}_${direction}`;
  // Site and customer are echoed for bank records only; crypto and wallet records carry neither (2.4).
  const echo = (fields: ReturnType<typeof recordFields>) => (channel === 'bank' ? { site: fields.site, customer: fields.customer } : {});
  return {
    deposit: (context: RouteContext, params: CustomerParams & { readonly amount: number }): Reply<z.input<typeof ThirdPartyDeposit>> => {
      const fields = create(context, `${channel}Deposit`, params);
      const { tracking_code, payment_url, amount, status, expires_at, created_at } = fields;
      return success({
        success: true,
        message: `Third-party ${channel} deposit created; redirect the customer to payment_url`,
        data: {
          tracking_code,
          payment_url,
          type: type('deposit'),
          payment_method: channel,
          ...echo(fields),
          amount,
          status,
          // The wallet answer lists no expires_at, the bank answer adds created_at (4.10 to 4.12).
          ...(channel === 'wallet' ? {} : { expires_at }),
          ...(channel === 'bank' ? { created_at } : {}),
        },
        ...(channel === 'bank' ? { timestamp: context.service.timestamp() } : {}),
      });
    },
    gateways: ({ service }: RouteContext): Reply<z.input<typeof GatewayList>> => {
      const gateways = service.fixtures.gateways[channel].map((gateway) => ({
        ...gateway,
        required_fields: [...gateway.required_fields],
        supported_crypto_types: gateway.supported_crypto_types === undefined ? undefined : [...gateway.supported_crypto_types],
      }));
      return success({ success: true, data: { gateways, count: gateways.length } });
    },
    withdrawal: (context: RouteContext, params: WithdrawalParams): Reply<z.input<typeof ThirdPartyWithdrawal>> => {
      const refused = checkGateway(context, channel, params, withdrawalParams);
      if (refused !== undefined) return refused;
      const fields = create(context, `${channel}Withdrawal`, params);
      const { tracking_code, amount, status, expires_at, created_at } = fields;
      return success({
        success: true,
        message: `Third-party ${channel} withdrawal created`,
        data: {
          tracking_code,
          type: type('withdrawal'),
          payment_method: channel,
          ...echo(fields),
          amount,
          status,
          ...(channel === 'bank' ? { expires_at, created_at } : {}),
        },
        ...(channel === 'bank' ? { timestamp: context.service.timestamp() } : {}),
      });
    },
  };
}

const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const site = { id: 7, name: 'shop.example' };
const iban = 'TR330006100519786457841326';
/** The gaps of crypto and wallet that the bank samples fill (spec 4.11, 4.12). */
const GUESSED = [CRYPTO_WALLET_HASH, CRYPTO_WALLET_MINIMUM];
/** The gaps of every third-party withdrawal, after those a channel's samples leave (spec 2.5, 4.10 to 4.12). */
const GATEWAY_GAPS = [GATEWAY_ID_RANGE, GATEWAY_BOUNDS];

const bank = channelHandlers('bank', bankEndpoints.withdrawal.params);
const crypto = channelHandlers('crypto', cryptoEndpoints.withdrawal.params);
const wallet = channelHandlers('wallet', walletEndpoints.withdrawal.params);

/** Every endpoint of the Provider API (spec 4.2), in its order, each with how the sandbox answers it. */
/** A gateways answer of the sandbox's own gateways of the channel (spec 2.5). */
function gatewaysAnswer(channel: Channel): z.input<typeof GatewayList> {
  const gateways = DEFAULT_GATEWAYS[channel].map(({ required_fields: required, supported_crypto_types: coins, ...gateway }) => ({
    ...gateway,
    required_fields: [...required],
    ...(coins === undefined ? {} : { supported_crypto_types: [...coins] }),
  }));
  return { success: true, data: { gateways, count: gateways.length } };
}

export const PROVIDER_ENDPOINTS: readonly ApiEndpoint[] = [
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
    handle: ({ service }) => {
      const { provider } = service.fixtures;
      return success({
        success: true,
        message: `Welcome, ${provider.name}`,
        info: 'Your API key, secret key, clock and IP address are accepted',
        next_step: 'List your sites with the X-Key, then start a payment with a site credential key',
        provider: { id: provider.id, name: provider.name, is_active: provider.active },
        timestamp: service.timestamp(),
      });
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
    handle: ({ service }) => {
      const { provider } = service.fixtures;
      return success({
        success: true,
        provider: { id: provider.id, name: provider.name },
        total_sites: provider.sites.length,
        sites: provider.sites.map((site) => ({ id: site.id, name: site.name, is_active: site.active, created_at: formatDateTime(site.createdAt) })),
        timestamp: service.timestamp(),
      });
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
    handle: (context, params) => {
      const { tracking_code, payment_url, site, customer, amount, status, expires_at, created_at } = create(context, 'manualDeposit', params);
      return success({
        success: true,
        message: 'Manual deposit created',
        data: { tracking_code, payment_url, site, customer, amount, status, expires_at, created_at },
        timestamp: context.service.timestamp(),
      });
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
    handle: (context, params) => {
      const { tracking_code, site, customer, amount, status, created_at } = create(context, 'manualWithdrawal', params);
      return success({
        success: true,
        message: 'Manual withdrawal created; the assigned dealer processes it',
        data: { tracking_code, site, customer, iban: params.iban, amount, status, created_at },
        timestamp: context.service.timestamp(),
      });
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
    handle: (context, params) => {
      const { tracking_code, payment_url, site, customer, amount, status, expires_at } = create(context, 'eibanDeposit', params);
      return success({ success: true, message: 'E-IBAN deposit created', data: { tracking_code, payment_url, site, customer, amount, status, expires_at } });
    },
  }),
  provider(eibanWithdrawalEndpoint, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, RECIPIENT_IBAN_LENGTH],
    params: { ...customer, iban, amount: 100 },
    answer: { success: true, message: 'E-IBAN withdrawal created', data: { tracking_code: 'EIBAN-WIT-h8Jd2K-1763812004', site, customer, iban, amount: 100, status: 'pending' } },
    handle: (context, params) => {
      const { tracking_code, site, customer, amount, status } = create(context, 'eibanWithdrawal', params);
      return success({ success: true, message: 'E-IBAN withdrawal created', data: { tracking_code, site, customer, iban: params.iban, amount, status } });
    },
  }),
  provider(cardPaymentEndpoint, {
    params: { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 },
    answer: {
      success: true,
      message: 'Payment created',
      data: { tracking_code: 'CC-p4Lm8-1763812100', payment_url: 'https://pay.example.com/card/CC-p4Lm8-1763812100', order_id: 'ORD-55', amount: 150, currency: 'TRY' },
    },
    handle: (context, params) => {
      const { provider, dealer } = context.service.fixtures;
      // The key travels in the body (spec 5.1 rule 2), so ownership is checked here, with the card error shape.
      const site = provider.sites.find((candidate) => constantTimeEqual(params.credential_key, candidate.credentialKey));
      if (site === undefined) return cardFailure(403, 'Invalid credential key');
      if (dealer.paymentMethods.credit_card !== 'active') return cardFailure(403, 'Credit card payment is not enabled for this dealer');
      if (provider.blockedUserIds.includes(params.user_id)) return cardFailure(403, 'This customer is blocked. Payment not allowed.');
      const record = context.service.records.create('cardPayment', { amount: params.amount, siteId: site.id, params });
      return success({
        success: true,
        message: 'Card payment created; redirect the customer to payment_url',
        data: { tracking_code: record.code, payment_url: paymentUrl(context, record.code), order_id: record.orderId ?? '', amount: record.amount, currency: 'TRY' },
      });
    },
  }),
  provider(cardStatusEndpoint, {
    gaps: [CARD_STATUS_HASH],
    params: { tracking_code: 'CC-r7Qw2-1763812300' },
    answer: {
      success: true,
      data: {
        tracking_code: 'CC-r7Qw2-1763812300',
        order_id: 'ORD-56',
        status: 'success',
        amount: 90,
        currency: 'TRY',
        username: 'can',
        user_id: 'u-2',
        created_at: '2025-11-22T11:58:20+00:00',
        updated_at: '2025-11-22T11:59:05+00:00',
      },
    },
    handle: ({ service }, params) => {
      const record = service.records.get(params.tracking_code);
      if (record?.kind !== 'cardPayment') return cardFailure(404, 'Payment not found');
      const { username, user_id } = record.params;
      return success({
        success: true,
        data: {
          tracking_code: record.code,
          order_id: record.orderId,
          status: record.status,
          amount: record.amount,
          currency: 'TRY',
          username: typeof username === 'string' ? username : undefined,
          user_id: typeof user_id === 'string' ? user_id : undefined,
          created_at: formatIsoOffset(record.createdAt),
          updated_at: formatIsoOffset(record.updatedAt),
        },
      });
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
    handle: bank.deposit,
  }),
  provider(bankEndpoints.gateways, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE],
    // What the sandbox answers: its own gateways of the channel.
    answer: gatewaysAnswer('bank'),
    handle: bank.gateways,
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
    handle: bank.withdrawal,
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
    handle: crypto.deposit,
  }),
  provider(cryptoEndpoints.gateways, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE],
    // What the sandbox answers: its own gateways of the channel.
    answer: gatewaysAnswer('crypto'),
    handle: crypto.gateways,
  }),
  provider(cryptoEndpoints.withdrawal, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GUESSED, ...GATEWAY_GAPS],
    params: { ...customer, amount: 250, gateway_id: 11, crypto_type: 'USDT (TRC20)', wallet_address: 'TXyz8kP2cWq4rVb9mN3sL6tH1gF5dA7eJ0' },
    answer: {
      success: true,
      message: 'Third-party crypto withdrawal created',
      data: { tracking_code: 'TPCW-f5Ye9K-1763812203', type: 'third_party_crypto_withdrawal', payment_method: 'crypto', amount: 250, status: 'showing' },
    },
    handle: crypto.withdrawal,
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
    handle: wallet.deposit,
  }),
  provider(walletEndpoints.gateways, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, EMPTY_BODY_CONTENT_TYPE],
    // What the sandbox answers: its own gateways of the channel.
    answer: gatewaysAnswer('wallet'),
    handle: wallet.gateways,
  }),
  provider(walletEndpoints.withdrawal, {
    gaps: [EIBAN_THIRD_PARTY_METHOD, ...GUESSED, ...GATEWAY_GAPS, WALLET_ACCOUNT_HOLDER],
    params: { ...customer, amount: 60, gateway_id: 21, wallet_number: '5551234567' },
    answer: {
      success: true,
      message: 'Third-party wallet withdrawal created',
      data: { tracking_code: 'TPWW-h7Ag2H-1763812205', type: 'third_party_wallet_withdrawal', payment_method: 'wallet', amount: 60, status: 'showing' },
    },
    handle: wallet.withdrawal,
  }),
];
