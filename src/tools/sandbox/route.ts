import type { z } from 'zod/mini';
import type { Endpoint } from '../../internal/endpoint.js';
import type { ValidationIssue } from '../../errors/error.js';
import { validationFailure } from './answers.js';
import type { Failure, Reply } from './answers.js';
import type { SiteAccount } from './fixtures.js';
import { issueMessages, validate } from './params.js';
import type { Service } from './service.js';

/** Path prefix of the sandbox's own controls; no path of the spec starts with it. */
export const CONTROL_PREFIX = '/__sandbox';

/** Where the customer would pay: the sandbox shows the record there. */
export const paymentUrl = (context: RouteContext, id: string): string => `${context.origin}${CONTROL_PREFIX}/records/${encodeURIComponent(id)}`;

/** What a handler gets besides its parameters. */
export interface RouteContext {
  readonly service: Service;
  /** Origin the request was sent to, for the `payment_url`s of new records. */
  readonly origin: string;
  /** The site of the X-Credential-Key, for endpoints signed with the credential hash. */
  readonly site: SiteAccount | undefined;
}

/** How the sandbox answers one endpoint: validates the raw parameters with the row's strict schema, then answers. */
export type Serve = (context: RouteContext, raw: unknown) => Reply<unknown>;

/**
 * The handler of an endpoint row. `handle` receives the parameters as the row's schema parsed
 * them and must answer with a body its response schema accepts, so the types keep both in step.
 * `invalid` may turn a schema failure into an endpoint's own error (the dealer's codes of 7.4).
 */
export function serve<P extends z.ZodMiniType, R extends z.ZodMiniType>(
  endpoint: Endpoint<P, R>,
  handle: (context: RouteContext, params: z.output<P>) => Reply<z.input<R>>,
  invalid?: (issues: readonly ValidationIssue[]) => Failure | undefined,
): Serve {
  return (context, raw) => {
    const parsed = validate(endpoint.params, raw);
    if (!parsed.ok) return invalid?.(parsed.issues) ?? validationFailure(issueMessages(parsed.issues));
    return handle(context, parsed.value);
  };
}

/** The site of a credential-hash endpoint; the dispatcher resolves it before any handler runs. */
export function siteOf(context: RouteContext): SiteAccount {
  if (context.site === undefined) throw new Error(`No site resolved: the endpoint is not signed with the credential hash`);
  return context.site;
}
