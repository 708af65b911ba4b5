import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError, signCallback, verifyCallback } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../src/tools/sandbox/index.js';
import { SANDBOX_DEFAULTS } from '../../src/tools/sandbox/options.js';
import { unsigned } from '../helpers/callbacks.js';
import { SANDBOX_BASE_URL, customer, dealerOf, handSigned, providerOf, read, startReceiver } from '../helpers/sandbox.js';
import type { TestReceiver } from '../helpers/sandbox.js';

// Key rotation in the sandbox: new keys for an account, the ones before valid for a window, and
// callbacks signed with the new ones. The rehearsal of a whole rotation with a receiver is
// test/webhooks/receiver/rotation-rehearsal.test.ts.

let receiver: TestReceiver | undefined;
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  await receiver?.close();
  receiver = undefined;
});

/** The provider's welcome, signed by hand with these keys: the answer's status. */
async function welcomeWith(sandbox: Sandbox, keys: { apiKey: string; secretKey: string }): Promise<number> {
  return (await sandbox.handle(handSigned(`${SANDBOX_BASE_URL}/api/provider/welcome`, keys))).status;
}

describe('sandbox.rotateKeys', () => {
  test('gives the account a new API key and secret key; the keys before sign requests until the window ends, in real time', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-03-01T10:00:00Z') });
    const sandbox = createSandbox();
    const before = sandbox.accounts.provider;
    const rotated = sandbox.rotateKeys('provider', { windowSeconds: 60 });
    expect(rotated).toEqual({
      account: 'provider',
      apiKey: expect.stringMatching(/^prov_api_[0-9a-f]{12}$/),
      secretKey: expect.stringMatching(/^prov_secret_[A-Za-z0-9]{24}$/),
      previous: { apiKey: before.apiKey, secretKey: before.secretKey, until: new Date('2026-03-01T10:01:00Z') },
    });
    expect(rotated.apiKey).not.toBe(before.apiKey);
    expect(rotated.secretKey).not.toBe(before.secretKey);
    expect(sandbox.accounts.provider).toMatchObject({ apiKey: rotated.apiKey, secretKey: rotated.secretKey, previous: rotated.previous });
    // The dealer is another account: untouched.
    expect(sandbox.accounts.dealer).toEqual(createSandbox().accounts.dealer);

    expect(await welcomeWith(sandbox, rotated)).toBe(200);
    expect(await welcomeWith(sandbox, before)).toBe(200);
    // No pair mixes the two rotations.
    expect(await welcomeWith(sandbox, { apiKey: rotated.apiKey, secretKey: before.secretKey })).toBe(401);
    vi.setSystemTime(Date.parse('2026-03-01T10:01:00Z'));
    expect(await welcomeWith(sandbox, before)).toBe(401);
    expect(await welcomeWith(sandbox, rotated)).toBe(200);
    expect(sandbox.accounts.provider.previous).toBeUndefined();
  });

  test('keepApiKey rotates the secret key only; a wrong hash with a known API key is still Invalid hash', async () => {
    const sandbox = createSandbox();
    const before = sandbox.accounts.dealer;
    const rotated = sandbox.rotateKeys('dealer', { windowSeconds: 60, keepApiKey: true });
    expect(rotated.apiKey).toBe(before.apiKey);
    expect(rotated.secretKey).toMatch(/^dealer_secret_/);
    await expect(dealerOf(sandbox).settings.get()).resolves.toMatchObject({ success: true });
    const old = await sandbox.handle(handSigned(`${SANDBOX_BASE_URL}/api/dealer/settings`, { method: 'GET', ...before }));
    expect(old.status).toBe(200);
    const wrong = await read(await sandbox.handle(handSigned(`${SANDBOX_BASE_URL}/api/dealer/settings`, { method: 'GET', apiKey: before.apiKey, secretKey: 'guessed' })));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'Invalid hash' } });
  });

  test('a window of 0 ends the keys before at once, and a second rotation replaces them', () => {
    const sandbox = createSandbox();
    const first = sandbox.rotateKeys('provider', { windowSeconds: 0 });
    expect(sandbox.accounts.provider.previous).toBeUndefined();
    const second = sandbox.rotateKeys('provider', { windowSeconds: 600 });
    expect(second.previous).toMatchObject({ apiKey: first.apiKey, secretKey: first.secretKey });
  });

  test('the same seed rotates to the same keys, and a rotation shifts no record id', async () => {
    // A stopped record clock: tracking codes end with the record time's second, which must not
    // tick between the two sandboxes compared.
    const startTime = new Date('2026-01-15T09:00:00Z');
    const one = createSandbox({ seed: 'rotation', startTime });
    const two = createSandbox({ seed: 'rotation', startTime });
    const keysOne = one.rotateKeys('provider', { windowSeconds: 60 });
    const keysTwo = two.rotateKeys('provider', { windowSeconds: 60 });
    expect([keysOne.apiKey, keysOne.secretKey]).toEqual([keysTwo.apiKey, keysTwo.secretKey]);
    const unrotated = createSandbox({ seed: 'rotation', startTime });
    const code = async (sandbox: Sandbox) => (await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 })).data.tracking_code;
    expect(await code(one)).toBe(await code(unrotated));
  });

  test.each([
    ['a negative window', { windowSeconds: -1 }, 'windowSeconds'],
    ['a window over 30 days', { windowSeconds: 30 * 86_400 + 1 }, 'windowSeconds'],
    ['no window', {}, 'windowSeconds'],
    ['keepApiKey that is not a boolean', { windowSeconds: 60, keepApiKey: 'yes' }, 'keepApiKey'],
  ])('refuses %s with a RequestValidationError naming it, changing nothing', (_name, options, field) => {
    const sandbox = createSandbox();
    const before = sandbox.accounts.provider;
    let caught: unknown;
    try {
      sandbox.rotateKeys('provider', options as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestValidationError);
    expect((caught as RequestValidationError).issues.map((issue) => issue.field)).toEqual([field]);
    expect(sandbox.accounts.provider).toEqual(before);
  });

  test('callbacks are signed with the new keys from the rotation on, a retry under way re-signed too; a delivery sent again with its first signature keeps the old keys', async () => {
    let rotate = (): void => undefined;
    receiver = await startReceiver([500, 200], () => {
      rotate();
    });
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { backoffMs: 0 } });
    const before = sandbox.accounts.provider;
    let rotated: { apiKey: string; secretKey: string } | undefined;
    // The panel rotates while the first attempt is being answered 500: the retry goes out after it.
    rotate = () => {
      rotated ??= sandbox.rotateKeys('provider', { windowSeconds: 600 });
    };
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    const settled = await sandbox.settle(data.tracking_code, 'completed');
    await sandbox.redeliver(settled.callback!.id, { resign: false });
    await sandbox.redeliver(settled.callback!.id, { resign: true });
    // Its keys, without `account`: the rotation's other fields are not options of verifyCallback.
    const keys = { apiKey: rotated!.apiKey, secretKey: rotated!.secretKey };
    const signedWith = receiver.received.map(({ headers, body }) => {
      if (headers['x-api-key'] === keys.apiKey) return verifyCallback({ headers, body }, keys).kind === 'deposit' && 'new';
      return verifyCallback({ headers, body }, before).kind === 'deposit' && 'old';
    });
    // The first attempt (500), its retry, the first signature again, a fresh one.
    expect(signedWith).toEqual(['old', 'new', 'old', 'new']);
  });
});

