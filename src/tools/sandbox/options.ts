import { MAX_TIMEOUT_MS, TEN_YEARS_SECONDS, declareOptions } from '../../core/option-checks.js';
import { CLOCK_RANGE } from './limits.js';

/*
 * Settings of createSandbox(). Every fixture has a seeded default, so that a sandbox made with
 * the same seed has the same keys, ids and history on every run; every default can be replaced.
 */

/** A site of the provider, with the credential key that acts for it. */
export interface SandboxSite {
  readonly id: number;
  readonly name: string;
  /** The site credential key (X-Credential-Key, or `credential_key` in card payments). */
  readonly credentialKey: string;
  /**
   * Shown as `is_active` by the site list. The spec gives no rule for an inactive site's key,
   * so it is still accepted.
   * @default true
   */
  readonly active?: boolean | undefined;
}

/**
 * The provider account of the Provider API.
 *
 * @example
 * ```ts
 * import { createSandbox } from 'payorch/sandbox';
 * createSandbox({ provider: { active: false } }); // every provider call answers 403 "Provider account is inactive"
 * ```
 */
export interface SandboxProviderOptions {
  /** @default a seeded integer */
  readonly id?: number | undefined;
  /** @default 'Sandbox Provider' */
  readonly name?: string | undefined;
  /** @default a seeded `prov_api_…` string */
  readonly apiKey?: string | undefined;
  /** @default a seeded `prov_secret_…` string */
  readonly secretKey?: string | undefined;
  /** The additional verification key of the site list (X-Key). @default a seeded `verify_…` string */
  readonly key?: string | undefined;
  /** False answers every provider call with 403 "Provider account is inactive". @default true */
  readonly active?: boolean | undefined;
  /**
   * Caller addresses allowed to use the Provider API. In-process calls (`fetch`, msw) come from
   * 127.0.0.1; over `listen()` the socket's address counts.
   * @default ['127.0.0.1', '::1']
   */
  readonly ipWhitelist?: readonly string[] | undefined;
  /** At least one. @default two seeded sites, 'Sandbox Store' and 'Sandbox Market' */
  readonly sites?: readonly [SandboxSite, ...SandboxSite[]] | undefined;
  /** `user_id`s whose card payments are refused with "This customer is blocked. Payment not allowed." @default [] */
  readonly blockedUserIds?: readonly string[] | undefined;
}

/** The dealer's payment methods (spec 2.7), each `active` or `inactive`. */
export type SandboxPaymentMethods = Record<'credit_card' | 'eiban' | 'manual_iban', 'active' | 'inactive'>;

/** An E-IBAN account of the dealer (spec 2.7). Amounts in TRY. */
export interface SandboxEiban {
  readonly id: number;
  readonly iban: string;
  readonly bankName: string;
  readonly accountName: string;
  /** Identifies the account in transactions and send-money. */
  readonly walletId: string;
  readonly balance: number;
  /** @default `balance` */
  readonly availableBalance?: number | undefined;
}

/** A bank account offered by the dealer's manual IBAN deposit for amounts within its bounds. */
export interface SandboxManualIban {
  readonly bankName: string;
  readonly accountName: string;
  readonly iban: string;
  readonly minAmount: number;
  readonly maxAmount: number;
}

/**
 * The dealer account of the Dealer API.
 *
 * @example
 * ```ts
 * import { createSandbox } from 'payorch/sandbox';
 * createSandbox({ dealer: { paymentMethods: { credit_card: 'inactive' } } });
 * ```
 */
export interface SandboxDealerOptions {
  /** @default 'Sandbox Dealer' */
  readonly name?: string | undefined;
  /** @default a seeded `dealer_api_…` string */
  readonly apiKey?: string | undefined;
  /** @default a seeded `dealer_secret_…` string */
  readonly secretKey?: string | undefined;
  /**
   * The settings' payment methods. `credit_card: 'inactive'` refuses provider and dealer card
   * payments, as spec 7.3 shows; the other two are reported only, the spec shows no refusal.
   * @default all 'active'
   */
  readonly paymentMethods?: Partial<SandboxPaymentMethods> | undefined;
  /** @default two seeded accounts with balances of 250,000.00 and 75,000.00 TRY */
  readonly eibans?: readonly SandboxEiban[] | undefined;
  /** @default two seeded accounts, for 10 to 10,000 and 10,000.01 to 250,000 TRY */
  readonly manualIbans?: readonly SandboxManualIban[] | undefined;
}

/** A third-party gateway as the gateway list returns it (spec 2.5). */
export interface SandboxGateway {
  readonly id: number;
  readonly name: string;
  readonly code: string;
  readonly min_amount: number;
  readonly max_amount: number;
  readonly required_fields: readonly string[];
  readonly supported_crypto_types?: readonly string[] | undefined;
  readonly description: string;
}

