import { constantTimeEqual } from '../../internal/hash/constant-time.js';
import { API_ENDPOINTS, endpointPath } from '../registry/index.js';
import type { ApiEndpoint } from '../registry/index.js';
import { authFailure, errorFailure } from './answers.js';
import type { Reply } from './answers.js';
import { checkAccountSignature, isWhitelisted } from './auth.js';
import { control, decodePath, isLoopbackAddress } from './control.js';
import type { Caller } from './guard.js';
import { hostRefusal } from './guard.js';
import { postPage, showPage, wantsHtml } from './page.js';
import type { SiteAccount } from './fixtures.js';
import { readParams } from './params.js';
import { CONTROL_PREFIX } from './route.js';
import type { Service } from './service.js';

const ROUTES = new Map<string, ApiEndpoint>();
/** The methods each path takes, for the `Allow` header of a 405. */
const METHODS = new Map<string, string[]>();
for (const route of API_ENDPOINTS) {
  const path = endpointPath(route);
  ROUTES.set(`${route.endpoint.method} ${path}`, route);
  METHODS.set(path, [...(METHODS.get(path) ?? []), route.endpoint.method]);
}

/**
 * Answers one request as the service would: route by the SDK's endpoint rows, authenticate
 * (5.1, 5.2, 7.1), check the account (active, IP, credential key), validate with the row's
 * strict schema, then run the endpoint. The caller's IP is checked by the whitelist; its Host,
 * for the controls and the payment page.
 */
export async function dispatch(service: Service, request: Request, caller: Caller): Promise<Response> {
  // What time has done (expiry, transfer completion) happens before anyone looks.
  void service.tick();
  const url = new URL(request.url);
  if (url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`)) return controls(service, request, url, caller);
  const route = ROUTES.get(`${request.method} ${url.pathname}`);
  // Payment URLs come from publicUrl or the address the sandbox listens on, never from a Host header.
  if (route !== undefined) return respond(await answer(service, route, request, service.publicOrigin ?? url.origin, caller.clientAddress));
  const methods = METHODS.get(url.pathname);
  if (methods !== undefined) {
    return respond({ ...errorFailure(405, 'Method Not Allowed', `${url.pathname} takes ${methods.join(', ')}`), headers: { Allow: methods.join(', ') } });
  }
  return respond(errorFailure(404, 'Not Found', `No endpoint at ${request.method} ${url.pathname}`));
}

async function controls(service: Service, request: Request, url: URL, caller: Caller): Promise<Response> {
  if (!isLoopbackAddress(caller.clientAddress)) return respond(errorFailure(403, 'Forbidden', 'The sandbox controls answer loopback callers only'));
  const refusal = hostRefusal(caller);
  if (refusal !== undefined) return respond(errorFailure(403, 'Forbidden', refusal));
  // The payment page shares its URL with the record's JSON control: a browser gets the page.
  const recordId = /^\/__sandbox\/records\/([^/]+)$/.exec(url.pathname)?.[1];
  if (recordId !== undefined && request.method === 'GET' && wantsHtml(request)) return showPage(service, decodePath(recordId), url);
  if (recordId !== undefined && request.method === 'POST') return postPage(service, decodePath(recordId), request, caller);
  return respond(await control(service, request, url));
}

async function answer(service: Service, route: ApiEndpoint, request: Request, origin: string, clientAddress: string): Promise<Reply<unknown>> {
  const { provider, dealer } = service.fixtures;
  // Signatures are checked against real time, never the record clock (see RecordClock).
  const signature = checkAccountSignature(request.headers, route.api === 'provider' ? provider : dealer, route.endpoint.hash, Date.now());
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
  return route.serve({ service, origin, site }, params.value);
}

/** A reply as a Fetch `Response`, JSON, with a `Date` header the SDK's clock-skew correction reads. */
function respond(reply: Reply<unknown>): Response {
  return new Response(JSON.stringify(reply.body), {
    status: reply.status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      Date: new Date().toUTCString(),
      ...('headers' in reply ? reply.headers : {}),
    },
  });
}
