import { API_ENDPOINTS, endpointPath } from '../registry/index.js';

/**
 * The part of msw's `http` namespace (`import { http } from 'msw'`) the sandbox uses. The caller
 * passes it in: payorch never imports msw, an optional peer dependency, so `payorch/sandbox` loads
 * and type-checks without it, and the handlers get the caller's own msw types.
 */
export interface MswHttp<Handler> {
  /** msw's `http.all(path, resolver)`: a handler for every method on `path`. */
  all(path: string, resolver: (info: { request: Request }) => Promise<Response>): Handler;
}

/**
 * msw handlers that answer `{baseUrl}/api/*`, every endpoint whose whole path lies elsewhere, and
 * `{baseUrl}/__sandbox/*` with the sandbox. Requests through msw have no socket: they count as
 * coming from 127.0.0.1.
 */
export function mswHandlers<Handler>(http: MswHttp<Handler>, handle: (request: Request, clientAddress: string) => Promise<Response>, baseUrl: string): Handler[] {
  const base = baseUrl.replace(/\/+$/, '');
  const resolver = ({ request }: { request: Request }) => handle(request, '127.0.0.1');
  // An endpoint given a whole path (`fullPath`) is outside /api/*: it gets a handler of its own.
  const elsewhere = new Set(API_ENDPOINTS.map((row) => endpointPath(row)).filter((path) => !path.startsWith('/api/')));
  return [http.all(`${base}/api/*`, resolver), ...[...elsewhere].map((path) => http.all(`${base}${path}`, resolver)), http.all(`${base}/__sandbox`, resolver), http.all(`${base}/__sandbox/*`, resolver)];
}