/**
 * Where callbacks are POSTed (spec 6.1). A kind without a URL is not delivered.
 *
 * @example
 * ```ts
 * import { createSandbox } from 'payorch/sandbox';
 * createSandbox({ callbackUrls: { deposit: 'http://127.0.0.1:3000/callbacks/deposit' } });
 * ```
 */
export interface CallbackUrls {
  /** The provider's `callback_url` (deposit callbacks). @default undefined (not delivered) */
  readonly deposit?: string | undefined;
  /** The provider's `withdrawal_callback_url`. @default undefined (not delivered) */
  readonly withdrawal?: string | undefined;
  /** The provider's `credit_card_callback_url`. @default undefined (not delivered) */
  readonly creditCard?: string | undefined;
  /** The dealer's card payment callback URL. @default undefined (not delivered) */
  readonly dealerCreditCard?: string | undefined;
}

/**
 * How a callback that is not answered with HTTP 200 is retried. The spec shows no policy
 * (6.6): attempt n + 1 waits `backoffMs * 2^(n - 1)`.
 *
 * @example
 * ```ts
 * import { createSandbox } from 'payorch/sandbox';
 * createSandbox({ callbackRetry: { attempts: 3, backoffMs: 10 } }); // fast retries in tests
 * ```
 */
export interface CallbackRetryOptions {
  /** Attempts in all, the first included. @default 5 */
  readonly attempts?: number | undefined;
  /** Wait before the second attempt, doubled for each later one. @default 1000 */
  readonly backoffMs?: number | undefined;
  /** Time one attempt may take before it counts as failed. @default 10000 */
  readonly timeoutMs?: number | undefined;
  /**
   * Whether each retry is signed afresh (a new `timestamp` and `hash`), or sent with the
   * signature of the first attempt, byte for byte. The spec does not say which the service does
   * (6.6); `false` tests that your receiver accepts a callback signed long ago (its maximum age).
   * `settle()`, `redeliver()` and the controls take it per call too.
   * @default true
   */
  readonly resign?: boolean | undefined;
}

/**
 * Settings of {@link createSandbox}. All optional.
 *
 * @example
 * ```ts
 * import { createSandbox } from 'payorch/sandbox';
 * const sandbox = createSandbox({
 *   seed: 'my-tests',
 *   startTime: new Date('2026-01-15T09:00:00Z'),
 *   callbackUrls: { deposit: 'http://127.0.0.1:3000/callbacks' },
 * });
 * ```
 */
export interface SandboxOptions {
  /** Seed of every generated key, id and history record. @default 'payorch' */
  readonly seed?: string | number | undefined;
  /**
   * Start of the record clock. Given, the clock stands still there until `clock.advance()` or
   * `clock.set()` moves it, so records carry repeatable times; left out, it follows real time.
   * @default now, running
   */
  readonly startTime?: Date | number | undefined;
  /**
   * Seconds a deposit stays `showing` (and a dealer card payment `pending`) before it expires.
   * @default 1800
   */
  readonly lifetimeSeconds?: number | undefined;
  /**
   * Seconds on the record clock after which a pending transfer completes by itself, as the bank
   * would finish it. Left out, transfers stay pending until `settle()` moves them.
   * @default undefined
   */
  readonly transferCompletionSeconds?: number | undefined;
  /**
   * The provider account; every field left out is seeded.
   * @example { active: false }
   * @default seeded
   */
  readonly provider?: SandboxProviderOptions | undefined;
  /**
   * The dealer account; every field left out is seeded.
   * @example { paymentMethods: { credit_card: 'inactive' } }
   * @default seeded
   */
  readonly dealer?: SandboxDealerOptions | undefined;
  /** Gateways of each third-party channel. @default two bank, one crypto and two wallet gateways */
  readonly gateways?: Partial<Record<'bank' | 'crypto' | 'wallet', readonly SandboxGateway[]>> | undefined;
  /**
   * Where callbacks are POSTed.
   * @example { deposit: 'http://127.0.0.1:3000/webhooks/payorch' }
   * @default {} (no callbacks are delivered)
   */
  readonly callbackUrls?: CallbackUrls | undefined;
  /**
   * How undelivered callbacks are retried.
   * @example { attempts: 3, backoffMs: 10 }
   * @default { attempts: 5, backoffMs: 1000, timeoutMs: 10000, resign: true }
   */
  readonly callbackRetry?: CallbackRetryOptions | undefined;
  /**
   * The base URL customers and browsers reach the sandbox at, when it is not the address it
   * listens on (a tunnel, a container's port mapping, a reverse proxy). New records'
   * `payment_url`s start with it, and the controls accept its host in the `Host` header.
   * @example 'https://sandbox.example.test'
   * @default the listening address (`listen()`), or the request's own URL (in process)
   */
  readonly publicUrl?: string | undefined;
  /**
   * Records kept; past it the oldest are forgotten (their tracking codes answer as unknown), so
   * that a sandbox serving for weeks keeps a bounded amount of memory.
   * @default 10000
   */
  readonly maxRecords?: number | undefined;
  /**
   * Callback deliveries (each with its attempts) kept for `deliveries()` and `redeliver()`;
   * past it the oldest are forgotten.
   * @default 1000
   */
  readonly maxDeliveries?: number | undefined;
  /**
   * Size of the generated E-IBAN transaction history before the start time, per wallet.
   * @default { days: 30, perDay: 120 }
   */
  readonly history?: { readonly days?: number | undefined; readonly perDay?: number | undefined } | undefined;
}

