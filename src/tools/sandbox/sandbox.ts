import type { DeliveryAttempt, DeliveryResult } from './delivery.js';
import { dispatch } from './dispatch.js';
import { accountsOf } from './fixtures.js';
import type { SandboxAccounts } from './fixtures.js';
import type { RotateKeysOptions, RotatedKeys } from './keys.js';
import type { Api } from '../../core/api.js';
import { LISTEN_OPTIONS, LOOPBACK, serveHttp } from './listen.js';
import type { ListenOptions, RunningSandbox } from './listen.js';
import { mswHandlers } from './msw.js';
import type { MswHttp } from './msw.js';
import type { CallbackUrls, SandboxOptions } from './options.js';
import { Service, snapshot } from './service.js';
import { checkOptions, declareOptions } from '../../core/option-checks.js';
import type { RedeliverOptions, SandboxRecord, SettleOptions, SettleResult } from './service.js';

export type { RedeliverOptions } from './service.js';

/** The base URL `mswHandlers()` answers when none is given. `.test` is reserved: it never resolves. */
export const SANDBOX_BASE_URL = 'https://sandbox.payorch.test';

/** The caller of an in-process request, for the provider IP whitelist. */
export interface HandleOptions {
  /**
   * The caller's IP address.
   * @default '127.0.0.1'
   */
  readonly clientAddress?: string | undefined;
}

export const HANDLE_OPTIONS = declareOptions<HandleOptions>()([{ name: 'clientAddress', rule: { type: 'text', maxLength: 45 }, default: LOOPBACK }]);

/** The record clock: it dates records and decides when deposits expire. */
export interface SandboxClock {
  /**
   * The record clock's time.
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * sandbox.clock.now().toISOString();
   * ```
   */
  now(): Date;
  /**
   * Moves the clock forward, expires every record whose lifetime ran out, and resolves when
   * their callbacks are delivered.
   * @throws {RequestValidationError} (`invalid_option`, at once) for a negative or non-finite time or one past 9999-12-31
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * const expired = await sandbox.clock.advance(31 * 60_000); // past the 30-minute lifetime
   * ```
   */
  advance(milliseconds: number): Promise<SettleResult[]>;
  /**
   * Sets the clock (forward or back), then expires as `advance()` does.
   * @throws {RequestValidationError} (`invalid_option`, at once) for a time outside 1970-01-01 to 9999-12-31
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * await sandbox.clock.set(new Date('2026-01-15T10:00:00Z'));
   * ```
   */
  set(time: Date | number): Promise<SettleResult[]>;
}

/**
 * A local Payment Orchestration Service: the Provider and Dealer APIs of the spec, served from
 * memory with seeded fixtures. Made by {@link createSandbox}.
 */
export class Sandbox {
  readonly clock: SandboxClock;
  readonly #service: Service;
  readonly #publicUrl: string | undefined;

  /**
   * Same as {@link createSandbox}.
   * @throws {RequestValidationError} (`invalid_option`) for an option out of range, naming it and its
   * range, or a name that is not an option
   */
  constructor(options: SandboxOptions = {}) {
    const service = new Service(options);
    this.#service = service;
    this.#publicUrl = options.publicUrl;
    this.clock = {
      now: () => new Date(service.clock.now()),
      advance: (milliseconds) => service.advanceClock(milliseconds),
      set: (time) => service.setClock(time),
    };
  }

