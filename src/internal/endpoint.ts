import type { z } from 'zod/mini';
import type { Api } from '../core/api.js';


/** Where an API lives below the base URL: `/api/provider`, `/api/dealer`. Built here only. */
export const apiPath = (api: Api): string => `/api/${api}`;

/**
 * One endpoint of the spec as data: where it lives, how it is signed, whether it may be
 * resent, and the schemas of what goes in and comes out. Clients send it; the sandbox
 * serves it. One table, two users.
 */
export interface Endpoint<P extends z.ZodMiniType, R extends z.ZodMiniType> {
  /** Public name of the call (`manual.startDeposit`), used in error messages. */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  /** Path below `/api/provider` or `/api/dealer`. */
  readonly path: string;
  /** Hash of spec 5.1; the dealer API always uses `basic`. */
  readonly hash: 'basic' | 'key' | 'credential';
  /**
   * True when the service receiving it twice cannot move money twice. The transport may resend
   * only such a call; every other call is sent at most once once it may have reached the service.
   */
  readonly resendable: boolean;
  /** Strict schema of the request's parameters (body for POST, query for GET). */
  readonly params: P;
  /** Lenient schema of the success answer. */
  readonly response: R;
}

// A declaration, so that bundlers drop an unused endpoint from dist/ (they ignore the annotation on a `var` arrow).
// @__NO_SIDE_EFFECTS__
export function defineEndpoint<P extends z.ZodMiniType, R extends z.ZodMiniType>(endpoint: Endpoint<P, R>): Endpoint<P, R> {
  return endpoint;
}
