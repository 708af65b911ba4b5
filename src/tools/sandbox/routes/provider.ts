import type { z } from 'zod/mini';
import { constantTimeEqual } from '../../../internal/hash/constant-time.js';
import { listSitesEndpoint, welcomeEndpoint } from '../../../provider/account.js';
import { cardPaymentEndpoint, cardStatusEndpoint } from '../../../provider/credit-card.js';
import { eibanDepositEndpoint, eibanWithdrawalEndpoint } from '../../../provider/eiban.js';
import { manualDepositEndpoint, manualWithdrawalEndpoint } from '../../../provider/manual.js';
import { bankEndpoints } from '../../../provider/third-party/bank.js';
import type { ChannelEndpoints } from '../../../provider/third-party/channel.js';
import { cryptoEndpoints } from '../../../provider/third-party/crypto.js';
import type { ThirdPartyDeposit, ThirdPartyWithdrawal } from '../../../provider/third-party/records.js';
import { walletEndpoints } from '../../../provider/third-party/wallet.js';
import { cardFailure, success, validationFailure } from '../answers.js';
import type { Failure } from '../answers.js';
import { formatDateTime, formatIsoOffset } from '../clock.js';
import type { Channel, SiteAccount } from '../fixtures.js';
import type { SandboxRecordKind } from '../record-kinds.js';
import type { StoredRecord } from '../records.js';
import { paymentUrl, serve, siteOf } from '../route.js';
import type { Handler, RouteContext } from '../route.js';

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

const welcome = serve(welcomeEndpoint, ({ service }) => {
  const { provider } = service.fixtures;
  return success({
    success: true,
    message: `Welcome, ${provider.name}`,
    info: 'Your API key, secret key, clock and IP address are accepted',
    next_step: 'List your sites with the X-Key, then start a payment with a site credential key',
    provider: { id: provider.id, name: provider.name, is_active: provider.active },
    timestamp: service.timestamp(),
  });
});

const sites = serve(listSitesEndpoint, ({ service }) => {
  const { provider } = service.fixtures;
  return success({
    success: true,
    provider: { id: provider.id, name: provider.name },
    total_sites: provider.sites.length,
    sites: provider.sites.map((site) => ({ id: site.id, name: site.name, is_active: site.active, created_at: formatDateTime(site.createdAt) })),
    timestamp: service.timestamp(),
  });
});

const manualDeposit = serve(manualDepositEndpoint, (context, params) => {
  const { tracking_code, payment_url, site, customer, amount, status, expires_at, created_at } = create(context, 'manualDeposit', params);
  return success({
    success: true,
    message: 'Manual deposit created',
    data: { tracking_code, payment_url, site, customer, amount, status, expires_at, created_at },
    timestamp: context.service.timestamp(),
  });
});

const manualWithdrawal = serve(manualWithdrawalEndpoint, (context, params) => {
  const { tracking_code, site, customer, amount, status, created_at } = create(context, 'manualWithdrawal', params);
  return success({
    success: true,
    message: 'Manual withdrawal created; the assigned dealer processes it',
    data: { tracking_code, site, customer, iban: params.iban, amount, status, created_at },
    timestamp: context.service.timestamp(),
  });
});

const eibanDeposit = serve(eibanDepositEndpoint, (context, params) => {
  const { tracking_code, payment_url, site, customer, amount, status, expires_at } = create(context, 'eibanDeposit', params);
  return success({ success: true, message: 'E-IBAN deposit created', data: { tracking_code, payment_url, site, customer, amount, status, expires_at } });
});

const eibanWithdrawal = serve(eibanWithdrawalEndpoint, (context, params) => {
  const { tracking_code, site, customer, amount, status } = create(context, 'eibanWithdrawal', params);
  return success({ success: true, message: 'E-IBAN withdrawal created', data: { tracking_code, site, customer, iban: params.iban, amount, status } });
});

const cardPayment = serve(cardPaymentEndpoint, (context, params) => {
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
});

const cardStatus = serve(cardStatusEndpoint, ({ service }, params) => {
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
});

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

/** The three routes of a third-party channel (spec 4.10 to 4.12). */
function channelRoutes<DP extends z.ZodMiniType<CustomerParams & { amount: number }>, WP extends z.ZodMiniType<WithdrawalParams>>(
  channel: Channel,
  endpoints: ChannelEndpoints<DP, typeof ThirdPartyDeposit, WP, typeof ThirdPartyWithdrawal>,
): Handler[] {
  const type = (direction: 'deposit' | 'withdrawal') => `third_party_${channel}_${direction}`;
  // Site and customer are echoed for bank records only; crypto and wallet records carry neither (2.4).
  const echo = (fields: ReturnType<typeof recordFields>) => (channel === 'bank' ? { site: fields.site, customer: fields.customer } : {});
  return [
    serve(endpoints.deposit, (context, params) => {
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
    }),
    serve(endpoints.gateways, ({ service }) => {
      const gateways = service.fixtures.gateways[channel].map((gateway) => ({
        ...gateway,
        required_fields: [...gateway.required_fields],
        supported_crypto_types: gateway.supported_crypto_types === undefined ? undefined : [...gateway.supported_crypto_types],
      }));
      return success({ success: true, data: { gateways, count: gateways.length } });
    }),
    serve(endpoints.withdrawal, (context, params) => {
      const refused = checkGateway(context, channel, params, endpoints.withdrawal.params);
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
    }),
  ];
}

/** The endpoints of the Provider API (spec 4.2). */
export const providerHandlers: readonly Handler[] = [
  welcome,
  sites,
  manualDeposit,
  manualWithdrawal,
  eibanDeposit,
  eibanWithdrawal,
  cardPayment,
  cardStatus,
  ...channelRoutes('bank', bankEndpoints),
  ...channelRoutes('crypto', cryptoEndpoints),
  ...channelRoutes('wallet', walletEndpoints),
];
