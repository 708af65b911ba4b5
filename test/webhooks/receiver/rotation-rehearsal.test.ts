import { afterEach, expect, test } from 'vitest';
import { ProviderClient, createCallbackReceiver, createMemoryInbox, resealCallbackJob } from '../../../src/index.js';
import type { CallbackJob, CallbackReceiver, CardStatusSource, MemoryInboxContext } from '../../../src/index.js';
import { retryCannotHelp } from '../../../src/queues/dead-letters.js';
import { receiverUntil } from '../../../src/tools/cli/sandbox-rotate.js';
import { createSandbox } from '../../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../../src/tools/sandbox/index.js';
import { SANDBOX_DEFAULTS } from '../../../src/tools/sandbox/options.js';
import { SANDBOX_BASE_URL, customer } from '../../helpers/sandbox.js';
import { serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';

/*
 * Key rotations rehearsed on the sandbox in the order of the runbook (docs/rotating-keys.md): the
 * panel rotates, workers and receivers are deployed with the new keys and the old one as
 * previousSecretKey (all at once, then rolled out beside the old ones through the gap, then ahead
 * of the panel where it shows the new keys first), the API client moves over, the queue drains,
 * the window closes, and a dead letter sealed before the rotation is re-sealed. Deposits are
 * settled and their callbacks delivered over a real socket all along, applied from an in-process
 * queue. Nothing may be lost, and nothing applied twice.
 */

interface Keys {
  readonly apiKey: string;
  readonly secretKey: string;
}

/**
 * An in-process queue engine: jobs kept as JSON text and given to the workers in turn; a failed
 * attempt is retried by the next worker, a refusal no retry can pass (as every adapter judges it)
 * is a dead letter at once, and so is a job whose attempts ran out.
 */
class Engine {
  readonly waiting: { text: string; tries: number; worker: number }[] = [];
  readonly dead: { text: string; error: unknown }[] = [];
  /** The reason of every refusal by `apply`, in order. */
  readonly refusals: unknown[] = [];
  #turn = 0;
  readonly send = (job: CallbackJob): Promise<void> => {
    this.waiting.push({ text: JSON.stringify(job), tries: 0, worker: this.#turn++ });
    return Promise.resolve();
  };

  /** Gives every waiting job to a worker, once; a failure waits for the next drain, or becomes a dead letter. */
  async drain(workers: readonly CallbackReceiver<MemoryInboxContext>[], attempts = 3, provider?: CardStatusSource): Promise<void> {
    for (const entry of this.waiting.splice(0)) {
      const worker = workers[entry.worker % workers.length];
      if (worker === undefined) throw new Error('no worker');
      try {
        await worker.apply(JSON.parse(entry.text) as CallbackJob, { provider });
      } catch (error) {
        this.refusals.push((error as { reason?: unknown }).reason);
        entry.tries++;
        entry.worker++;
        if (retryCannotHelp(error) || entry.tries >= attempts) this.dead.push({ text: entry.text, error });
        else this.waiting.push(entry);
      }
    }
  }
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

// The keys alone: a rotation's result also names its `account`, which is no option of a client.
const providerWith = (sandbox: Sandbox, keys: Keys) =>
  new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey: keys.apiKey, secretKey: keys.secretKey, credentialKey: sandbox.accounts.provider.sites[0].credentialKey, fetch: sandbox.fetch, maxRetries: 0 });

/** What every receiver and worker of one merchant shares: one inbox (as one database is), one queue, one ledger. */
interface Site {
  readonly inbox: ReturnType<typeof createMemoryInbox>;
  readonly engine: Engine;
  /** How many times each tracking code was applied. */
  readonly ledger: Map<string, number>;
  /** Tracking codes whose handler fails, as when the ledger is down. */
  readonly failing: Set<string>;
  /** The receivers' clock: real time, moved past `until` at the end of a rehearsal. */
  offsetMs: number;
}

const siteOf = (): Site => ({ inbox: createMemoryInbox(), engine: new Engine(), ledger: new Map(), failing: new Set(), offsetMs: 0 });

/** A receiver (or a worker: the same code, calling `apply`) deployed with these keys. */
function receiverOf(site: Site, keys: Keys, previous?: Keys & { until: Date }, aheadMs = 0): CallbackReceiver<MemoryInboxContext> {
  const receiver = createCallbackReceiver({
    apiKey: keys.apiKey,
    secretKey: keys.secretKey,
    ...(previous === undefined ? {} : { previousSecretKey: { apiKey: previous.apiKey, secretKey: previous.secretKey, until: previous.until } }),
    merchantId: 'shop',
    inbox: site.inbox,
    enqueue: site.engine.send,
    now: () => Date.now() + site.offsetMs + aheadMs,
    logLevel: 'off',
    onError: () => undefined,
  });
  const record = (code: string): void => {
    if (site.failing.has(code)) throw new Error('the ledger is down');
    site.ledger.set(code, (site.ledger.get(code) ?? 0) + 1);
  };
  receiver.on('deposit.completed', (callback) => {
    record(callback.payload.tracking_code);
  });
  receiver.on('creditCard.success', (callback) => {
    record(callback.payload.tracking_code);
  });
  return receiver;
}

const deposit = async (client: ProviderClient) => (await client.manual.startDeposit({ ...customer, amount: 250 })).data.tracking_code;
const statusesOf = (result: { callback?: { attempts: readonly { httpStatus: number | undefined }[] } | undefined }) => result.callback?.attempts.map((attempt) => attempt.httpStatus);

test('a key rotation rehearsed on the sandbox while deposits are settled loses no callback and applies none twice', async () => {
  const sandbox = createSandbox({ callbackRetry: { attempts: 2, backoffMs: 100 } });
  const site = siteOf();
  const { engine, ledger, failing } = site;
  const receiverAt = (keys: Keys, previous?: Keys & { until: Date }, aheadMs = 0) => receiverOf(site, keys, previous, aheadMs);

  // Before: the receivers and the worker on the keys the sandbox started with.
  const before: Keys = { ...sandbox.accounts.provider };
  let deployed = receiverAt(before);
  let workers = [deployed];
  // Deployed when the receivers first refuse a callback signed with the new keys.
  let deploy: (() => void) | undefined;
  served = await serveNode((request, response) => {
    response.on('finish', () => {
      if (response.statusCode === 401) deploy?.();
    });
    return deployed.nodeHandler(request, response);
  });
  sandbox.setCallbackUrls({ deposit: served.url });

  const oldClient = providerWith(sandbox, before);
  const [d1, d2, d5, d6] = [await deposit(oldClient), await deposit(oldClient), await deposit(oldClient), await deposit(oldClient)];

  // 1. Before the rotation: d1 applies; d2's handler fails until its job is a dead letter (sealed
  // with the old key); d6 is queued and still waiting; d5's endpoint is down, every attempt fails.
  failing.add(d2);
  const first = await sandbox.settle(d1, 'completed');
  await sandbox.settle(d2, 'completed');
  for (let attempt = 0; attempt < 3; attempt++) await engine.drain(workers);
  expect(engine.dead).toHaveLength(1);
  await sandbox.settle(d6, 'completed');
  const lost = await sandbox.settle(d5, 'completed', { failDeliveries: true });
  expect(lost.callback?.delivered).toBe(false);

  // 2. The panel rotates; the window of the keys before is the receivers' `until`.
  const rotated = sandbox.rotateKeys('provider', { windowSeconds: 600 });
  const previous = { ...rotated.previous };
  // 3. A callback signed with the new keys reaches the receivers still on the old ones (401); they
  // are deployed with the new keys and the old one as previousSecretKey, and the retry applies.
  deploy = () => {
    deploy = undefined;
    deployed = receiverAt(rotated, previous);
    // The workers too, one of them with a clock 2 s ahead.
    workers = [deployed, receiverAt(rotated, previous, 2000)];
  };
  const d3 = await deposit(oldClient);
  const third = await sandbox.settle(d3, 'completed');
  expect(third.callback?.attempts.map((attempt) => attempt.httpStatus)).toEqual([401, 200]);

  // 4. Inside the window: d1's first signature (old keys) and a fresh one come again, and d5's
  // first signature (old keys) is finally delivered; its first attempt to apply fails.
  expect((await sandbox.redeliver(first.callback!.id, { resign: false })).delivered).toBe(true);
  expect((await sandbox.redeliver(first.callback!.id, { resign: true })).delivered).toBe(true);
  failing.add(d5);
  expect((await sandbox.redeliver(lost.callback!.id, { resign: false })).delivered).toBe(true);
  // 5. The API client moves to the new keys; the old ones still sign during the window.
  const d7 = await deposit(oldClient);
  const newClient = providerWith(sandbox, rotated);
  const d8 = await deposit(newClient);
  await sandbox.settle(d7, 'completed');
  await sandbox.settle(d8, 'completed');
  // 6. The queue drains: d6's job, sealed with the old key, applies inside the window.
  await engine.drain(workers);
  expect(engine.waiting.map((entry) => (JSON.parse(entry.text) as CallbackJob).payload.tracking_code)).toEqual([d5]);

  // 7. The window closes. d5, acknowledged inside it, is applied by its retry after it.
  site.offsetMs = previous.until.getTime() - Date.now() + 60_000;
  failing.delete(d5);
  await engine.drain(workers);
  const d4 = await deposit(newClient);
  await sandbox.settle(d4, 'completed');
  await engine.drain(workers);
  // The old keys' signature is refused now, and it was applied long ago.
  expect((await sandbox.redeliver(first.callback!.id, { resign: false })).attempts[0]?.httpStatus).toBe(401);

  // 8. The dead letter of d2, sealed with the old key, is refused as such, never as a forgery, and
  // applies once re-sealed with the old key given on purpose.
  failing.clear();
  const [letter] = engine.dead.splice(0);
  const job = JSON.parse(letter!.text) as CallbackJob;
  await expect(deployed.apply(job)).rejects.toMatchObject({ name: 'CallbackJobError', reason: 'seal_key_expired', field: 'seal' });
  await deployed.apply(resealCallbackJob(job, { oldSecretKey: before.secretKey, secretKey: rotated.secretKey }));

  expect(engine.waiting).toEqual([]);
  expect(engine.dead).toEqual([]);
  expect(Object.fromEntries(ledger)).toEqual(Object.fromEntries([d1, d2, d3, d4, d5, d6, d7, d8].map((code) => [code, 1])));
}, 60_000);

test("the runbook's steps hold through a rolling deploy: old and new receivers and workers side by side, the gap's callback applied by the service's last retry, a lost card payment by its status read, each payment once, nothing dead-lettered", async () => {
  // The sandbox's schedule, its waits shortened: the gap ends after all attempts but the last are refused.
  const { attempts } = SANDBOX_DEFAULTS.callbackRetry;
  const sandbox = createSandbox({ callbackRetry: { attempts, backoffMs: 10 } });
  const site = siteOf();
  const { engine, ledger } = site;
  const before: Keys = { apiKey: sandbox.accounts.provider.apiKey, secretKey: sandbox.accounts.provider.secretKey };
  const oldClient = providerWith(sandbox, before);

  // The receivers behind a load balancer that gives each request to the next one.
  const oldReceiver = receiverOf(site, before);
  const oldWorker = receiverOf(site, before);
  let receivers = [oldReceiver];
  let workers = [oldWorker];
  let turn = 0;
  let endGap: (() => void) | undefined;
  let refusedInGap = 0;
  served = await serveNode((request, response) => {
    response.on('finish', () => {
      if (response.statusCode === 401 && endGap !== undefined && ++refusedInGap === attempts - 1) {
        endGap();
        endGap = undefined;
      }
    });
    return receivers[turn++ % receivers.length]!.nodeHandler(request, response);
  });
  sandbox.setCallbackUrls({ deposit: served.url, creditCard: served.url });
  const [p1, p2, p3, p4] = [await deposit(oldClient), await deposit(oldClient), await deposit(oldClient), await deposit(oldClient)];
  const card = (await oldClient.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 })).data.tracking_code;

  // 1. Before (every receiver has its merchantId): p1 applies; p2's job waits, sealed with the old key.
  const first = await sandbox.settle(p1, 'completed');
  await engine.drain(workers);
  await sandbox.settle(p2, 'completed');
  expect(engine.waiting).toHaveLength(1);

  // 2. The panel rotates; the receivers' `until` is the one `payorch sandbox rotate-keys` prints.
  const rotated = sandbox.rotateKeys('provider', { windowSeconds: 600 });
  const previous = { ...rotated.previous, until: new Date(receiverUntil(Date.now(), rotated.previous.until.toISOString())) };
  // 3. Workers, then receivers, rolled out: the first new ones come up beside the old ones.
  const newReceiver = receiverOf(site, rotated, previous);
  const newWorker = receiverOf(site, rotated, previous);
  // A card payment settled early in the gap: every attempt refused, its callback is lost.
  expect(statusesOf(await sandbox.settle(card, 'success'))).toEqual(Array.from({ length: attempts }, () => 401));
  endGap = () => {
    workers = [oldWorker, newWorker];
    receivers = [newReceiver, oldReceiver];
    turn = 0;
  };
  // p3 is settled in the gap: the old receivers refuse its new signature until the last attempt.
  const inGap = await sandbox.settle(p3, 'completed');
  expect(statusesOf(inGap)).toEqual([...Array.from({ length: attempts - 1 }, () => 401), 200]);
  // Side by side: an old receiver refuses p4's new signature and the retry reaches a new one; both
  // take p1's first signature (the old keys), sent again, as a duplicate.
  expect(statusesOf(await sandbox.settle(p4, 'completed'))).toEqual([401, 200]);
  expect((await sandbox.redeliver(first.callback!.id, { resign: false })).attempts.map((attempt) => attempt.httpStatus)).toEqual([200]);
  expect((await sandbox.redeliver(first.callback!.id, { resign: false })).attempts.map((attempt) => attempt.httpStatus)).toEqual([200]);
  // Old and new workers drain the queue: a job sealed with the new key that reaches an old worker
  // is refused as seal_key_unknown and retried by a new one; the old key's jobs apply on either.
  while (engine.waiting.length > 0) await engine.drain(workers);
  expect(engine.refusals).toContain('seal_key_unknown');
  // The roll-out ends.
  receivers = [newReceiver];
  workers = [newWorker];

  // 4. The API client moves to the new keys; the lost card payment comes back by its status read.
  const newClient = providerWith(sandbox, { apiKey: rotated.apiKey, secretKey: rotated.secretKey });
  const p5 = await deposit(newClient);
  expect(statusesOf(await sandbox.settle(p5, 'completed'))).toEqual([200]);
  expect(await newReceiver.reconcile({ provider: newClient, trackingCodes: [card] })).toEqual([{ trackingCode: card, result: 'queued', status: 'success' }]);
  // 5. Drain before `until`.
  await engine.drain(workers, 3, newClient);

  expect(engine.waiting).toEqual([]);
  expect(engine.dead).toEqual([]);
  expect(new Set(engine.refusals)).toEqual(new Set(['seal_key_unknown']));
  expect(Object.fromEntries(ledger)).toEqual(Object.fromEntries([p1, p2, p3, p4, p5, card].map((code) => [code, 1])));
}, 60_000);

