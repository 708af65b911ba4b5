/**
 * A loopback stand-in for the service that does the least a real one must: check X-Api-Key,
 * X-Timestamp and X-Hash (basic hash), then answer canned or generated JSON. It runs in its own
 * process so that its CPU time is not counted against the client being measured.
 *
 * Routes: POST /api/provider/welcome; POST /api/provider/start-manual-deposit (canned); GET /api/dealer/transactions (wallet `W-CANNED`: one fixed
 * page of 100 records; wallet `PERDAY-<n>`: n records a day, paginated, windows of at most 3
 * days as spec 7.4 demands); GET /__last: the previous signed request as the server saw it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECRETS } from '../fixtures/accounts.js';
import { responseBodies, welcome } from '../fixtures/bodies.js';
import { daysBetween, transactionsPage } from '../fixtures/transactions.js';
import { announce } from '../lib/processes.js';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly signatureValid: boolean;
}

const WELCOME = JSON.stringify(welcome);
const MANUAL_DEPOSIT = JSON.stringify(responseBodies.ManualDeposit);
const CANNED_PAGE = JSON.stringify(transactionsPage('W-CANNED', '2025-03-01', '2025-03-01', 1, 100));
let last: SeenRequest | undefined;

function signatureValid(headers: IncomingMessage['headers']): boolean {
  const apiKey = headers['x-api-key'];
  const timestamp = headers['x-timestamp'];
  const hash = headers['x-hash'];
  if (typeof apiKey !== 'string' || typeof timestamp !== 'string' || typeof hash !== 'string') return false;
  const secret = SECRETS[apiKey];
  if (secret === undefined || Math.abs(Number(timestamp) - Date.now() / 1000) > 300) return false;
  // The key and credential hashes put their value between the secret and the timestamp (spec 5.1).
  const between = headers['x-key'] ?? headers['x-credential-key'] ?? '';
  const expected = createHash('sha256').update(apiKey + secret + String(between) + timestamp, 'utf8').digest();
  const given = Buffer.from(hash, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function answer(url: URL, method: string): { status: number; body: string } {
  if (method === 'POST' && url.pathname === '/api/provider/welcome') return { status: 200, body: WELCOME };
  if (method === 'POST' && url.pathname === '/api/provider/start-manual-deposit') return { status: 200, body: MANUAL_DEPOSIT };
  if (method === 'GET' && url.pathname === '/api/dealer/transactions') {
    const walletId = url.searchParams.get('wallet_id') ?? '';
    if (walletId === 'W-CANNED') return { status: 200, body: CANNED_PAGE };
    const start = url.searchParams.get('start_date') ?? '';
    const end = url.searchParams.get('end_date') ?? '';
    const perDay = Number(/^PERDAY-(\d+)$/.exec(walletId)?.[1] ?? Number.NaN);
    const span = daysBetween(start, end);
    if (Number.isNaN(perDay)) return { status: 400, body: JSON.stringify({ success: false, error: 'WALLET_NOT_ASSIGNED', message: 'wallet' }) };
    // The strict reading of "at most 3 days": three calendar days, start and end included.
    if (!(span >= 0)) return { status: 400, body: JSON.stringify({ success: false, error: 'INVALID_DATE_RANGE', message: 'range' }) };
    if (span > 2) return { status: 400, body: JSON.stringify({ success: false, error: 'DATE_RANGE_EXCEEDED', message: 'range' }) };
    const page = Number(url.searchParams.get('page') ?? '1');
    return { status: 200, body: JSON.stringify(transactionsPage(walletId, start, end, page, perDay)) };
  }
  return { status: 404, body: JSON.stringify({ success: false, error: 'Not found', message: `${method} ${url.pathname}` }) };
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/__last') {
      send(response, 200, JSON.stringify(last ?? null));
      return;
    }
    const valid = signatureValid(request.headers);
    last = {
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
      body: Buffer.concat(chunks).toString('utf8'),
      signatureValid: valid,
    };
    if (!valid) {
      send(response, 401, JSON.stringify({ success: false, error: 'Invalid hash', message: 'Invalid hash' }));
      return;
    }
    const { status, body } = answer(url, request.method ?? '');
    send(response, status, body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  announce(`http://127.0.0.1:${address.port}`);
});
