import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ProviderClient, verifyCallback } from '../../src/index.js';
import type { VerifiedCallback } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../src/tools/sandbox/index.js';
import { TOOLS, given, missingMessage } from '../../scripts/test-servers.mjs';
import { customer } from '../helpers/sandbox.js';

/*
 * The payment page clicked through in a real browser driven by playwright-core (which downloads
 * no browser): $PAYORCH_TEST_CHROMIUM, else the machine's Chromium (scripts/test-servers.mjs;
 * `npm test` installs Debian's where it is missing). Without one the tests fail, naming the command
 * for this machine: they never pass by skipping.
 * `UPDATE_SCREENSHOTS=1` rewrites docs/sandbox-payment-page*.png.
 */

const CHROMIUM = given(TOOLS.chromium) ?? TOOLS.chromium.find() ?? '';
// Read once: every test below fails with the same instruction when the browser is missing.
const MISSING = CHROMIUM === '' ? missingMessage(TOOLS.chromium) : existsSync(CHROMIUM) ? undefined : `${TOOLS.chromium.variable}=${CHROMIUM}: no such file`;

/** The flags of a headless Chromium on a closed network, started as root (docs/sandbox.md). */
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

interface Receiver {
  readonly url: string;
  readonly verified: VerifiedCallback[];
  readonly refused: string[];
  readonly server: Server;
}

/** A merchant's receiver: verifies every callback with verifyCallback, answers 200 or 401. */
async function startVerifyingReceiver(sandbox: Sandbox): Promise<Receiver> {
  const verified: VerifiedCallback[] = [];
  const refused: string[] = [];
  const { apiKey, secretKey } = sandbox.accounts.provider;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        verified.push(verifyCallback({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }, { apiKey, secretKey }));
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"success":true}');
      } catch (error) {
        refused.push(String(error));
        response.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payorch`, verified, refused, server };
}

let context: BrowserContext | undefined;
let running: RunningSandbox | undefined;
let receiver: Receiver | undefined;
let profile: string | undefined;
afterEach(async () => {
  await context?.close();
  await running?.close();
  const server = receiver?.server;
  if (server !== undefined) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  }
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
  context = running = receiver = profile = undefined;
});

/** A fresh profile each time; JavaScript off, to prove the page needs none. */
async function launch(): Promise<BrowserContext> {
  profile = await mkdtemp(join(tmpdir(), 'payorch-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, javaScriptEnabled: false, viewport: { width: 960, height: 900 } });
  return context;
}

async function depositPage(): Promise<{ sandbox: Sandbox; paymentUrl: string; trackingCode: string }> {
  const sandbox = createSandbox({ seed: 'payment-page' });
  receiver = await startVerifyingReceiver(sandbox);
  sandbox.setCallbackUrls({ deposit: receiver.url });
  running = await sandbox.listen({ port: 0 });
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  const provider = new ProviderClient({ baseUrl: running.url, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 });
  const { data } = await provider.manual.startDeposit({ ...customer, amount: 250 });
  return { sandbox, paymentUrl: data.payment_url, trackingCode: data.tracking_code };
}

describe('the payment page in Chromium', () => {
  // Each test fails, not skips, without the browser.
  beforeEach(() => {
    if (MISSING !== undefined) throw new Error(MISSING);
  });

  test('a customer changes the amount and completes a deposit; the callback arrives verified; the page shows the delivery', { timeout: 90_000 }, async () => {
    const { sandbox, paymentUrl, trackingCode } = await depositPage();
    const page = await (await launch()).newPage();
    await page.goto(paymentUrl);
    expect(await page.title()).toBe(`Manual deposit ${trackingCode} · payorch sandbox`);
    await expect.poll(() => page.locator('dd.mono').nth(1).textContent()).toMatch(/^TR\d{2}( \d{4}){5} \d{2}$/);
    await page.fill('#amount', '240');
    if (process.env['UPDATE_SCREENSHOTS'] === '1') await page.screenshot({ path: 'docs/sandbox-payment-page.png', fullPage: true });

    await page.getByRole('button', { name: 'Complete payment' }).click();
    await page.waitForURL(/\?done=completed&delivery=dlv_1$/);
    expect(receiver?.refused).toEqual([]);
    expect(receiver?.verified).toEqual([expect.objectContaining({ kind: 'deposit', payload: expect.objectContaining({ tracking_code: trackingCode, status: 'completed', amount: 240 }) as unknown })]);
    expect(sandbox.record(trackingCode)).toMatchObject({ status: 'completed', amount: 240 });
    expect(await page.getByRole('status').textContent()).toMatch(/^Payment completed\. Callback dlv_1 delivered to http:\/\/127\.0\.0\.1:\d+\/webhooks\/payorch: HTTP 200 after 1 attempt\.$/);

    // The delivery log's button sends the same signed callback again; the receiver verifies it too.
    await page.getByRole('button', { name: 'Redeliver, original signature' }).click();
    await page.waitForURL(/\?done=redeliver&delivery=dlv_2$/);
    expect(receiver?.verified).toHaveLength(2);
    expect(await page.locator('tbody tr').count()).toBe(2);
    if (process.env['UPDATE_SCREENSHOTS'] === '1') await page.screenshot({ path: 'docs/sandbox-payment-page-completed.png', fullPage: true });
  });

  test("a page on another origin cannot post the payment page's form", { timeout: 90_000 }, async () => {
    const { sandbox, paymentUrl, trackingCode } = await depositPage();
    // The attacker's page knows everything but the token: it is on another origin (another port).
    const attacker = createServer((_, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' }).end(
        `<form method="post" action="${paymentUrl}"><input name="token" value="guess"><input name="action" value="completed"><button>Win a prize</button></form>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const page = await (await launch()).newPage();
      await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      const [answer] = await Promise.all([page.waitForResponse(paymentUrl), page.getByRole('button', { name: 'Win a prize' }).click()]);
      expect(answer.status()).toBe(403);
      expect(sandbox.record(trackingCode)?.status).toBe('showing');
      expect(receiver?.verified).toEqual([]);
    } finally {
      attacker.closeAllConnections();
      await new Promise<void>((resolve) => attacker.close(() => { resolve(); }));
    }
  });
});