test('where the panel shows the new keys before it activates them, receivers and workers deployed with them first refuse no callback', async () => {
  // One delivery attempt: a refusal would lose the callback. A sandbox of the same seed rotates to
  // the same keys, so it shows them ahead, as such a panel would.
  const sandbox = createSandbox({ seed: 'ahead', callbackRetry: { attempts: 1 } });
  const ahead = createSandbox({ seed: 'ahead' }).rotateKeys('provider', { windowSeconds: 600 });
  const site = siteOf();
  const current: Keys = { apiKey: sandbox.accounts.provider.apiKey, secretKey: sandbox.accounts.provider.secretKey };
  const client = providerWith(sandbox, current);
  const [p1, p2] = [await deposit(client), await deposit(client)];

  // Deployed first: the new keys as apiKey and secretKey, the current ones as previousSecretKey.
  const until = new Date(receiverUntil(Date.now(), ahead.previous.until.toISOString()));
  const deployed = receiverOf(site, ahead, { ...current, until });
  served = await serveNode(deployed.nodeHandler);
  sandbox.setCallbackUrls({ deposit: served.url });

  const first = await sandbox.settle(p1, 'completed');
  expect(statusesOf(first)).toEqual([200]);
  expect(sandbox.rotateKeys('provider', { windowSeconds: 600 })).toMatchObject({ apiKey: ahead.apiKey, secretKey: ahead.secretKey });
  expect(statusesOf(await sandbox.settle(p2, 'completed'))).toEqual([200]);
  expect((await sandbox.redeliver(first.callback!.id, { resign: false })).delivered).toBe(true);
  await site.engine.drain([deployed]);

  expect(site.engine.refusals).toEqual([]);
  expect(site.engine.waiting).toEqual([]);
  expect(Object.fromEntries(site.ledger)).toEqual({ [p1]: 1, [p2]: 1 });
});
