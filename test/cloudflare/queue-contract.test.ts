// The queue-adapter contract (payorch/testing) on payorch/cloudflare-queues, in workerd (miniflare)
// with local Queues, their dead-letter queues and D1, the Worker bundled from dist/ as wrangler
// bundles it. One workerd serves every case, and each case has a slot of its own in it: its queue,
// its dead-letter queue and its D1 database, named by the slot and given to the adapter by those
// names, so that a case's queues and D1 hold nothing of another's (a workerd per case cost more
// CPU than the cases themselves).
// The contract's receiver lives here, in the test: the Worker's queue handler is the adapter's
// `work`, and the `apply` it calls asks the test over HTTP (miniflare's outboundService), so the
// contract sees every call; `enqueue`, `send` and the dead letters are requests to the Worker.
// The consumer makes three attempts without waiting, and the dead-letter consumer gets one
// delivery only: a dead letter is in D1 after that first delivery, or nowhere. Neither Queues nor
// D1 has a retention here for `expire` to run (a dead-letter queue's, 14 days at most, is what the
// D1 table outlives).
import { Miniflare } from '../helpers/miniflare.js';
import type { Request as WorkerRequest } from '../helpers/miniflare.js';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { d1DeadLettersTableSql } from '../../src/queues/cloudflare-queues/index.js';
import type { CallbackQueue, DeadLetter, DeadLetters } from '../../src/queues/cloudflare-queues/index.js';
import type { CallbackJob } from '../../src/index.js';
import { queueContract } from '../../src/testing/index.js';
import type { QueueContractReceiver } from '../../src/testing/index.js';
import { bundleWorker } from '../helpers/worker-bundle.js';

const worker = `
import { CallbackJobError } from 'payorch';
import { createCloudflareQueue } from 'payorch/cloudflare-queues';

// The receiver's apply, in the test: its refusal comes back as the error it was, a refusal of the
// job as a CallbackJobError of this realm, which the adapter tells apart as it would in production.
const receiverOf = (slot) => ({
  async apply(job) {
    const answer = await fetch('http://contract.test/apply/' + slot, { method: 'POST', body: JSON.stringify(job) });
    if (answer.ok) return;
    const { name, message, reason, field, retryable } = await answer.json();
    if (name === 'CallbackJobError') throw new CallbackJobError(reason, field, message.replace('Callback refused (' + reason + '): ', ''), [], retryable);
    throw Object.assign(new Error(message), { name });
  },
});
// The slot's queue and D1, under the names its bindings and consumers have.
const queueOf = (env, slot) =>
  createCloudflareQueue({ queue: env['CALLBACKS_' + slot], db: env['DB_' + slot], queueName: 'payorch-callbacks-' + slot, deadLetterQueueName: 'payorch-callbacks-' + slot + '-dead', retryDelaySeconds: 0, maxRetryDelaySeconds: 0 });

export default {
  async fetch(request, env) {
    const { slot, op, job, id, options } = await request.json();
    const queue = queueOf(env, slot);
    try {
      switch (op) {
        case 'table':
          await env['DB_' + slot].prepare(${JSON.stringify(d1DeadLettersTableSql())}).run();
          return Response.json(null);
        case 'enqueue':
          return Response.json((await queue.enqueue(job)) ?? null);
        case 'send':
          await env['CALLBACKS_' + slot].send(job, { contentType: 'json' });
          return Response.json(null);
        case 'list':
          return Response.json(await queue.deadLetters.list(options));
        case 'get':
          return Response.json((await queue.deadLetters.get(id)) ?? null);
        case 'replay':
          return Response.json(await queue.deadLetters.replay(options));
        case 'purge':
          return Response.json(await queue.deadLetters.purge(options.before === undefined ? options : { before: new Date(options.before) }));
      }
    } catch (error) {
      return Response.json({ error: { name: error.name, message: error.message } }, { status: 500 });
    }
    return new Response(null, { status: 404 });
  },
  queue(batch, env) {
    const slot = /^payorch-callbacks-(\\d+)/.exec(batch.queue)[1];
    return queueOf(env, slot).work(receiverOf(slot), { onDeadLetter: () => undefined })(batch);
  },
};
`;