  /**
   * The credentials of the provider and the dealer, to configure the clients under test: the
   * keys in force now (after {@link Sandbox.rotateKeys}, the new ones, with the previous ones while
   * they are still accepted).
   */
  get accounts(): SandboxAccounts {
    return accountsOf(this.#service.fixtures);
  }

  /**
   * Rotates an account's keys, as the service's panel would, to rehearse a rotation: a new secret
   * key, and a new API key unless `keepApiKey`. Requests signed with the keys before stay valid
   * for `windowSeconds` (real time, as signatures are); callbacks are signed with the new keys
   * from now on, their retries and redeliveries re-signed too, but a delivery sent again with its
   * first signature (`resign: false`) still carries the old ones. `POST /__sandbox/rotate-keys`
   * and `payorch sandbox rotate-keys` do the same for a running sandbox.
   *
   * @throws {RequestValidationError} (`invalid_option`) for a window out of range (0 to 30 days)
   * @example
   * ```ts
   * import { createCallbackReceiver } from 'payorch';
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * const { apiKey, secretKey, previous } = sandbox.rotateKeys('provider', { windowSeconds: 3600 });
   * const receiver = createCallbackReceiver({ apiKey, secretKey, merchantId: 'shop', previousSecretKey: previous });
   * ```
   */
  rotateKeys(account: Api, options: RotateKeysOptions): RotatedKeys {
    return this.#service.rotateKeys(account, options);
  }

  /**
   * A Fetch-standard handler: pass it as a client's `fetch` to run the client against the sandbox
   * with no network. Any base URL works; requests count as coming from 127.0.0.1.
   *
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * const provider = new ProviderClient({ baseUrl: 'https://sandbox.payorch.test', ...sandbox.accounts.provider, fetch: sandbox.fetch });
   * ```
   */
  readonly fetch: typeof globalThis.fetch = (input, init) => this.handle(input instanceof Request && init === undefined ? input : new Request(input, init));

  /**
   * Answers one request, with the caller's IP address for the whitelist.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * declare const request: Request; // a signed request of a client
   * const response = await sandbox.handle(request, { clientAddress: '203.0.113.7' }); // 403 IP address not allowed
   * ```
   */
  handle(request: Request, options: HandleOptions = {}): Promise<Response> {
    checkOptions('sandbox.handle', options, HANDLE_OPTIONS);
    return dispatch(this.#service, request, { clientAddress: options.clientAddress ?? LOOPBACK });
  }

  /**
   * Serves the sandbox over HTTP (node:http). Port 0 picks a free port; the IP whitelist then
   * checks the socket's address.
   *
   * @example
   * ```ts
   * import { ProviderClient } from 'payorch';
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * const { url, close } = await sandbox.listen({ port: 4010 });
   * const provider = new ProviderClient({ baseUrl: url, ...sandbox.accounts.provider });
   * await close();
   * ```
   */
  listen(options: ListenOptions = {}): Promise<RunningSandbox> {
    checkOptions('sandbox.listen', options, LISTEN_OPTIONS);
    return serveHttp(
      (request, caller) => dispatch(this.#service, request, caller),
      () => void this.#service.tick(),
      options,
      this.#publicUrl,
    );
  }

  /**
   * msw request handlers that answer every endpoint's path (`{baseUrl}/api/*`) and
   * `{baseUrl}/__sandbox/*` with the sandbox. Pass msw's `http`: payorch does not import msw (an optional peer dependency), so the
   * handlers are built by, and typed as, your own msw. `baseUrl` defaults to {@link SANDBOX_BASE_URL}.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * import { http } from 'msw';
   * import { setupServer } from 'msw/node';
   *
   * const server = setupServer(...sandbox.mswHandlers(http, { baseUrl: 'https://pay.example.test' }));
   * ```
   */
  mswHandlers<Handler>(http: MswHttp<Handler>, options: { readonly baseUrl?: string | undefined } = {}): Handler[] {
    return mswHandlers(http, (request, clientAddress) => dispatch(this.#service, request, { clientAddress }), options.baseUrl ?? SANDBOX_BASE_URL);
  }

  /**
   * Moves a record to an end status section 3 allows and delivers the callback that status
   * sends, retrying a receiver that does not answer 200. Resolves when delivery is over; rejects
   * with a {@link SandboxError} for an unknown record or a move the spec does not allow.
   * `amount` changes a deposit's final amount (the customer may change it on the payment page).
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const provider: ProviderClient;
   * declare const sandbox: Sandbox;
   * const { data } = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
   * const { callback } = await sandbox.settle(data.tracking_code, 'completed', { amount: 240 });
   * console.log(callback?.delivered);
   * ```
   */
  settle(id: string, status: string, options: SettleOptions = {}): Promise<SettleResult> {
    return this.#service.settle(id, status, options);
  }

  /**
   * Delivers a logged callback again: to its kind's callback URL now (or where it went, when
   * none is set), signed afresh or, with `resign: false`, with the very headers and body it was
   * first sent with, however long ago. Retried like any delivery. Rejects with a
   * {@link SandboxError} `unknown_delivery` for an id not (or no longer) in the log.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * declare const code: string; // a tracking code the sandbox gave
   * const { callback } = await sandbox.settle(code, 'completed');
   * await sandbox.clock.advance(2 * 86_400_000);
   * const again = await sandbox.redeliver(callback!.id, { resign: false }); // the 2-day-old signature
   * ```
   */
  redeliver(deliveryId: string, options: RedeliverOptions = {}): Promise<DeliveryResult> {
    return this.#service.redeliver(deliveryId, options);
  }

  /**
   * Every callback attempt so far, oldest first, with the receiver's answer.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * import { expect } from 'vitest';
   * declare const sandbox: Sandbox;
   * expect(sandbox.deliveries().map((attempt) => attempt.httpStatus)).toEqual([500, 200]);
   * ```
   */
  deliveries(): DeliveryAttempt[] {
    return this.#service.deliverer.attempts();
  }

  /**
   * Every record, oldest first, as snapshots.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * const pending = sandbox.records().filter((record) => record.status === 'pending');
   * ```
   */
  records(): SandboxRecord[] {
    return this.#service.records.list().map(snapshot);
  }

  /**
   * One record by tracking code or transfer id.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * sandbox.record('MAN-ab120001-1763812000')?.status; // 'showing'
   * ```
   */
  record(id: string): SandboxRecord | undefined {
    const record = this.#service.records.get(id);
    return record === undefined ? undefined : snapshot(record);
  }

  /**
   * Where callbacks go from now on; replaces the URLs given before.
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * declare const receiverUrl: string; // your receiver, for example http://127.0.0.1:3000/webhooks
   * sandbox.setCallbackUrls({ deposit: `${receiverUrl}/deposit`, withdrawal: `${receiverUrl}/withdrawal` });
   * ```
   */
  setCallbackUrls(urls: CallbackUrls): void {
    this.#service.callbackUrls = { ...urls };
  }

  /**
   * Resolves when no callback delivery is under way (expiry started by a request delivers in
   * the background).
   *
   * @example
   * ```ts
   * import type { Sandbox } from 'payorch/sandbox';
   * declare const sandbox: Sandbox;
   * await sandbox.idle();
   * ```
   */
  idle(): Promise<void> {
    return this.#service.deliverer.idle();
  }
}

/**
 * Makes a sandbox: a local Payment Orchestration Service with seeded, deterministic fixtures.
 *
 * @throws {RequestValidationError} (`invalid_option`) for an option out of range, naming it and its
 * range, or a name that is not an option
 * @example
 * ```ts
 * import { ProviderClient } from 'payorch';
 * import { createSandbox } from 'payorch/sandbox';
 *
 * const sandbox = createSandbox();
 * const { apiKey, secretKey, sites } = sandbox.accounts.provider;
 * const provider = new ProviderClient({ baseUrl: 'https://sandbox.payorch.test', apiKey, secretKey, credentialKey: sites[0].credentialKey, fetch: sandbox.fetch });
 * await provider.welcome();
 * ```
 */
export function createSandbox(options?: SandboxOptions): Sandbox {
  return new Sandbox(options);
}
