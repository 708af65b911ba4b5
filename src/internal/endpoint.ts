import type { z } from 'zod/mini';


/**
 * Where an endpoint lives: `path` below its API's prefix (spec 4.1: `/withdraw` is
 * `/api/dealer/withdraw`), or `fullPath` below the base URL, taken whole (`/dealer/v1/limits`),
 * for an endpoint the service serves outside that prefix. One or the other, never both.
 */
export type EndpointLocation =
  | { /** Path below `/api/provider` or `/api/dealer`, starting with `/`. */ readonly path: string; readonly fullPath?: never }
  | { /** Path below the base URL, starting with `/`, with no API prefix added. */ readonly fullPath: string; readonly path?: never };

/**
 * One endpoint of the spec as data: where it lives (endpointPath, call.ts), how it is signed, whether it may be
 * resent, and the schemas of what goes in and comes out. Clients send it; the sandbox
 * serves it. One table, two users.
 */
export type Endpoint<P extends z.ZodMiniType, R extends z.ZodMiniType> = EndpointSpec<P, R> & EndpointLocation;

/** An endpoint's fields besides where it lives ({@link EndpointLocation}). */
export interface EndpointSpec<P extends z.ZodMiniType, R extends z.ZodMiniType> {
  /** Public name of the call (`manual.startDeposit`), used in error messages. */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
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
