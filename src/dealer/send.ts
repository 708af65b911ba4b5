import type { z } from 'zod/mini';
import type { Endpoint } from '../core/endpoint.js';
import type { RequestOptions } from '../core/transport.js';

/**
 * Sends one dealer endpoint row; the resources' only way to the wire. Its own file, so that the
 * resources do not import the client that builds them. @internal
 */
export type DealerSend = <P extends z.ZodMiniType, R extends z.ZodMiniType>(
  endpoint: Endpoint<P, R>,
  params: z.input<P>,
  options?: RequestOptions,
) => Promise<z.output<R>>;
