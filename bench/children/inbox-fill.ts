/**
 * Heap held by the in-memory inbox per key, measured in a fresh `node --expose-gc` process.
 * Arguments: <payorch|set> <keys>. `payorch` sends <keys> distinct, genuinely signed deposit
 * callbacks through `createCallbackReceiver` with its default inbox (`receiver.receive`, one at a
 * time, each answered 200), so each key is held as the receiver holds it: applied, with its
 * status for `appliedStatuses`. `set` adds the same key strings to a bare `Set`: the least any
 * once-only store in memory holds. The heap is read after full collections before and after,
 * with nothing else kept alive; the callbacks are signed as they are sent and dropped once answered.
 * After the measure, the store is checked to hold every key: which also keeps it alive until then.
 */
import { createHash } from 'node:crypto';
import { PROVIDER } from '../fixtures/accounts.js';
import { responseBodies } from '../fixtures/bodies.js';
import { payorch } from '../lib/sdk.js';

const [variant = '', keysText = ''] = process.argv.slice(2);
const keys = Number(keysText);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
if (!Number.isSafeInteger(keys) || keys < 1) throw new Error(`keys must be a positive integer; got ${keysText}`);

// A record ten minutes old, as a callback arrives; tracking codes of the spec's shape and length.
const record = Math.floor(Date.now() / 1000) - 600;
const trackingCode = (prefix: string, index: number) => `MAN-${prefix}${index.toString(36).toUpperCase().padStart(8, '0')}-${record}`;
const deposit = responseBodies.DepositCallback as Record<string, unknown>;

function delivery(code: string): { headers: Record<string, string>; body: string } {
  const timestamp = Math.floor(Date.now() / 1000);
  const hash = createHash('sha256').update(PROVIDER.apiKey + PROVIDER.secretKey + code + 'completed' + String(timestamp), 'utf8').digest('hex');
  return {
    headers: { 'content-type': 'application/json', 'x-api-key': PROVIDER.apiKey, 'x-timestamp': String(timestamp), 'x-hash': hash },
    body: JSON.stringify({ ...deposit, tracking_code: code, status: 'completed', timestamp, hash }),
  };
}

function settle(): number {
  for (let round = 0; round < 5; round++) gc?.();
  return process.memoryUsage().heapUsed;
}

/** Adds key `index`; `held` tells, after the measure, that every key is still held. */
interface Store {
  fill(index: number): Promise<void>;
  held(): Promise<boolean>;
}

async function store(): Promise<Store> {
  if (variant === 'payorch') {
    let applied = 0;
    const make = () =>
      payorch.createCallbackReceiver({ apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, logLevel: 'off' }).on('deposit', () => {
        applied++;
      });
    // Warmed on a receiver of its own, dropped before the measure: the JIT's code is not counted as keys.
    const warm = make();
    for (let index = 0; index < 2000; index++) {
      const answer = await warm.receive(delivery(trackingCode('WARM', index)));
      if (answer.status !== 200) throw new Error(`warm-up answered ${answer.status}: ${answer.body}`);
    }
    const receiver = make();
    applied = 0;
    const send = async (index: number) => {
      const answer = await receiver.receive(delivery(trackingCode('FILL', index)));
      if (answer.status !== 200) throw new Error(`callback ${index} answered ${answer.status}: ${answer.body}`);
    };
    return {
      fill: send,
      // The first callback again: a duplicate while its key is held, so the handler does not run.
      held: async () => {
        await send(0);
        return applied === keys;
      },
    };
  }
  if (variant === 'set') {
    const keysHeld = new Set<string>();
    return {
      // The key as the receiver makes it: merchant id, tracking code and status.
      fill: (index) => {
        const code = trackingCode('FILL', index);
        keysHeld.add(`${PROVIDER.apiKey.length}:${PROVIDER.apiKey}${code.length}:${code}completed`);
        return Promise.resolve();
      },
      held: () => Promise.resolve(keysHeld.size === keys),
    };
  }
  throw new Error(`unknown variant ${variant}; use payorch or set`);
}

const measured = await store();
const before = settle();
const rssBefore = process.memoryUsage().rss;
for (let index = 0; index < keys; index++) await measured.fill(index);
const after = settle();
const rssAfter = process.memoryUsage().rss;
// Used after the measure, so that an optimised loop cannot let the store go before it: and checked.
if (!(await measured.held())) throw new Error(`the ${variant} store no longer holds its ${keys} keys`);
process.send?.({ heapBytes: after - before, rssBytes: rssAfter - rssBefore });
process.exit(0);
