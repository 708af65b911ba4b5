import { constantTimeEqual } from '../core/signer.js';
import { authFailure, errorFailure } from './answers.js';
import type { Reply } from './answers.js';
import { checkSignature, isWhitelisted } from './auth.js';
import { control } from './control.js';
import type { SiteAccount } from './fixtures.js';
import { readParams } from './params.js';
import { CONTROL_PREFIX } from './route.js';
import type { Route } from './route.js';
import { dealerRoutes } from './routes/dealer.js';
import { providerRoutes } from './routes/provider.js';
import type { Service } from './service.js';

const API_PATHS = { provider: '/api/provider', dealer: '/api/dealer' } as const;

const ROUTES = new Map<string, Route>();
/** The methods each path takes, for the `Allow` header of a 405. */
const METHODS = new Map<string, string[]>();
for (const route of [...providerRoutes, ...dealerRoutes]) {
  const path = `${API_PATHS[route.api]}${route.endpoint.path}`;
  ROUTES.set(`${route.endpoint.method} ${path}`, route);
  METHODS.set(path, [...(METHODS.get(path) ?? []), route.endpoint.method]);
}

/**
 * Answers one request as the service would: route by the SDK's endpoint rows, authenticate
 * (5.1, 5.2, 7.1), check the account (active, IP, credential key), validate with the row's
 * strict schema, then run the endpoint. `clientAddress` is the caller's IP for the whitelist.
 */
export async function dispatch(service: Service, request: Request, clientAddress: string): Promise<Response> {
  // What time has done (expiry, transfer completion) happens before anyone looks.
  void service.tick();
  const url = new URL(request.url);
  if (url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
    return respond(await control(service, request, url, clientAddress));
  }
  const route = ROUTES.get(`${request.method} ${url.pathname}`);
  if (route !== undefined) return respond(await answer(service, route, request, url.origin, clientAddress));
  const methods = METHODS.get(url.pathname);
  if (methods !== undefined) {
    return respond({ ...errorFailure(405, 'Method Not Allowed', `${url.pathname} takes ${methods.join(', ')}`), headers: { Allow: methods.join(', ') } });
  }
  return respond(errorFailure(404, 'Not Found', `No endpoint at ${request.method} ${url.pathname}`));
}

async function answer(service: Service, route: Route, request: Request, origin: string, clientAddress: string): Promise<Reply<unknown>> {
  const { provider, dealer } = service.fixtures;
  // Signatures are checked against real time, never the record clock (see RecordClock).
  const signature = checkSignature(request.headers, route.api === 'provider' ? provider : dealer, route.endpoint.hash, Date.now());
  if (!signature.ok) return authFailure(signature.failure);
  let site: SiteAccount | undefined;
  if (route.api === 'provider') {
    if (!provider.active) return authFailure('provider_inactive');
    if (!isWhitelisted(clientAddress, provider.ipWhitelist)) return authFailure('ip_not_allowed');
    const { credentialKey } = signature;
    if (credentialKey !== undefined) {
      site = provider.sites.find((candidate) => constantTimeEqual(credentialKey, candidate.credentialKey));
      if (site === undefined) return authFailure('credential_key_refused');
    }
  }
  const params = await readParams(request, route.endpoint);
  if (!params.ok) return params.failure;
  return route.run({ service, origin, site }, params.value);
}

/** A reply as a Fetch `Response`, JSON, with a `Date` header the SDK's clock-skew correction reads. */
export function respond(reply: Reply<unknown>): Response {
  return new Response(JSON.stringify(reply.body), {
    status: reply.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', Date: new Date().toUTCString(), ...('headers' in reply ? reply.headers : {}) },
  });
}
