/**
 * Heap still held after many calls, measured in a fresh `node --expose-gc` process: a call that
 * has returned should leave nothing behind. Arguments: <bare|payorch|payorch-signal> <calls>.
 * The stub fetch answers at once, so timers armed per call are still pending at the end.
 */
import { welcome } from '../fixtures/bodies.js';
import { PROVIDER } from '../fixtures/accounts.js';
import { basicHash, unixSeconds } from '../lib/hash.js';
import { payorch } from '../lib/sdk.js';

const [variant = '', callsText = ''] = process.argv.slice(2);
const calls = Number(callsText);
const body = JSON.stringify(welcome);
const stub = (): Promise<Response> => Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }));
const provider = new payorch.ProviderClient({ baseUrl: 'http://127.0.0.1:9', apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey, fetch: stub });
// One long-lived signal, as a server passes its shutdown signal to every call.
const shutdown = new AbortController();

async function call(): Promise<unknown> {
  if (variant === 'payorch') return provider.welcome();
  if (variant === 'payorch-signal') return provider.welcome({ signal: shutdown.signal });
  const timestamp = unixSeconds();
  basicHash(PROVIDER.apiKey, PROVIDER.secretKey, timestamp);
  return (await stub()).json();
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
for (let i = 0; i < 1000; i++) await call();
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < calls; i++) await call();
// undici releases a Request's abort wiring from a FinalizationRegistry, whose callbacks run only
// when the event loop turns: collect, let them run, and collect again, or they count as retained.
for (let round = 0; round < 5; round++) {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
}
gc();
process.send?.({ retainedBytes: process.memoryUsage().heapUsed - before });
process.exit(0);
