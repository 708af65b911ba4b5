import type { RequestOptions } from '../core/request-options.js';

/** Per-call settings of the Provider API: those of every call plus the site to act for. */
export interface ProviderRequestOptions extends RequestOptions {
  /**
   * Site credential key for this call only: for calls signed with the credential hash, and for
   * the body of a card payment.
   * @default the client's `credentialKey`
   * @example await provider.manual.startDeposit(body, { credentialKey: shopKey })
   */
  readonly credentialKey?: string | undefined;
}
