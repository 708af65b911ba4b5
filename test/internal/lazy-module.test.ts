import { expect, test } from 'vitest';
import { PayorchError } from '../../src/errors/error.js';
import { LazyModule } from '../../src/internal/lazy-module.js';

// What the call engine, the endpoint tables and the receive path load through: the tests that
// make their import fail (load-call-engine, load-calls, receive-path-cold-start) fail it every
// time, so only here can a failure kept for good be told from one tried again.
test('a failed import fails with a PayorchError naming the module, and the next load imports again', async () => {
  let imports = 0;
  const lazy = new LazyModule('its call engine', () => (++imports === 1 ? Promise.reject(new Error('Cannot find module ./x.js')) : Promise.resolve({ ok: true })), 'not_sent');
  const error: unknown = await lazy.load().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PayorchError);
  expect(error).toMatchObject({ message: 'payorch could not load its call engine: Cannot find module ./x.js. Nothing was sent: it is safe to send again.', outcome: 'not_sent', cause: new Error('Cannot find module ./x.js') });
  expect(lazy.loaded).toBeUndefined();
  expect(await lazy.load()).toEqual({ ok: true });
  expect(imports).toBe(2);
});

test('loads at once share one import, and a loaded module is kept and read without waiting', async () => {
  let imports = 0;
  const module = { ok: true };
  const lazy = new LazyModule('its receive path', () => Promise.resolve(module).finally(() => (imports += 1)), 'unknown');
  const [first, second] = await Promise.all([lazy.load(), lazy.load()]);
  expect(first).toBe(module);
  expect(second).toBe(module);
  expect(lazy.loaded).toBe(module);
  expect(await lazy.load()).toBe(module);
  expect(imports).toBe(1);
});
