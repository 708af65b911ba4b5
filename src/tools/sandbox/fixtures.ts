import { turkishIban } from './iban.js';
import type { PreviousKeys, RotatingAccount } from './keys.js';
import { SANDBOX_DEFAULTS } from './options.js';
import type { SandboxGateway, SandboxManualIban, SandboxOptions, SandboxPaymentMethods, SandboxSite } from './options.js';
import { SeededRandom } from './random.js';

export interface SiteAccount {
  readonly id: number;
  readonly name: string;
  readonly credentialKey: string;
  readonly active: boolean;
  /** Milliseconds since the epoch, for `created_at` in the site list. */
  readonly createdAt: number;
}

/** The provider as the sandbox holds it: every option resolved; its keys change when rotated. */
export interface ProviderAccount extends RotatingAccount {
  readonly id: number;
  readonly name: string;
  readonly key: string;
  readonly active: boolean;
  readonly ipWhitelist: readonly string[];
  readonly sites: readonly [SiteAccount, ...SiteAccount[]];
  readonly blockedUserIds: readonly string[];
}

/** An E-IBAN with its balances in kuruş, so that sums are exact. */
export interface EibanAccount {
  readonly id: number;
  readonly iban: string;
  readonly bankName: string;
  readonly accountName: string;
  readonly walletId: string;
  balanceCents: number;
  availableCents: number;
}

/** The dealer as the sandbox holds it; its keys change when rotated. */
export interface DealerAccount extends RotatingAccount {
  readonly name: string;
  readonly paymentMethods: Readonly<SandboxPaymentMethods>;
  readonly eibans: readonly EibanAccount[];
  readonly manualIbans: readonly SandboxManualIban[];
}

export type Channel = 'bank' | 'crypto' | 'wallet';

/** Everything the sandbox serves that is not a record: accounts and gateways. */
export interface Fixtures {
  readonly provider: ProviderAccount;
  readonly dealer: DealerAccount;
  readonly gateways: Readonly<Record<Channel, readonly SandboxGateway[]>>;
}

/** A site and the credential key that acts for it. */
export interface SiteCredentials {
  readonly id: number;
  readonly name: string;
  readonly credentialKey: string;
}

/** The keys an account had before its last rotation, while they are still valid. */
export interface SandboxPreviousKeys {
  readonly apiKey: string;
  readonly secretKey: string;
  /** When they stop being accepted (real time). */
  readonly until: Date;
}

/** The credentials of the sandbox's accounts, to configure the clients under test. */
export interface SandboxAccounts {
  readonly provider: {
    readonly apiKey: string;
    readonly secretKey: string;
    /** The additional verification key of the site list (X-Key). */
    readonly key: string;
    /** At least one; the first is a good default for `credentialKey`. */
    readonly sites: readonly [SiteCredentials, ...SiteCredentials[]];
    /** After `rotateKeys`, the keys before it, while they are still accepted. */
    readonly previous?: SandboxPreviousKeys | undefined;
  };
  readonly dealer: {
    readonly apiKey: string;
    readonly secretKey: string;
    /** After `rotateKeys`, the keys before it, while they are still accepted. */
    readonly previous?: SandboxPreviousKeys | undefined;
  };
}

/** The previous keys while their window is open (real time), for the accounts' view. */
function previousOf(previous: PreviousKeys | undefined, nowMs: number): { previous?: SandboxPreviousKeys } {
  return previous === undefined || nowMs >= previous.untilMs ? {} : { previous: { apiKey: previous.apiKey, secretKey: previous.secretKey, until: new Date(previous.untilMs) } };
}

export function accountsOf({ provider, dealer }: Fixtures, nowMs: number = Date.now()): SandboxAccounts {
  return {
    provider: {
      apiKey: provider.apiKey,
      secretKey: provider.secretKey,
      key: provider.key,
      sites: mapNonEmpty(provider.sites, ({ id, name, credentialKey }) => ({ id, name, credentialKey })),
      ...previousOf(provider.previousKeys, nowMs),
    },
    dealer: { apiKey: dealer.apiKey, secretKey: dealer.secretKey, ...previousOf(dealer.previousKeys, nowMs) },
  };
}

