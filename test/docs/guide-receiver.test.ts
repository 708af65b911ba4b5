import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { signCallback } from '../../src/index.js';
import type { CallbackReceiver, MemoryInboxContext } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * The first example of docs/receiving-callbacks.md ("The receiver") is the code most users copy: it is run
 * here as written, against a ledger of its declared functions, with the attacks it must survive.
 * The hash covers tracking_code, status and timestamp only: anyone who saw one genuine callback
 * can replay it with other unsigned fields.
 */

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'payorch-guide-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** The guide's first TypeScript block under "## The receiver", as a module exporting its receiver. */
function guideExample(): string {
  const guide = readFileSync(join(root, 'docs/receiving-callbacks.md'), 'utf8');
  const section = guide.slice(guide.indexOf('\n## The receiver\n'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined) throw new Error('docs/receiving-callbacks.md has no TypeScript block under "## The receiver"');
  const served = /^createServer\(receiver\.nodeHandler\)\.listen\(\d+\);$/m;
  expect(code).toMatch(served);
  return `${code.replaceAll("from 'payorch'", `from '${join(root, 'src/index.ts')}'`).replace(served, '')}\nexport { receiver };\n`;
}

let loaded = 0;
async function loadReceiver(): Promise<CallbackReceiver<MemoryInboxContext>> {
  const file = join(work, `guide-${loaded++}.ts`);
  writeFileSync(file, guideExample());
  return ((await import(file)) as { receiver: CallbackReceiver<MemoryInboxContext> }).receiver;
}

interface Order {
  readonly userId: string;
  readonly kind: 'deposit' | 'withdrawal';
  readonly amount: number;
}

// Your own records: the order rows saved when you called startDeposit / startWithdrawal, balances.
const orders = new Map<string, Order>();
const balances = new Map<string, number>();
const reviews: string[] = [];
const add = async (userId: string | undefined, amount: number): Promise<void> => {
  balances.set(userId ?? '?', (balances.get(userId ?? '?') ?? 0) + amount);
  await Promise.resolve();
};

// Every function the guide's example declares, now or before: it uses some of them.
const ledger = {
  orderOf: (trackingCode: string) => Promise.resolve(orders.get(trackingCode)),
  creditDeposit: (_trackingCode: string, userId: string, amount: number) => add(userId, amount),
  refund: (userId: string | undefined, amount: number) => add(userId, amount),
  flagForReview: async (trackingCode: string) => {
    reviews.push(trackingCode);
    await Promise.resolve();
  },
  // The guide's names before this test.
  creditBalance: (userId: string | undefined, amount: number) => add(userId, amount),
  expected: (trackingCode: string) => Promise.resolve(orders.get(trackingCode)),
};

const now = Math.floor(Date.now() / 1000);
const deposit = (trackingCode: string, fields: Record<string, unknown> = {}) => signCallback({ ...unsigned.deposit, tracking_code: trackingCode, ...fields }, { ...PROVIDER, timestamp: now });
const withdrawal = (trackingCode: string, status: string) => signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status, amount: 100 }, { ...PROVIDER, timestamp: now });

let receiver: CallbackReceiver<MemoryInboxContext>;
beforeEach(async () => {
  orders.clear();
  balances.clear();
  reviews.length = 0;
  for (const [name, value] of Object.entries(ledger)) vi.stubGlobal(name, value);
  vi.stubGlobal('provider', { creditCard: { getStatus: () => Promise.reject(new Error('no card payment in these tests')) } });
  vi.stubEnv('PAYORCH_PROVIDER_API_KEY', PROVIDER.apiKey);
  vi.stubEnv('PAYORCH_PROVIDER_SECRET_KEY', PROVIDER.secretKey);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  // The example has no onError: its refusals go to console.error.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  receiver = await loadReceiver();
  return () => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  };
});

describe("the guide's first receiver", () => {
  test('credits no one for a replayed deposit with { user_id: attacker, amount: 250000 }, and the genuine delivery still applies', async () => {
    const code = `MAN-replay1-${now}`;
    orders.set(code, { userId: 'u-1', kind: 'deposit', amount: 250 });
    const genuine = deposit(code, { user_id: 'u-1', amount: 250 });
    const replay = { headers: genuine.headers, body: JSON.stringify({ ...(JSON.parse(genuine.body) as object), user_id: 'attacker', amount: 250_000 }) };
    const first = await receiver.receive(replay);
    const second = await receiver.receive(genuine);
    expect({ attacker: balances.get('attacker'), owner: balances.get('u-1') }).toEqual({ attacker: undefined, owner: 250 });
    expect([first.status, second.status]).toEqual([409, 200]);
  });

  test('credits the amount the customer paid, changed on the payment page (spec 4.5), to the user who started the deposit', async () => {
    const code = `MAN-changed2-${now}`;
    orders.set(code, { userId: 'u-1', kind: 'deposit', amount: 250 });
    expect((await receiver.receive(deposit(code, { user_id: 'u-1', amount: 400 }))).status).toBe(200);
    expect((await receiver.receive(deposit(code, { user_id: 'u-1', amount: 400 }))).status).toBe(200);
    expect(Object.fromEntries(balances)).toEqual({ 'u-1': 400 });
  });

  test('refuses a deposit callback for a tracking code that is not one of your deposits', async () => {
    expect((await receiver.receive(deposit(`MAN-unknown3-${now}`, { user_id: 'u-1' }))).status).toBe(409);
    expect(Object.fromEntries(balances)).toEqual({});
  });

  test.each([
    ['canceled', ['canceled'], 100, []],
    ['rejected', ['rejected'], 100, []],
    ['failed', ['failed'], 100, []],
    ['rejected, then canceled', ['rejected', 'canceled'], 100, []],
    ['canceled, delivered twice', ['canceled', 'canceled'], 100, []],
    ['completed', ['completed'], undefined, []],
    ['completed, then canceled (flagged, not refunded)', ['completed', 'canceled'], undefined, ['WIT']],
  ] as const)('refunds a withdrawal that ends %s once at most', async (_name, statuses, refunded, flagged) => {
    const code = `WIT-w${statuses.length}${statuses[0]}-${now}`;
    orders.set(code, { userId: 'u-1', kind: 'withdrawal', amount: 100 });
    for (const status of statuses) expect((await receiver.receive(withdrawal(code, status))).status).toBe(200);
    expect(balances.get('u-1')).toBe(refunded);
    expect(reviews.map((reviewed) => reviewed.slice(0, 3))).toEqual(flagged);
  });

  test('refuses a withdrawal whose user or amount is not your record', async () => {
    const code = `WIT-tamper4-${now}`;
    orders.set(code, { userId: 'u-1', kind: 'withdrawal', amount: 100 });
    const genuine = withdrawal(code, 'rejected');
    const tampered = { headers: genuine.headers, body: JSON.stringify({ ...(JSON.parse(genuine.body) as object), amount: 100_000 }) };
    expect((await receiver.receive(tampered)).status).toBe(409);
    expect((await receiver.receive(genuine)).status).toBe(200);
    expect(Object.fromEntries(balances)).toEqual({ 'u-1': 100 });
  });
});
