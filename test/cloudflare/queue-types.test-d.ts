import type { D1Database, ExportedHandler, MessageBatch, Queue } from '@cloudflare/workers-types';
import { expectTypeOf, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import type { CallbackJob } from '../../src/index.js';
import { createCloudflareQueue } from '../../src/queues/cloudflare-queues/index.js';
import type { CallbackQueue, JobApplier, QueueBatchLike, QueueProducerLike } from '../../src/queues/cloudflare-queues/index.js';
import { createD1Inbox } from '../../src/inboxes/d1/index.js';

test('the bindings of @cloudflare/workers-types fit the structural types', () => {
  expectTypeOf<Queue<CallbackJob>>().toExtend<QueueProducerLike>();
  expectTypeOf<Queue>().toExtend<QueueProducerLike>();
  expectTypeOf<MessageBatch>().toExtend<QueueBatchLike>();
  expectTypeOf<MessageBatch<CallbackJob>>().toExtend<QueueBatchLike>();
});

test('work(receiver) is a queue handler of ExportedHandler, and the factory gives a CallbackQueue', () => {
  const env = {} as { readonly CALLBACKS: Queue<CallbackJob>; readonly DB: D1Database };
  const queue = createCloudflareQueue({ queue: env.CALLBACKS, db: env.DB });
  expectTypeOf(queue).toExtend<CallbackQueue>();
  const receiver = createCallbackReceiver({ apiKey: 'k', secretKey: 's', inbox: createD1Inbox({ db: env.DB }), enqueue: queue.enqueue });
  expectTypeOf(receiver).toExtend<JobApplier>();
  const handler: ExportedHandler<typeof env> = { queue: queue.work(receiver) };
  expectTypeOf(handler.queue).not.toBeUndefined();
  expectTypeOf(queue.replayRoute({ token: undefined })).toEqualTypeOf<(request: Request) => Promise<Response>>();
});
