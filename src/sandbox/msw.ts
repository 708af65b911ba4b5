import type { HttpHandler } from 'msw';

/**
 * msw handlers that answer `{baseUrl}/api/*` and `{baseUrl}/__sandbox/*` with the sandbox.
 * Requests through msw have no socket: they count as coming from 127.0.0.1.
 */
export async function mswHandlers(handle: (request: Request, clientAddress: string) => Promise<Response>, baseUrl: string): Promise<HttpHandler[]> {
  // The only import of msw, an optional peer dependency: made on call, so that a bundler cannot
  // hoist it into the sandbox entry, which must load without msw installed.
  const { http } = await import('msw').catch((cause: unknown) => {
    throw new Error('sandbox.mswHandlers() needs msw, an optional peer dependency of payorch: npm install --save-dev msw', { cause });
  });
  const base = baseUrl.replace(/\/+$/, '');
  const resolver = ({ request }: { request: Request }) => handle(request, '127.0.0.1');
  return [http.all(`${base}/api/*`, resolver), http.all(`${base}/__sandbox`, resolver), http.all(`${base}/__sandbox/*`, resolver)];
}
