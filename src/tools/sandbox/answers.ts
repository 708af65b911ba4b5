import type { AuthFailureReason, DealerErrorCode } from '../../errors/api-error.js';

/*
 * The answers the sandbox gives, in the spec's body shapes (7.2). HTTP statuses other than those
 * of 7.1 are not shown by the spec; the ones chosen here are listed in docs/spec-gaps.md.
 */

/** A success answer whose body has the type the endpoint's response schema accepts. */
export interface Success<T> {
  readonly status: 200;
  readonly body: T;
}

/** A failure answer, in one of the shapes of spec 7.2. */
export interface Failure {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers?: Readonly<Record<string, string>>;
}

export type ErrorBody =
  | { readonly success: false; readonly error: string; readonly message: string }
  | { readonly success: false; readonly error: string; readonly messages: readonly string[] }
  | { readonly success: false; readonly message: string };

export type Reply<T> = Success<T> | Failure;

export const success = <T>(body: T): Success<T> => ({ status: 200, body });

/** The refusals of spec 7.1, and 7.3's credential key of another provider, each with its status and text. */
export type AuthFailure = Exclude<AuthFailureReason, 'unknown'>;

const AUTH_FAILURES: Readonly<Record<AuthFailure, readonly [status: number, error: string, message: string]>> = {
  missing_headers: [401, 'Missing required headers', 'X-Api-Key, X-Hash and X-Timestamp are required, with X-Key or X-Credential-Key where the hash covers it'],
  invalid_api_key: [401, 'Invalid API key', 'The API key is not known'],
  timestamp_expired: [401, 'Request timestamp expired', 'X-Timestamp must be Unix seconds within 5 minutes of the server time'],
  invalid_hash: [401, 'Invalid hash', 'X-Hash does not match the signature of this request'],
  provider_inactive: [403, 'Provider account is inactive', 'The provider account has been deactivated'],
  ip_not_allowed: [403, 'IP address not allowed', 'The caller IP address is not in the whitelist'],
  // Spec 5.1 rule 3, 7.3: the site credential key does not belong to the calling provider.
  credential_key_refused: [403, 'Yetkisiz Credential Key', 'The site credential key does not belong to this provider'],
};

/** A failure of spec 7.1 (or 7.3's refused credential key). */
export function authFailure(reason: AuthFailure): Failure {
  const [status, error, message] = AUTH_FAILURES[reason];
  return { status, body: { success: false, error, message } };
}

/** The validation error of spec 7.2 and 7.3: Turkish title, one message per failed rule. */
export function validationFailure(messages: readonly string[]): Failure {
  return { status: 422, body: { success: false, error: 'Doğrulama hatası', messages } };
}

/** The error shape of spec 7.2. */
export function errorFailure(status: number, error: string, message: string): Failure {
  return { status, body: { success: false, error, message } };
}

/** The card error shape of spec 7.2: a message only. */
export function cardFailure(status: number, message: string): Failure {
  return { status, body: { success: false, message } };
}

/** A dealer error code of spec 7.4, carried in `error` of the error shape. */
export function dealerFailure(code: DealerErrorCode, message: string): Failure {
  return errorFailure(400, code, message);
}
