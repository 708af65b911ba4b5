import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { DealerClient, PermissionDeniedError, ProviderClient } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../src/tools/sandbox/index.js';
import { customer, handSigned, read } from '../helpers/sandbox.js';

let running: RunningSandbox | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(sandbox: Sandbox): Promise<{ url: string; provider: ProviderClient; dealer: DealerClient }> {
  running = await sandbox.listen({ port: 0 });
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  return {
    url: running.url,
    provider: new ProviderClient({ baseUrl: running.url, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 }),
    dealer: new DealerClient({ baseUrl: running.url, ...sandbox.accounts.dealer, maxRetries: 0 }),
  };
}

describe('sandbox.listen()', () => {
  test('port 0 picks a free loopback port; both clients work over HTTP', async () => {
    const { url, provider, dealer } = await serve(createSandbox());
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await provider.welcome()).provider.name).toBe('Sandbox Provider');
    expect((await dealer.settings.get()).dealer_name).toBe('Sandbox Dealer');
  });

  test('payment URLs point at the listening sandbox', async () => {
    const { url, provider } = await serve(createSandbox());
    const { data } = await provider.manual.startDeposit({ ...customer, amount: 100 });
    expect(data.payment_url).toBe(`${url}/__sandbox/records/${data.tracking_code}`);
    const page = await fetch(data.payment_url);
    expect(await page.json()).toMatchObject({ success: true, record: { id: data.tracking_code, status: 'showing' } });
  });

  test('the whitelist checks the socket address', async () => {
    const allowed = await serve(createSandbox({ provider: { ipWhitelist: ['127.0.0.1'] } }));
    await expect(allowed.provider.welcome()).resolves.toMatchObject({ success: true });
    await running?.close();
    const refused = await serve(createSandbox({ provider: { ipWhitelist: ['198.51.100.4'] } }));
    const error = await refused.provider.welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).reason).toBe('ip_not_allowed');
  });

  test('200 concurrent requests over HTTP make 200 distinct records', async () => {
    const sandbox = createSandbox();
    const { provider } = await serve(sandbox);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, index) => provider.eiban.startDeposit({ ...customer, user_id: `u-${index}`, amount: 1 + index })));
    expect(new Set(answers.map((answer) => answer.data.tracking_code)).size).toBe(200);
    expect(sandbox.records()).toHaveLength(200);
    // 200 signed round trips take over 5 s when the machine is shared and loaded: the test is about
    // distinct records, not speed (bench/ measures speed).
  }, 30_000);

  test('a hand-signed request over HTTP gets the same answer as in process', async () => {
    const sandbox = createSandbox();
    const { url } = await serve(sandbox);
    const signed = handSigned(`${url}/api/provider/welcome`, { ...sandbox.accounts.provider, secretKey: 'wrong' });
    const answer = await fetch(signed);
    expect(await read(answer)).toEqual({ status: 401, body: { success: false, error: 'Invalid hash', message: 'X-Hash does not match the signature of this request' } });
    expect(answer.headers.get('date')).not.toBeNull();
  });

  test('a body over 1 MiB is refused with 413', async () => {
    const { url } = await serve(createSandbox());
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(`${url}/api/provider/welcome`, { method: 'POST' }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on('error', reject);
      outgoing.end(Buffer.alloc(1024 * 1024 + 1, 0x20));
    });
    expect(status).toBe(413);
  });

  test('close() stops the server', async () => {
    const { url } = await serve(createSandbox());
    await running?.close();
    running = undefined;
    await expect(fetch(`${url}/__sandbox`)).rejects.toThrow();
  });

  test('two sandboxes listen side by side, each with its own state', async () => {
    const first = createSandbox();
    const second = createSandbox();
    const one = await first.listen();
    const two = await second.listen();
    try {
      expect(one.url).not.toBe(two.url);
      const { apiKey, secretKey, sites } = first.accounts.provider;
      await new ProviderClient({ baseUrl: one.url, apiKey, secretKey, credentialKey: sites[0].credentialKey }).manual.startDeposit({ ...customer, amount: 5 });
      expect(first.records()).toHaveLength(1);
      expect(second.records()).toHaveLength(0);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
