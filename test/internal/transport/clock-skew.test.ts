import { describe, expect, test } from 'vitest';
import { AuthenticationError } from '../../../src/index.js';
import { CUSTOMER, DEPOSIT, WELCOME, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import type { SeenRequest } from '../../helpers/loopback.js';
import { PROVIDER, sha256 } from '../../helpers/wire.js';

closeLoopbackServers();

const TEN_MINUTES = 10 * 60 * 1000;
const expired = { success: false, error: 'Request timestamp expired', message: 'Check your clock' };

/** A service whose clock is 10 minutes ahead and that refuses timestamps more than 5 minutes off. */
async function skewedService(options: { sendDate?: boolean } = {}) {
  return startServer((request, response) => {
    const serverNow = Date.now() + TEN_MINUTES;
    const stamp = Number(request.headers['x-timestamp']) * 1000;
    if (options.sendDate === false) response.sendDate = false;
    const date = options.sendDate === false ? {} : { date: new Date(serverNow).toUTCString() };
    if (Math.abs(stamp - serverNow) > 5 * 60 * 1000) { json(response, 401, expired, date); return; }
    json(response, 200, request.url?.endsWith('/welcome') === true ? WELCOME : DEPOSIT, date);
  });
}

const lagSeconds = (request: SeenRequest) => Number(request.headers['x-timestamp']) - Date.now() / 1000;

describe('clock skew', () => {
  test('a refused timestamp teaches the offset and the call is sent once more, correctly signed', async () => {
    const server = await skewedService();
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey });
    // A payment: resending it is safe because the service refused the first one outright.
    await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).resolves.toEqual(DEPOSIT);
    expect(server.seen).toHaveLength(2);
    const [first, second] = server.seen as [SeenRequest, SeenRequest];
    expect(Math.abs(lagSeconds(first))).toBeLessThan(5);
    expect(Math.abs(lagSeconds(second) - 600)).toBeLessThan(5);
    expect(second.headers['x-hash']).toBe(sha256(PROVIDER.apiKey, PROVIDER.secretKey, PROVIDER.credentialKey, String(second.headers['x-timestamp'])));
    expect(second.body).toBe(first.body);
  });

  test('the offset is kept for later calls, including those of withSite() clients', async () => {
    const server = await skewedService();
    const client = providerFor(server);
    await client.welcome();
    await client.welcome();
    await client.withSite(PROVIDER.credentialKey).manual.startDeposit({ ...CUSTOMER, amount: 250 });
    expect(server.seen).toHaveLength(4);
    expect(server.seen.slice(2).map((request) => Math.round(lagSeconds(request) / 60))).toEqual([10, 10]);
  });

  test('clockOffsetMs set on the client is used from the first call', async () => {
    const server = await skewedService();
    await providerFor(server, { clockOffsetMs: TEN_MINUTES }).welcome();
    expect(server.seen).toHaveLength(1);
  });

  test('the corrected call is not sent a third time when the service still refuses it', async () => {
    noBackoff();
    // Refuses every timestamp, with a Date that moves further ahead each time.
    let ahead = TEN_MINUTES;
    const server = await startServer((_request, response) => {
      ahead += TEN_MINUTES;
      json(response, 401, expired, { date: new Date(Date.now() + ahead).toUTCString() });
    });
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).reason).toBe('timestamp_expired');
    expect(server.seen).toHaveLength(2);
  });

  test('a refused timestamp without a Date header is not retried', async () => {
    const server = await skewedService({ sendDate: false });
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect((error as AuthenticationError).reason).toBe('timestamp_expired');
    expect(server.seen).toHaveLength(1);
  });

  test('a refused timestamp whose Date agrees with the local clock is not retried', async () => {
    const server = await startServer((_request, response) => { json(response, 401, expired, { date: new Date().toUTCString() }); });
    await providerFor(server).welcome().catch(() => undefined);
    expect(server.seen).toHaveLength(1);
  });

  test('other 401 answers with a Date header are not retried', async () => {
    const server = await startServer((_request, response) => { json(response, 401, { success: false, error: 'Invalid hash' }, { date: new Date(Date.now() + TEN_MINUTES).toUTCString() }); },
    );
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect((error as AuthenticationError).reason).toBe('invalid_hash');
    expect(server.seen).toHaveLength(1);
  });

  test.each([
    ['three years ahead', 3 * 365 * 86_400_000],
    ['two days behind', -2 * 86_400_000],
  ])('a refused timestamp whose Date is %s is not learned: a warn, no resend, later calls unskewed', async (_name, offset) => {
    const server = await startServer((_request, response) => { json(response, 401, expired, { date: new Date(Date.now() + offset).toUTCString() }); });
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_fields: unknown, message: string) => { warnings.push(message); } };
    const client = providerFor(server, { logger });
    const error = await client.welcome().catch((caught: unknown) => caught);
    expect((error as AuthenticationError).reason).toBe('timestamp_expired');
    expect(server.seen).toHaveLength(1);
    expect(warnings).toEqual([expect.stringMatching(/ignored a Date header -?\d+ ms away from this machine's clock \(more than a day\)/)]);
    await client.welcome().catch(() => undefined);
    expect(Math.abs(lagSeconds(server.seen[1]!))).toBeLessThan(60);
  });

  test('the clock correction is made even with maxRetries: 0, which counts only ambiguous failures', async () => {
    const server = await skewedService();
    await expect(providerFor(server, { maxRetries: 0 }).welcome()).resolves.toEqual(WELCOME);
    expect(server.seen).toHaveLength(2);
  });

  test('the injected clock is what the offset corrects', async () => {
    const server = await skewedService();
    // This machine's clock is an hour behind real time; the service is ten minutes ahead of it.
    const client = providerFor(server, { now: () => Date.now() - 60 * 60 * 1000 });
    await client.welcome();
    expect(server.seen).toHaveLength(2);
    expect(Math.round(lagSeconds(server.seen[1]!) / 60)).toBe(10);
  });
});