/** The values createSandbox()'s options take when left out; the sandbox reads them here. */
export const SANDBOX_DEFAULTS = {
  seed: 'payorch',
  provider: { name: 'Sandbox Provider', active: true },
  dealer: { name: 'Sandbox Dealer' },
  lifetimeSeconds: 1800,
  maxRecords: 10_000,
  maxDeliveries: 1000,
  callbackRetry: { attempts: 5, backoffMs: 1000, timeoutMs: 10_000, resign: true },
  history: { days: 30, perDay: 120 },
} as const;

/** The options of createSandbox() that have a range; the lists (sites, accounts, gateways) are taken as given. @internal */
export const SANDBOX_OPTIONS = declareOptions<SandboxOptions>()([
  { name: 'provider.id', rule: { type: 'number', min: 1, max: Number.MAX_SAFE_INTEGER, integer: true } },
  { name: 'provider.name', rule: { type: 'text', maxLength: 200 }, default: SANDBOX_DEFAULTS.provider.name },
  // An empty key would sign every request with nothing of its own.
  { name: 'provider.apiKey', rule: { type: 'key' } },
  { name: 'provider.secretKey', rule: { type: 'key' } },
  { name: 'provider.key', rule: { type: 'key' } },
  { name: 'provider.active', rule: { type: 'boolean' }, default: SANDBOX_DEFAULTS.provider.active },
  { name: 'dealer.name', rule: { type: 'text', maxLength: 200 }, default: SANDBOX_DEFAULTS.dealer.name },
  { name: 'dealer.apiKey', rule: { type: 'key' } },
  { name: 'dealer.secretKey', rule: { type: 'key' } },
  { name: 'callbackRetry.attempts', rule: { type: 'number', min: 1, max: 20, integer: true }, default: SANDBOX_DEFAULTS.callbackRetry.attempts },
  { name: 'callbackRetry.backoffMs', rule: { type: 'number', min: 0, max: 3_600_000, unit: 'milliseconds' }, default: SANDBOX_DEFAULTS.callbackRetry.backoffMs },
  { name: 'callbackRetry.timeoutMs', rule: { type: 'number', min: 1, max: MAX_TIMEOUT_MS, integer: true }, default: SANDBOX_DEFAULTS.callbackRetry.timeoutMs },
  { name: 'callbackRetry.resign', rule: { type: 'boolean' }, default: SANDBOX_DEFAULTS.callbackRetry.resign },
  { name: 'lifetimeSeconds', rule: { type: 'number', min: 0, max: TEN_YEARS_SECONDS, unit: 'seconds' }, default: SANDBOX_DEFAULTS.lifetimeSeconds },
  { name: 'transferCompletionSeconds', rule: { type: 'number', min: 0, max: TEN_YEARS_SECONDS, unit: 'seconds' } },
  { name: 'maxRecords', rule: { type: 'number', min: 1, max: 10_000_000, integer: true }, default: SANDBOX_DEFAULTS.maxRecords },
  { name: 'maxDeliveries', rule: { type: 'number', min: 1, max: 1_000_000, integer: true }, default: SANDBOX_DEFAULTS.maxDeliveries },
  // Bounded because the history is generated in memory, a wallet at a time.
  { name: 'history.days', rule: { type: 'number', min: 0, max: 3650, integer: true }, default: SANDBOX_DEFAULTS.history.days },
  { name: 'history.perDay', rule: { type: 'number', min: 0, max: 10_000, integer: true }, default: SANDBOX_DEFAULTS.history.perDay },
  { name: 'publicUrl', rule: { type: 'httpUrl' } },
  { name: 'startTime', rule: { type: 'time', ...CLOCK_RANGE } },
], { seed: 'any text or number is a seed', gateways: 'a list, taken as given', callbackUrls: 'addresses the sandbox posts to, taken as given' });
