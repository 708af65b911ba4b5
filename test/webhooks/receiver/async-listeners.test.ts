import { afterEach, describe, expect, test, vi } from 'vitest';
import { createCallbackReceiver } from '../../../src/index.js';
import type { CallbackReceiver, Logger, MemoryInboxContext } from '../../../src/index.js';
import { now, sign, unsigned } from '../../helpers/callbacks.js';
import { deliver, serveNode } from '../../helpers/serve.js';
import { unhandledDuring } from '../../helpers/unhandled.js';
import type { Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

/*
 * `onError` and a logger's methods are typed as returning void, so an async one type-checks: its
 * rejected promise must be caught like a throw. Unheard, one forged request ended the process.
 */

// A well-formed callback whose hash is not this receiver's: heard by onError and the logger.
const forged = () => {
  const { headers, body } = sign(unsigned.deposit, { apiKey: PROVIDER.apiKey, secretKey: 'another secret' });
  return { headers, body: JSON.stringify(body) };
};

describe('a receiver whose async listeners reject', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
    vi.restoreAllMocks();
  });

  /** Serves `receiver`, sends it a forged callback (answered 401), and returns the rejections left unhandled. */
  async function forgedLeavesUnhandled(receiver: CallbackReceiver<MemoryInboxContext>): Promise<unknown[]> {
    receiver.on('*', () => undefined);
    served = await serveNode(receiver.nodeHandler);
    const url = served.url;
    return unhandledDuring(async () => {
      expect((await deliver(url, forged())).status).toBe(401);
    });
  }

  test('an async onError that rejects is told on the console; the request is answered and the process goes on', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const trackerDown = new Error('tracker down');
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- an async listener, as code without this rule passes one
    expect(await forgedLeavesUnhandled(createCallbackReceiver({ ...PROVIDER, now, onError: async () => Promise.reject(trackerDown) }))).toEqual([]);
    expect(consoleError).toHaveBeenCalledWith('payorch: onError threw', trackerDown);
  });

  test('an async logger that rejects changes nothing: the refusal is answered and the process goes on', async () => {
    const rejecting = async (): Promise<void> => Promise.reject(new Error('log shipper down'));
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- an async listener, as code without this rule passes one
    const logger: Logger = { debug: rejecting, info: rejecting, warn: rejecting, error: rejecting };
    expect(await forgedLeavesUnhandled(createCallbackReceiver({ ...PROVIDER, now, logger, logLevel: 'debug' }))).toEqual([]);
  });
});
