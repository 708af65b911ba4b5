import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import { expectNoSecret, expectUsageError, payorch, useListeningSandbox } from './run.js';

const sandbox = useListeningSandbox();
const CARD = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 };

async function cardPayment(status?: string): Promise<string> {
  const { env } = sandbox;
  const provider = new ProviderClient({ baseUrl: sandbox.url, apiKey: env['PAYORCH_PROVIDER_API_KEY'] ?? '', secretKey: env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '', credentialKey: env['PAYORCH_CREDENTIAL_KEY'] ?? '' });
  const { data } = await provider.creditCard.createPayment(CARD);
  if (status !== undefined) await sandbox.sandbox.settle(data.tracking_code, status, { failDeliveries: true });
  return data.tracking_code;
}

describe('payorch reconcile', { timeout: 30_000 }, () => {
  test('reports each code\'s status and what a receiver would apply', async () => {
    const paid = await cardPayment('success');
    const refunded = await cardPayment('success');
    await sandbox.sandbox.settle(refunded, 'refunded');
    const pending = await cardPayment();
    const unknown = 'CC-nope1-1763812000';
    const run = await payorch(['reconcile', paid, refunded, pending, unknown], sandbox.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `${paid}  success  amount 150: a receiver applies creditCard.success (unless applied before)`,
        `${refunded}  refunded  amount 150: a receiver applies creditCard.success, then creditCard.refunded (unless applied before)`,
        `${pending}  pending: not ended; a receiver leaves it alone`,
        `${unknown}  not found: the service knows no such card payment`,
        '',
      ].join('\n'),
    );
    expectNoSecret(run, sandbox.env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '');
    const json = await payorch(['reconcile', paid, pending, '--json'], sandbox.env);
    expect(JSON.parse(json.stdout)).toEqual([
      { trackingCode: paid, result: 'end', status: 'success', amount: 150, wouldApply: ['creditCard.success'] },
      { trackingCode: pending, result: 'pending', status: 'pending', wouldApply: [] },
    ]);
  });

  test('a status that cannot be read (wrong secret: 401) exits 1 and says why, never "not found"', async () => {
    const paid = await cardPayment('success');
    const run = await payorch(['reconcile', paid, '--json'], { ...sandbox.env, PAYORCH_PROVIDER_SECRET_KEY: 'not-the-secret' });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject([{ trackingCode: paid, result: 'failed', error: { class: 'AuthenticationError', outcome: 'refused' } }]);
  });

  test("the service's text is printed escaped: a hostile answer cannot paint a line of its own over a pending code", async () => {
    // A proxy in front of the service answers one read with a status that carries a carriage
    // return, a line feed and a terminal escape, and another with a 502 whose text does the same.
    const paint = '\r\u001b[2K\u001b[1Asuccess  amount 150: a receiver applies creditCard.success\n';
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { tracking_code } = JSON.parse(body) as { tracking_code: string };
        if (tracking_code.startsWith('CC-pend')) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { tracking_code, status: `pending${paint}`, amount: 150 } }));
        } else {
          response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, error: `Bad gateway${paint}` }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const env = { ...sandbox.env, PAYORCH_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
      const run = await payorch(['reconcile', 'CC-pend1-1763812000', 'CC-gate1-1763812000', '--timeout', '2000'], env);
      expect(run.code).toBe(1);
      // No raw control character: one line per code, each as the command wrote it.
      // eslint-disable-next-line no-control-regex -- looking for control characters is the point
      expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/u);
      const lines = run.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('CC-pend1-1763812000  pending\\r\\u001b[2K\\u001b[1Asuccess  amount 150: a receiver applies creditCard.success\\n: not ended; a receiver leaves it alone');
      expect(lines[1]).toMatch(/^CC-gate1-1763812000 {2}not read: InternalServerError: Bad gateway\\r\\u001b\[2K\\u001b\[1Asuccess/);
    } finally {
      server.close();
    }
  });

  test.each([
    [[], /name at least one card payment tracking code/],
    [['MAN-a1-1763812000'], /code \[0\]: must be a provider card payment's tracking code/],
    [['CC-a1-1763812000', 'CC-a1-1763812000'], /code \[1\]: repeats code \[0\]/],
  ])('bad codes %j are a usage error, exit 2, before anything is read', async (codes, message) => {
    await expectUsageError(['reconcile', ...codes], sandbox.env, message);
  });
});
