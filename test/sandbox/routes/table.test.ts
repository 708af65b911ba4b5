import { expect, test } from 'vitest';
import { API_ENDPOINTS } from '../../../src/endpoint-table.js';
import { dealerHandlers } from '../../../src/tools/sandbox/routes/dealer.js';
import { providerHandlers } from '../../../src/tools/sandbox/routes/provider.js';

// The sandbox routes by the endpoint rows; a row needs exactly one handler of its own API.
test('every endpoint row has exactly one handler of its API, and every handler serves a row', () => {
  const handlers = { provider: providerHandlers, dealer: dealerHandlers };
  const served = API_ENDPOINTS.filter((row) => handlers[row.api].filter((handler) => handler.endpoint === row.endpoint).length !== 1);
  expect(served.map((row) => `${row.api} ${row.endpoint.path}`)).toEqual([]);
  const rowless = [...providerHandlers, ...dealerHandlers].filter((handler) => !API_ENDPOINTS.some((row) => row.endpoint === handler.endpoint));
  expect(rowless.map((handler) => handler.endpoint.path)).toEqual([]);
  expect(providerHandlers.length + dealerHandlers.length).toBe(API_ENDPOINTS.length);
});
