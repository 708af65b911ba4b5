import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { closeLoopbackServers } from '../helpers/loopback.js';
import { temporaryProject } from '../helpers/project.js';
import { startRedisServer } from '../helpers/redis.js';
import { exited, jsonOf, listeningSandbox, outputUntil, requireFreshBuild, root, spawnPayorch, start, version } from './run.js';

/*
 * The built binary, `node dist/cli.js`, for what is about the process itself: the shebang entry
 * and its exit codes, a reader that closes the pipe, signals, and variables node reads at
 * start-up. Every other behaviour is tested in-process through Io (the other files here).
 */

requireFreshBuild();
closeLoopbackServers();

const value = (printed: string, name: string) => new RegExp(`^export ${name}='(.+)'$`, 'm').exec(printed)?.[1] ?? '';
const signedHeaders = (apiKey: string, secretKey: string, between = '') => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  // Spec 5.1, by hand: SHA-256 of api_key + secret_key (+ key) + timestamp as lowercase hex.
  const hash = createHash('sha256').update(`${apiKey}${secretKey}${between}${timestamp}`).digest('hex');
  return { 'X-Api-Key': apiKey, 'X-Hash': hash, 'X-Timestamp': timestamp, 'Content-Type': 'application/json' };
};

describe('payorch, the built binary', { timeout: 30_000 }, () => {
  test.each([
    [['--version'], 0, `payorch ${version}\n`, ''],
    [['openapi', '--out', '/nonexistent/dir/openapi.json'], 1, '', /^payorch openapi: cannot write \/nonexistent\/dir\/openapi\.json/],
    [['sgin'], 2, '', /^payorch: unknown command "sgin"; did you mean sign\?\nSee payorch --help\.\n$/],
  ] as const)('payorch %j exits %i', async (args, code, stdout, stderr) => {
    const run = await spawnPayorch(args);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe(stdout);
    expect(run.stderr).toMatch(stderr);
  });

  test('a reader that closes the pipe early (payorch openapi | head -1) ends it quietly with status 0', async () => {
    // The document (about 230 KB) is larger than a pipe holds, so the write after the close fails with EPIPE.
    const child = start(['openapi']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await new Promise<void>((resolve) => child.stdout.once('data', () => { resolve(); }));
    child.stdout.destroy();
    expect(await exited(child)).toBe(0);
    expect(stderr).toBe('');
  });

  test('prints the URL and the credentials under the contract names, answers a request signed by hand, and stops on SIGTERM with 0', async () => {
    const child = start(['sandbox', '--port', '0']);
    const printed = await outputUntil(child, /Stop with Ctrl\+C\./);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] ?? '';
    expect(url).not.toBe('');
    expect(value(printed, 'PAYORCH_BASE_URL')).toBe(url);
    for (const name of ['PAYORCH_PROVIDER_API_KEY', 'PAYORCH_PROVIDER_SECRET_KEY', 'PAYORCH_CREDENTIAL_KEY', 'PAYORCH_SITES_KEY', 'PAYORCH_DEALER_API_KEY', 'PAYORCH_DEALER_SECRET_KEY']) {
      expect(value(printed, name)).not.toBe('');
    }
    const welcome = await fetch(`${url}/api/provider/welcome`, { method: 'POST', headers: signedHeaders(value(printed, 'PAYORCH_PROVIDER_API_KEY'), value(printed, 'PAYORCH_PROVIDER_SECRET_KEY')) });
    expect(welcome.status).toBe(200);
    // The X-Key printed as PAYORCH_SITES_KEY is the one the site list takes.
    const sites = await fetch(`${url}/api/provider/sites`, {
      method: 'POST',
      headers: { ...signedHeaders(value(printed, 'PAYORCH_PROVIDER_API_KEY'), value(printed, 'PAYORCH_PROVIDER_SECRET_KEY'), value(printed, 'PAYORCH_SITES_KEY')), 'X-Key': value(printed, 'PAYORCH_SITES_KEY') },
    });
    expect(sites.status).toBe(200);
    const credentialKey = value(printed, 'PAYORCH_CREDENTIAL_KEY');
    const deposit = await fetch(`${url}/api/provider/start-manual-deposit`, {
      method: 'POST',
      headers: { ...signedHeaders(value(printed, 'PAYORCH_PROVIDER_API_KEY'), value(printed, 'PAYORCH_PROVIDER_SECRET_KEY'), credentialKey), 'X-Credential-Key': credentialKey },
      body: JSON.stringify({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 }),
    });
    const { data } = (await deposit.json()) as { data: { tracking_code: string } };
    const settled = await fetch(`${url}/__sandbox/settle`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: data.tracking_code, status: 'completed' }) });
    expect(await settled.json()).toMatchObject({ success: true, record: { status: 'completed' } });
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  test('the same certificate trusted through NODE_EXTRA_CA_CERTS passes TLS', async () => {
    const certPath = new URL('../fixtures/loopback-cert.pem', import.meta.url).pathname;
    const server = createServer({ cert: readFileSync(certPath), key: readFileSync(new URL('../fixtures/loopback-key.pem', import.meta.url)) }, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"message":"Welcome"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const run = await spawnPayorch(['doctor', '--json'], { PAYORCH_BASE_URL: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b', NODE_EXTRA_CA_CERTS: certPath });
      expect((jsonOf(run) as { checks: { account: string; name: string; outcome: string }[] }).checks.find((entry) => entry.account === 'provider' && entry.name === 'tls')).toMatchObject({ outcome: 'ok' });
      expect(run.code).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('payorch call piped into another program (| jq) writes exactly the answer\'s JSON on stdout, and the status line on stderr', async () => {
    const sandbox = await listeningSandbox();
    try {
      const run = await spawnPayorch(['call', 'welcome'], sandbox.env);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('ok POST /api/provider/welcome\n');
      const answer = JSON.parse(run.stdout) as unknown;
      expect(answer).toMatchObject({ success: true, provider: { name: 'Sandbox Provider' } });
      expect(run.stdout).toBe(`${JSON.stringify(answer, null, 2)}\n`);
      // A failure says why on stderr, and leaves stdout empty for the reader.
      const refused = await spawnPayorch(['call', 'welcome'], { ...sandbox.env, PAYORCH_PROVIDER_SECRET_KEY: 'wrong_secret_value' });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^AuthenticationError Invalid hash/);
    } finally {
      await sandbox.close();
    }
  });

  test('payorch dead-letters loads bullmq from the project it runs in: it lists that project’s queue, and names the npm install in a project without it', async () => {
    const redis = await startRedisServer();
    const shop = temporaryProject(['bullmq', 'ioredis']);
    const bare = temporaryProject();
    try {
      const env = { REDIS_URL: redis.url };
      expect(await spawnPayorch(['dead-letters', 'list', '--json'], env, '', shop.directory)).toEqual({ code: 0, stdout: `${JSON.stringify({ deadLetters: [] }, null, 2)}\n`, stderr: '' });
      const missing = await spawnPayorch(['dead-letters', 'list'], env, '', bare.directory);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(`bullmq is not installed in ${bare.directory}: payorch dead-letters uses your project's own bullmq, as your workers do. Run npm install bullmq ioredis there`);
    } finally {
      shop.close();
      bare.close();
      await redis.close();
    }
  });
});

describe('the build', () => {
  test('the main entry carries neither the CLI nor the OpenAPI generator, and no CommonJS CLI is built', () => {
    // The main entry and the chunks it shares with the sandbox. zod's own `toJSONSchema` method may
    // be there (zod is bundled); the generator is recognised by its own names and document header.
    const library = readdirSync(join(root, 'dist')).filter((file) => /\.(c?js)$/.test(file) && file !== 'cli.js');
    expect(library).toEqual(expect.arrayContaining(['index.js', 'index.cjs']));
    for (const file of library) {
      const text = readFileSync(join(root, 'dist', file), 'utf8');
      expect(text).not.toContain('openApiDocument');
      expect(text).not.toMatch(/openapi: ["']3\.1\.0["']/);
      expect(text).not.toContain('parseArgs');
    }
    expect(existsSync(join(root, 'dist/cli.cjs'))).toBe(false);
    expect(readFileSync(join(root, 'dist/cli.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});
