import workerThreads from 'node:worker_threads';

/*
 * miniflare's synchronous binding proxy (a property read, or a method's first call, on what
 * getWorker, getKVNamespace or getD1Database give) can be woken by the late notify of the
 * previous reply when its worker thread is preempted between posting a reply and notifying: it
 * then finds no reply, fails `assert(message?.id === id)`, and stays one reply behind for the
 * rest of the instance (cloudflare/workers-sdk#15552, fixed after the latest stable miniflare 4).
 * On a loaded machine this failed tests that use the proxy. The reply is on its way: where
 * miniflare's proxy finds none yet, wait for it.
 */
const receive = workerThreads.receiveMessageOnPort;
const nap = new Int32Array(new SharedArrayBuffer(4));
workerThreads.receiveMessageOnPort = (port) => {
  const received = receive(port);
  if (received !== undefined || !new Error().stack?.includes('SynchronousFetcher')) return received;
  const deadline = Date.now() + 20_000;
  for (;;) {
    Atomics.wait(nap, 0, 0, 1);
    const late = receive(port);
    if (late !== undefined || Date.now() > deadline) return late;
  }
};