test('an account, before and after a rotation, is taken whole by the clients, verifyCallback and signCallback, as the sandbox guide spreads it', async () => {
  const sandbox = createSandbox();
  const spreadIn = async (): Promise<void> => {
    const { provider, dealer } = sandbox.accounts;
    const providerClient = new ProviderClient({ baseUrl: SANDBOX_BASE_URL, ...provider, credentialKey: provider.sites[0].credentialKey, fetch: sandbox.fetch, maxRetries: 0 });
    await expect(providerClient.welcome()).resolves.toMatchObject({ success: true });
    await expect(new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...dealer, fetch: sandbox.fetch, maxRetries: 0 }).settings.get()).resolves.toMatchObject({ success: true });
    const delivery = signCallback(unsigned.deposit, provider);
    expect(verifyCallback(delivery, { ...provider, now: () => sandbox.clock.now().getTime() }).kind).toBe('deposit');
  };
  await spreadIn();
  sandbox.rotateKeys('provider', { windowSeconds: 600 });
  sandbox.rotateKeys('dealer', { windowSeconds: 600 });
  expect(Object.keys(sandbox.accounts.provider)).toEqual(['apiKey', 'secretKey', 'key', 'sites', 'previous']);
  expect(Object.keys(sandbox.accounts.dealer)).toEqual(['apiKey', 'secretKey', 'previous']);
  await spreadIn();
});

