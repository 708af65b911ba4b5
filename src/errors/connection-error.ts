import { PayorchError } from './payorch-error.js';
import type { CallOutcome } from './payorch-error.js';
import { brand } from './brand.js';
import { callLabel } from './failed-call.js';
import type { FailedCall } from './failed-call.js';

/**
 * Where a connection failed. All but `connection_failed` end before the request's first byte
 * could leave: the name did not resolve, the connection was refused or never established, or
 * the TLS handshake failed (docs/errors-and-retries.md has each runtime's signs).
 */
export type ConnectionFailureReason = 'name_not_resolved' | 'connection_refused' | 'connect_timeout' | 'tls_handshake' | 'connection_failed';

const DESCRIPTIONS: Readonly<Record<ConnectionFailureReason, string>> = {
  name_not_resolved: 'the host name did not resolve; nothing was sent',
  connection_refused: 'the connection was refused; nothing was sent',
  connect_timeout: 'the connection was not established in time; nothing was sent',
  tls_handshake: 'the TLS handshake failed (certificate or protocol); nothing was sent',
  connection_failed: 'the connection failed; the service may have received the request',
};

/**
 * No usable answer came back: the name did not resolve, the connection was refused, the TLS
 * handshake failed, or the connection was reset or broke mid-body. `outcome` is `not_sent` when
 * the failure came before the request could leave (every `reason` but `connection_failed`),
 * `unknown` otherwise.
 */
export class ConnectionError extends PayorchError {
  static {
    brand(this, 'ConnectionError');
  }
  /**
   * `true` when the connection was refused (`ECONNREFUSED` or the platform's equivalent): nothing
   * reached the service, and payorch resends even a payment-creating call. `false` for every other
   * failure, those that also sent nothing included: read `outcome` and `reason` for them.
   */
  readonly refused: boolean;
  /** Where the connection failed (see {@link ConnectionFailureReason}). */
  readonly reason: ConnectionFailureReason;
  /** The client method, its API first: `provider.manual.startDeposit`. */
  readonly operation: string;
  /** The method and the full URL of the request, query string included; never its headers, which carry the keys. */
  readonly request: { readonly method: string; readonly url: string };
  /** Made by the SDK when no answer came back; `reason` says where the connection failed. */
  constructor(options: FailedCall & { readonly cause: unknown; readonly reason: ConnectionFailureReason; readonly outcome?: CallOutcome | undefined }) {
    const sentNothing = options.reason !== 'connection_failed';
    super(`${callLabel(options)}: ${DESCRIPTIONS[options.reason]}`, { cause: options.cause, outcome: options.outcome ?? (sentNothing ? 'not_sent' : 'unknown') });
    this.refused = options.reason === 'connection_refused';
    this.reason = options.reason;
    this.operation = options.operation;
    this.request = options.request;
  }
}
