import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port on 127.0.0.1 with nothing listening: connecting to it is refused, and a server may take it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  return port;
}
