import { createServer } from 'node:net';

/**
 * A port on 127.0.0.1 with nothing listening: connecting to it is refused, and a server may take it.
 * Below Linux's ephemeral range (32768 and up), where the kernel picks the local port of every
 * outgoing connection and of `listen(0)`: a server the tests stop and start again on its port
 * (Redis, a proxy taken down) would otherwise find it taken, now and then, by another connection.
 */
export async function freePort(): Promise<number> {
  for (let tries = 1; ; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const taken = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE' && tries < 50) resolve(true);
        else reject(error);
      });
      server.listen(port, '127.0.0.1', () => { resolve(false); });
    });
    if (taken) continue;
    await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    return port;
  }
}