const cases = queueContract({ setup: engine });
// The receiver each slot's case gave `work`; until then, and once the case closed, its Worker's calls are refused.
const applying = new Map<number, QueueContractReceiver>();
let miniflare: Miniflare;
let origin: URL;
let slots = 0;

beforeAll(async () => {
  const names = cases.map((_, slot) => `payorch-callbacks-${slot}`);
  miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker(worker),
    compatibilityDate: '2025-09-01',
    d1Databases: Object.fromEntries(names.map((_, slot) => [`DB_${slot}`, `contract-${slot}`])),
    queueProducers: Object.fromEntries(names.map((queueName, slot) => [`CALLBACKS_${slot}`, { queueName }])),
    queueConsumers: Object.fromEntries(
      names.flatMap((name) => [
        [name, { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 2, deadLetterQueue: `${name}-dead` }],
        [`${name}-dead`, { maxBatchTimeout: 0, maxRetries: 0 }],
      ]),
    ),
    async outboundService(request: WorkerRequest) {
      try {
        const receiver = applying.get(Number(new URL(request.url).pathname.split('/').at(-1)));
        if (receiver === undefined) throw new Error('no receiver');
        await receiver.apply((await request.json()) as CallbackJob);
        return new Response(null, { status: 204 });
      } catch (error) {
        const { name, message, reason, field, retryable } = error as Error & Partial<Record<'reason' | 'field' | 'retryable', unknown>>;
        return Response.json({ name, message, reason, field, retryable }, { status: 500 });
      }
    },
  });
  origin = await miniflare.ready;
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

/** The dead letter as the Worker answered it, its times Dates again. */
function revived(value: Record<string, unknown>): DeadLetter {
  const history = (value['history'] as readonly Record<string, unknown>[]).map((life) => ({ ...life, deadAt: new Date(life['deadAt'] as string) }));
  return { ...value, receivedAt: new Date(value['receivedAt'] as string), deadAt: new Date(value['deadAt'] as string), history } as unknown as DeadLetter;
}

/** A slot of its own in the workerd, with the adapter as the Worker's queue handler. */
async function engine() {
  const slot = slots;
  slots += 1;
  if (slot >= cases.length) throw new Error(`more engines than the ${cases.length} slots of the contract's cases`);
  async function call(op: string, body: Record<string, unknown> = {}): Promise<unknown> {
    const answer = (await (await fetch(origin, { method: 'POST', body: JSON.stringify({ slot, op, ...body }) })).json()) as { error?: { name: string; message: string } } | null;
    if (answer?.error !== undefined) throw Object.assign(new Error(answer.error.message), { name: answer.error.name });
    return answer;
  }
  await call('table');
  const deadLetters: DeadLetters = {
    list: async (options) => {
      const page = (await call('list', { options })) as { deadLetters: Record<string, unknown>[]; cursor?: string };
      return { ...page, deadLetters: page.deadLetters.map(revived) };
    },
    get: async (id) => {
      const found = (await call('get', { id })) as (Record<string, unknown> & { job: CallbackJob }) | null;
      return found === null ? undefined : { ...revived(found), job: found.job };
    },
    replay: async (options) => (await call('replay', { options })) as { replayed: number; remaining: number },
    purge: async (options) => (await call('purge', { options: 'before' in options ? { before: options.before.getTime() } : options })) as { purged: number },
  };
  const queue: CallbackQueue = {
    enqueue: async (job) => {
      await call('enqueue', { job });
    },
    deadLetters,
  };
  return {
    queue,
    // One consumer: a later call's receiver takes over (a worker deployed again).
    work: (receiver: QueueContractReceiver) => {
      applying.set(slot, receiver);
    },
    send: (job: unknown) => call('send', { job }),
    expire: () => Promise.resolve(),
    close: () => Promise.resolve(void applying.delete(slot)),
  };
}

describe('the queue-adapter contract, on Cloudflare Queues and D1 in workerd', () => {
  for (const contractCase of cases) {
    // Each case has a slot of its own: they run side by side.
    test.concurrent(contractCase.name, contractCase.run, 120_000);
  }
});
