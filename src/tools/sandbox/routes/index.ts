import { API_ENDPOINTS } from '../../../endpoint-table.js';
import type { Route } from '../route.js';
import { dealerHandlers } from './dealer.js';
import { providerHandlers } from './provider.js';

/**
 * The sandbox's routes are the endpoint rows of src/endpoint-table.ts, each joined to the handler
 * that serves its endpoint. A row without a handler stops the sandbox from loading (and
 * test/sandbox/routes/table.test.ts names it); a handler without a row is never reachable.
 */
export const SANDBOX_ROUTES: readonly Route[] = API_ENDPOINTS.map((row) => {
  const handler = [...providerHandlers, ...dealerHandlers].find((candidate) => candidate.endpoint === row.endpoint);
  if (handler === undefined) throw new Error(`The sandbox has no handler for ${row.api} ${row.endpoint.method} ${row.endpoint.path}`);
  return { ...row, run: handler.run };
});
