import type { z } from 'zod/mini';
import type { Endpoint } from '../core/endpoint.js';
import type { Signing } from '../core/signer.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { RequestValidationError } from '../errors/request-validation-error.js';

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

/** What the provider resources share: the transport and the site they act for. @internal */
export class ProviderContext {
  readonly transport: Transport;
  readonly credentialKey: string | undefined;

  constructor(transport: Transport, credentialKey: string | undefined) {
    this.transport = transport;
    this.credentialKey = credentialKey;
  }

  async send<P extends z.ZodMiniType, R extends z.ZodMiniType>(
    endpoint: Endpoint<P, R>,
    params: z.input<P>,
    options: ProviderRequestOptions = {},
    key?: string,
    secrets: readonly string[] = [],
  ): Promise<z.output<R>> {
    return this.transport.send(endpoint, params, this.signing(endpoint, options, key), options, [...secrets, ...this.credentialKeys(options)]);
  }

  /**
   * The site credential keys a call may carry, signed or in its body (spec 5.1 rule 2), to be
   * kept out of error messages even when the service echoes them.
   */
  credentialKeys(options: ProviderRequestOptions): string[] {
    const key = options.credentialKey ?? this.credentialKey;
    return key === undefined ? [] : [key];
  }

  /** The site credential key of a call, or a refusal before anything is sent. */
  requireCredentialKey(operation: string, options: ProviderRequestOptions): string {
    const credentialKey = options.credentialKey ?? this.credentialKey;
    if (credentialKey === undefined || credentialKey === '') {
      throw new RequestValidationError(operation, [
        {
          field: 'credentialKey',
          rule: 'required',
          message: 'this call needs a site credential key: set credentialKey on the client, use provider.withSite(key), or pass { credentialKey } to the call',
        },
      ]);
    }
    return credentialKey;
  }

  signing(endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>, options: ProviderRequestOptions, key: string | undefined): Signing {
    switch (endpoint.hash) {
      case 'basic':
        return { hash: 'basic' };
      case 'credential':
        return { hash: 'credential', credentialKey: this.requireCredentialKey(endpoint.operation, options) };
      case 'key':
        if (key === undefined) throw new RequestValidationError(endpoint.operation, [{ field: 'key', rule: 'required', message: 'is required' }]);
        return { hash: 'key', key };
    }
  }
}
