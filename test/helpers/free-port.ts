import { createServer } from 'node:net';

/**
 * A port on 127.0.0.1 for a server a test starts on a port of its choosing; for a port that must
 * stay refused, refusedPort. Below Linux's ephemeral range (32768 and up), where the kernel picks the local port of every
 * outgoing connection and of `listen(0)`: a server the tests stop and start again on its port
 * (Redis, a proxy taken down) would otherwise find it taken, now and then, by another connection.
 */
export function freePort(): Promise<number> {
  return portIn(20_000, 32_000);
}

/**
 * A port on 127.0.0.1 where nothing listens and no test's server will: connecting to it is
 * refused, whatever runs beside. Below freePort's range, which every server the tests start on a
 * port of their choosing takes from: a port picked by both would be refused, or not, by chance.
 */
export function refusedPort(): Promise<number> {
  return portIn(19_000, 20_000);
}

/** A port in [low, high) that nothing listens on now. */
async function portIn(low: number, high: number): Promise<number> {
  for (let tries = 1; ; tries += 1) {
    const port = low + Math.floor(Math.random() * (high - low));
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