describe('POST /__sandbox/rotate-keys', () => {
  const call = async (sandbox: Sandbox, body: unknown) =>
    read(await sandbox.handle(new Request(`${SANDBOX_BASE_URL}/__sandbox/rotate-keys`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })));

  test('rotates as rotateKeys does and answers the new keys and the ones before, with until as ISO text', async () => {
    const sandbox = createSandbox();
    const before = sandbox.accounts.dealer;
    const { status, body } = await call(sandbox, { account: 'dealer', windowSeconds: 120 });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, account: 'dealer', apiKey: sandbox.accounts.dealer.apiKey, secretKey: sandbox.accounts.dealer.secretKey, previous: { ...before, until: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
    expect((await read(await sandbox.handle(new Request(`${SANDBOX_BASE_URL}/__sandbox`)))).body['endpoints']).toEqual(expect.arrayContaining([expect.stringMatching(/^POST \/__sandbox\/rotate-keys /)]));
  });

  test('refuses an unknown account and a window out of range with 422, naming them, changing nothing', async () => {
    const sandbox = createSandbox();
    const before = sandbox.accounts;
    expect(await call(sandbox, { account: 'merchant', windowSeconds: 60 })).toMatchObject({ status: 422, body: { messages: [expect.stringMatching(/^account /)] } });
    expect(await call(sandbox, { account: 'provider', windowSeconds: 99_999_999 })).toMatchObject({ status: 422, body: { error: 'invalid_option', message: expect.stringMatching(/windowSeconds/) } });
    expect(sandbox.accounts).toEqual(before);
  });
});

describe("the runbook's gap (docs/rotating-keys.md)", () => {
  test("states the sandbox's default retry schedule: how many attempts, the first wait, and when the last attempt comes", async () => {
    const { attempts, backoffMs } = SANDBOX_DEFAULTS.callbackRetry;
    // Every attempt refused, as by receivers still on the old keys; the waits run on a fake clock.
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    vi.stubGlobal('fetch', () => Promise.resolve(new Response(null, { status: 401 })));
    const sandbox = createSandbox({ callbackUrls: { deposit: 'http://receiver.test/callbacks' } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    const settling = sandbox.settle(data.tracking_code, 'completed');
    await vi.runAllTimersAsync();
    const times = (await settling).callback!.attempts.map((attempt) => attempt.at.getTime());
    expect(times).toHaveLength(attempts);
    expect(times[1]! - times[0]!).toBe(backoffMs);
    const lastSeconds = (times.at(-1)! - times[0]!) / 1000;

    const runbook = readFileSync(join(import.meta.dirname, '../../docs/rotating-keys.md'), 'utf8').replace(/\s+/g, ' ');
    expect(runbook).toContain(`The sandbox's ${attempts} attempts, ${backoffMs / 1000} s apart and doubling, end **${lastSeconds} s** after the first`);
  });
});
