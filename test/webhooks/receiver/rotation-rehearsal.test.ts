import { afterEach, expect, test } from 'vitest';
import { ProviderClient, createCallbackReceiver, createMemoryInbox, resealCallbackJob } from '../../../src/index.js';
import type { CallbackJob, CallbackReceiver, MemoryInboxContext } from '../../../src/index.js';
import { createSandbox } from '../../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../../src/tools/sandbox/index.js';
import { SANDBOX_BASE_URL, customer } from '../../helpers/sandbox.js';
import { serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';

/*
 * A key rotation rehearsed on the sandbox, in the order of the runbook (docs/rotating-keys.md): the panel rotates, the receivers and workers are deployed with the new
 * keys and the old one as previousSecretKey, the API client moves over, the queue drains, the
 * window closes, and a dead letter sealed before the rotation is re-sealed. Deposits are settled
 * and their callbacks delivered over a real socket all along, applied from an in-process queue.
 * Nothing may be lost, and nothing applied twice.
 */

interface Keys {
  readonly apiKey: string;
  readonly secretKey: string;
}

/** An in-process queue engine: jobs kept as JSON text, a failed attempt retried, dead letters after the last. */
class Engine {
  readonly waiting: { text: string; tries: number }[] = [];
  readonly dead: { text: string; error: unknown }[] = [];
  readonly send = (job: CallbackJob): Promise<void> => {
    this.waiting.push({ text: JSON.stringify(job), tries: 0 });
    return Promise.resolve();
  };

  /** Gives every waiting job to the workers in turn, once; a failure waits for the next drain, or becomes a dead letter. */
  async drain(workers: readonly CallbackReceiver<MemoryInboxContext>[], attempts = 3): Promise<void> {
    const batch = this.waiting.splice(0);
    for (const [index, entry] of batch.entries()) {
      const worker = workers[index % workers.length];
      if (worker === undefined) throw new Error('no worker');
      try {
        await worker.apply(JSON.parse(entry.text) as CallbackJob);
      } catch (error) {
        entry.tries++;
        if (entry.tries >= attempts) this.dead.push({ text: entry.text, error });
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

const providerWith = (sandbox: Sandbox, keys: Keys) =>
  new ProviderClient({ baseUrl: SANDBOX_BASE_URL, ...keys, credentialKey: sandbox.accounts.provider.sites[0].credentialKey, fetch: sandbox.fetch, maxRetries: 0 });

test('a key rotation rehearsed on the sandbox while deposits are settled loses no callback and applies none twice', async () => {
  const sandbox = createSandbox({ callbackRetry: { attempts: 2, backoffMs: 100 } });
  const engine = new Engine();
  // One inbox for every receiver and worker, as one database is.
  const inbox = createMemoryInbox();
  const ledger = new Map<string, number>();
  const failing = new Set<string>();
  // The receivers' clock: real time, moved past `until` at the end of the rehearsal.
  let offsetMs = 0;

  const receiverOf = (keys: Keys, previous?: Keys & { until: Date }, aheadMs = 0): CallbackReceiver<MemoryInboxContext> => {
    const receiver = createCallbackReceiver({
      apiKey: keys.apiKey,
      secretKey: keys.secretKey,
      ...(previous === undefined ? {} : { previousSecretKey: { apiKey: previous.apiKey, secretKey: previous.secretKey, until: previous.until } }),
      merchantId: 'shop',
      inbox,
      enqueue: engine.send,
      now: () => Date.now() + offsetMs + aheadMs,
      logLevel: 'off',
      onError: () => undefined,
    });
    receiver.on('deposit.completed', (callback) => {
      const code = callback.payload.tracking_code;
      if (failing.has(code)) throw new Error('the ledger is down');
      ledger.set(code, (ledger.get(code) ?? 0) + 1);
    });
    return receiver;
  };

  // Before: the receivers and the worker on the keys the sandbox started with.
  const before: Keys = { ...sandbox.accounts.provider };
  let deployed = receiverOf(before);
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

  const deposit = async (client: ProviderClient) => (await client.manual.startDeposit({ ...customer, amount: 250 })).data.tracking_code;
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
    deployed = receiverOf(rotated, previous);
    // The workers too, one of them with a clock 2 s ahead.
    workers = [deployed, receiverOf(rotated, previous, 2000)];
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
  offsetMs = previous.until.getTime() - Date.now() + 60_000;
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