/** Resolves the options into fixtures; the seed decides every value the caller left out. */
export function buildFixtures(options: SandboxOptions, startMs: number): Fixtures {
  // Separate streams, so that overriding one value does not shift the others.
  const seed = String(options.seed ?? SANDBOX_DEFAULTS.seed);
  const keys = new SeededRandom(`${seed}:keys`);
  const ids = new SeededRandom(`${seed}:ids`);
  const banks = new SeededRandom(`${seed}:ibans`);

  const provider = options.provider ?? {};
  const providerKeys = { apiKey: `prov_api_${keys.hex(12)}`, secretKey: `prov_secret_${keys.alphanumeric(24)}`, key: `verify_${keys.alphanumeric(12)}` };
  const siteKeys = [`site_cred_${keys.hex(16)}`, `site_cred_${keys.hex(16)}`] as const;
  const dealer = options.dealer ?? {};
  const dealerKeys = { apiKey: `dealer_api_${keys.hex(12)}`, secretKey: `dealer_secret_${keys.alphanumeric(24)}` };

  const firstSiteId = ids.int(10, 89);
  const defaultSites: [SandboxSite, SandboxSite] = [
    { id: firstSiteId, name: 'Sandbox Store', credentialKey: siteKeys[0] },
    { id: firstSiteId + 1, name: 'Sandbox Market', credentialKey: siteKeys[1] },
  ];
  const providerId = ids.int(100, 999);
  const walletIds = [`wallet_${ids.hex(10)}`, `wallet_${ids.hex(10)}`] as const;
  const firstEibanId = ids.int(1, 50);

  return {
    provider: {
      id: provider.id ?? providerId,
      name: provider.name ?? SANDBOX_DEFAULTS.provider.name,
      apiKey: provider.apiKey ?? providerKeys.apiKey,
      secretKey: provider.secretKey ?? providerKeys.secretKey,
      previousKeys: undefined,
      key: provider.key ?? providerKeys.key,
      active: provider.active ?? SANDBOX_DEFAULTS.provider.active,
      ipWhitelist: provider.ipWhitelist ?? ['127.0.0.1', '::1'],
      sites: mapNonEmpty(provider.sites ?? defaultSites, (site, index) => ({
        id: site.id,
        name: site.name,
        credentialKey: site.credentialKey,
        active: site.active ?? true,
        // Sites existed before the sandbox started: a month apart, the last one a month ago.
        createdAt: startMs - (index + 1) * 30 * 86_400_000,
      })),
      blockedUserIds: provider.blockedUserIds ?? [],
    },
    dealer: {
      name: dealer.name ?? SANDBOX_DEFAULTS.dealer.name,
      apiKey: dealer.apiKey ?? dealerKeys.apiKey,
      secretKey: dealer.secretKey ?? dealerKeys.secretKey,
      previousKeys: undefined,
      paymentMethods: { credit_card: 'active', eiban: 'active', manual_iban: 'active', ...dealer.paymentMethods },
      eibans: (
        dealer.eibans ?? [
          { id: firstEibanId, iban: turkishIban(banks), bankName: 'Ziraat Bankası', accountName: 'Sandbox Dealer Ltd.', walletId: walletIds[0], balance: 250_000, availableBalance: 245_500 },
          { id: firstEibanId + 1, iban: turkishIban(banks), bankName: 'Garanti BBVA', accountName: 'Sandbox Dealer Ltd.', walletId: walletIds[1], balance: 75_000 },
        ]
      ).map((eiban) => ({
        id: eiban.id,
        iban: eiban.iban,
        bankName: eiban.bankName,
        accountName: eiban.accountName,
        walletId: eiban.walletId,
        balanceCents: toCents(eiban.balance),
        availableCents: toCents(eiban.availableBalance ?? eiban.balance),
      })),
      manualIbans: dealer.manualIbans ?? [
        { bankName: 'Akbank', accountName: 'Sandbox Collections A.Ş.', iban: turkishIban(banks), minAmount: 10, maxAmount: 10_000 },
        { bankName: 'İş Bankası', accountName: 'Sandbox Collections A.Ş.', iban: turkishIban(banks), minAmount: 10_000.01, maxAmount: 250_000 },
      ],
    },
    gateways: {
      bank: options.gateways?.bank ?? DEFAULT_GATEWAYS.bank,
      crypto: options.gateways?.crypto ?? DEFAULT_GATEWAYS.crypto,
      wallet: options.gateways?.wallet ?? DEFAULT_GATEWAYS.wallet,
    },
  };
}

function mapNonEmpty<T, U>(items: readonly [T, ...T[]], map: (item: T, index: number) => U): [U, ...U[]] {
  const [first, ...rest] = items;
  return [map(first, 0), ...rest.map((item, index) => map(item, index + 1))];
}

/** Kuruş of a TRY amount; rounding absorbs the float error of values like 0.1 + 0.2. */
export const toCents = (amount: number): number => Math.round(amount * 100);

/** The decimal string of a kuruş amount, as dealer answers carry it ("1500.00"). */
export const centsToDecimal = (cents: number): string => {
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
};

export const DEFAULT_GATEWAYS: Readonly<Record<Channel, readonly SandboxGateway[]>> = {
  bank: [
    { id: 1, name: 'Havale Express', code: 'havale_express', min_amount: 100, max_amount: 50_000, required_fields: ['iban', 'account_holder'], description: 'Bank transfer, same day' },
    { id: 2, name: 'FAST Transfer', code: 'fast', min_amount: 10, max_amount: 20_000, required_fields: ['iban', 'account_holder'], description: 'Instant transfer over FAST' },
  ],
  crypto: [
    {
      id: 11,
      name: 'CoinGate',
      code: 'coingate',
      min_amount: 50,
      max_amount: 100_000,
      required_fields: ['crypto_type', 'wallet_address'],
      supported_crypto_types: ['BTC', 'ETH', 'USDT (TRC20)', 'USDT (ERC20)'],
      description: 'Crypto payouts',
    },
  ],
  wallet: [
    { id: 21, name: 'Papara', code: 'papara', min_amount: 10, max_amount: 25_000, required_fields: ['wallet_number'], description: 'Papara wallet' },
    { id: 22, name: 'Paycell', code: 'paycell', min_amount: 20, max_amount: 10_000, required_fields: ['wallet_number', 'account_holder'], description: 'Paycell wallet' },
  ],
};
