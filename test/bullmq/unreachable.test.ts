import { expect, test } from 'vitest';
import { QueueError } from '../../src/errors/error.js';
import { redisErrors } from '../../src/queues/bullmq/unreachable.js';

// What payorch/bullmq tells onError of the errors BullMQ and ioredis emit (test/bullmq/queue.test.ts
// shows it against a real Redis that stops): a lost connection at most once a minute, with the
// count since, on a clock of its own; anything else as it comes.
const refused = (port: number) => Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${String(port)}`), { code: 'ECONNREFUSED' });

test('a lost connection is told once a minute with the count since; anything else as it comes', () => {
  let clock = 1_000;
  const told: QueueError[] = [];
  const hear = redisErrors('callbacks', (error) => void told.push(error), () => clock);
  const first = refused(6379);
  hear(first);
  for (let reconnect = 0; reconnect < 40; reconnect++) {
    clock += 1_000;
    hear(refused(6379));
  }
  expect(told).toHaveLength(1);
  expect(told[0]?.message).toBe("payorch/bullmq: callbacks: Redis is unreachable, so no callback can be queued: the receiver answers them 500 and the service delivers them again (until it stops retrying); workers apply nothing meanwhile. BullMQ reconnects by itself (connect ECONNREFUSED 127.0.0.1:6379). Told at most once a minute while it lasts.");
  expect(told[0]?.cause).toBe(first);

  // Not a lost connection: told at once, whatever the minute.
  hear(new Error('NOSCRIPT No matching script'));
  expect(told.map((error) => error.message).at(-1)).toBe('payorch/bullmq: callbacks: NOSCRIPT No matching script');

  clock += 20_000; // 61 s after the first report
  hear(refused(6379));
  expect(told).toHaveLength(3);
  expect(told[2]?.message).toMatch(/\(connect ECONNREFUSED 127\.0\.0\.1:6379; 41 connection errors in the last minute\)\. Told at most once a minute while it lasts\.$/);
  expect(told.every((error) => error instanceof QueueError)).toBe(true);
});
