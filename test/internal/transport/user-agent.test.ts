import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { DealerClient } from '../../../src/index.js';
import { requireBuilt, repoRoot } from '../../helpers/dist.js';
import { WELCOME, json, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { DEALER } from '../../helpers/wire.js';

/* Every request names payorch and its version, then the runtime, as stripe-node and openai-node do. */

closeLoopbackServers();

const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const NODE_MAJOR = process.versions.node.split('.')[0]!;

describe('the User-Agent header', () => {
  test('names payorch, its version and the runtime on the wire, for both clients', async () => {
    const server = await startServer((request, response) => json(response, 200, request.url?.includes('/dealer/') === true ? { success: true, dealer_name: 'D', payment_methods: { credit_card: 'on', eiban: 'on', manual_iban: 'on' } } : WELCOME));
    await providerFor(server).welcome();
    await new DealerClient({ baseUrl: server.url, ...DEALER }).settings.get();
    expect(server.seen.map((seen) => seen.headers['user-agent'])).toEqual([`payorch/${version} Node.js/${NODE_MAJOR}`, `payorch/${version} Node.js/${NODE_MAJOR}`]);
  });

  test('one given through request({ headers }) wins, in any case', async () => {
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    await providerFor(server).request({ method: 'POST', path: '/welcome', hash: 'basic', headers: { 'user-agent': 'acme-shop/2.1' } });
    expect(server.seen[0]?.headers['user-agent']).toBe('acme-shop/2.1');
  });

  test('one set by a wrapping fetch wins', async () => {
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    const wrapping: typeof fetch = (input, init) => {
      (input as Request).headers.set('User-Agent', `acme-shop/2.1 ${(input as Request).headers.get('user-agent') ?? ''}`);
      return fetch(input, init);
    };
    await providerFor(server, { fetch: wrapping }).welcome();
    expect(server.seen[0]?.headers['user-agent']).toBe(`acme-shop/2.1 payorch/${version} Node.js/${NODE_MAJOR}`);
  });

  test("the build writes in package.json's version: the built client sends it", async () => {
    requireBuilt('dist/index.js');
    const server = await startServer((_request, response) => json(response, 200, WELCOME));
    const script = `const { ProviderClient } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/index.js')).href)});
await new ProviderClient({ baseUrl: ${JSON.stringify(server.url)}, apiKey: 'a', secretKey: 's' }).welcome();`;
    // A child process: the server answers from this one.
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(server.seen[0]?.headers['user-agent']).toBe(`payorch/${version} Node.js/${NODE_MAJOR}`);
  });
});
