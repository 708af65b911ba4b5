// The queue-adapter contract (payorch/testing) on payorch/cloudflare-queues, in workerd (miniflare)
// with a local Queue, its dead-letter queue and D1, the Worker bundled from dist/ as wrangler
// bundles it. Each case gets a workerd of its own: its queues and its D1 hold nothing of another's.
// The contract's receiver lives here, in the test: the Worker's queue handler is the adapter's
// `work`, and the `apply` it calls asks the test over HTTP (miniflare's outboundService), so the
// contract sees every call; `enqueue`, `send` and the dead letters are requests to the Worker.
// The consumer makes three attempts without waiting, and the dead-letter consumer gets one
// delivery only: a dead letter is in D1 after that first delivery, or nowhere. Neither Queues nor
// D1 has a retention here for `expire` to run (a dead-letter queue's, 14 days at most, is what the
// D1 table outlives).
import { Miniflare } from '../helpers/miniflare.js';
import type { Request as WorkerRequest } from '../helpers/miniflare.js';
import { beforeAll, describe, test } from 'vitest';
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
const receiver = {
  async apply(job) {
    const answer = await fetch('http://contract.test/apply', { method: 'POST', body: JSON.stringify(job) });
    if (answer.ok) return;
    const { name, message, reason, field, retryable } = await answer.json();
    if (name === 'CallbackJobError') throw new CallbackJobError(reason, field, message.replace('Callback refused (' + reason + '): ', ''), [], retryable);
    throw Object.assign(new Error(message), { name });
  },
};
const queueOf = (env) => createCloudflareQueue({ queue: env.CALLBACKS, db: env.DB, retryDelaySeconds: 0, maxRetryDelaySeconds: 0 });

export default {
  async fetch(request, env) {
    const queue = queueOf(env);
    const { op, job, id, options } = await request.json();
    try {
      switch (op) {
        case 'table':
          await env.DB.prepare(${JSON.stringify(d1DeadLettersTableSql())}).run();
          return Response.json(null);
        case 'enqueue':
          return Response.json((await queue.enqueue(job)) ?? null);
        case 'send':
          await env.CALLBACKS.send(job, { contentType: 'json' });
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
  queue: (batch, env) => queueOf(env).work(receiver, { onDeadLetter: () => undefined })(batch),
};
`;

let script: string;
beforeAll(async () => {
  script = await bundleWorker(worker);
}, 60_000);

/** The dead letter as the Worker answered it, its times Dates again. */
function revived(value: Record<string, unknown>): DeadLetter {
  const history = (value['history'] as readonly Record<string, unknown>[]).map((life) => ({ ...life, deadAt: new Date(life['deadAt'] as string) }));
  return { ...value, receivedAt: new Date(value['receivedAt'] as string), deadAt: new Date(value['deadAt'] as string), history } as unknown as DeadLetter;
}

/** A workerd of its own, with the adapter as the Worker's queue handler. */
async function engine() {
  // The receiver the case's `work` gave; until then, the Worker's calls are refused.
  let applying: QueueContractReceiver | undefined;
  const miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'contract' },
    queueProducers: { CALLBACKS: { queueName: 'payorch-callbacks' } },
    queueConsumers: {
      'payorch-callbacks': { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 2, deadLetterQueue: 'payorch-callbacks-dead' },
      'payorch-callbacks-dead': { maxBatchTimeout: 0, maxRetries: 0 },
    },
    async outboundService(request: WorkerRequest) {
      try {
        if (applying === undefined) throw new Error('no receiver yet');
        await applying.apply((await request.json()) as CallbackJob);
        return new Response(null, { status: 204 });
      } catch (error) {
        const { name, message, reason, field, retryable } = error as Error & Partial<Record<'reason' | 'field' | 'retryable', unknown>>;
        return Response.json({ name, message, reason, field, retryable }, { status: 500 });
      }
    },
  });
  const origin = await miniflare.ready;
  async function call(op: string, body: Record<string, unknown> = {}): Promise<unknown> {
    const answer = (await (await fetch(origin, { method: 'POST', body: JSON.stringify({ op, ...body }) })).json()) as { error?: { name: string; message: string } } | null;
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
      applying = receiver;
    },
    send: (job: unknown) => call('send', { job }),
    expire: () => Promise.resolve(),
    close: () => miniflare.dispose(),
  };
}

describe('the queue-adapter contract, on Cloudflare Queues and D1 in workerd', () => {
  for (const contractCase of queueContract({ setup: engine })) {
    // Each case has an engine of its own: they run side by side.
    test.concurrent(contractCase.name, contractCase.run, 120_000);
  }
});
