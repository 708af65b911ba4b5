import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { allowLoopback } from '../helpers/sandbox.js';

const root = join(import.meta.dirname, '../..');
let child: ChildProcessWithoutNullStreams | undefined;

/** Runs `payorch ...` from the source, as `npx payorch` runs the built file. */
function payorch(...args: string[]): ChildProcessWithoutNullStreams {
  child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root });
  return child;
}

/** Everything the process prints until `until` appears in it (or it exits). */
function output(cli: ChildProcessWithoutNullStreams, until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = () => {
      resolve(text);
    };
    cli.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (until.test(text)) done();
    });
    cli.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    cli.on('exit', done);
    cli.on('error', reject);
  });
}

const exited = (cli: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => {
    if (cli.exitCode !== null) resolve(cli.exitCode);
    else cli.on('exit', (code) => { resolve(code); });
  });

beforeEach(() => {
  allowLoopback();
});
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

// Each test starts a Node process; give them room on a busy machine.
describe('npx payorch sandbox', { timeout: 30_000 }, () => {
  test('prints the URL and the credentials, answers a request signed by hand, and stops on SIGTERM', async () => {
    const cli = payorch('sandbox', '--port', '0');
    const printed = await output(cli, /Stop with Ctrl\+C\./);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] ?? '';
    const value = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(printed)?.[1] ?? '';
    expect(url).not.toBe('');
    expect(value('PAYORCH_BASE_URL')).toBe(url);

    // Spec 5.1, by hand: SHA-256 of api_key + secret_key + timestamp as lowercase hex.
    const apiKey = value('PAYORCH_PROVIDER_API_KEY');
    const timestamp = String(Math.floor(Date.now() / 1000));
    const hash = createHash('sha256').update(`${apiKey}${value('PAYORCH_PROVIDER_SECRET_KEY')}${timestamp}`).digest('hex');
    const welcome = await fetch(`${url}/api/provider/welcome`, { method: 'POST', headers: { 'X-Api-Key': apiKey, 'X-Hash': hash, 'X-Timestamp': timestamp, 'Content-Type': 'application/json' } });
    expect(welcome.status).toBe(200);
    expect(await welcome.json()).toMatchObject({ success: true, provider: { name: 'Sandbox Provider' } });

    // The credential hash, with the printed site credential key.
    const credentialKey = value('PAYORCH_CREDENTIAL_KEY');
    const credentialHash = createHash('sha256').update(`${apiKey}${value('PAYORCH_PROVIDER_SECRET_KEY')}${credentialKey}${timestamp}`).digest('hex');
    const deposit = await fetch(`${url}/api/provider/start-manual-deposit`, {
      method: 'POST',
      headers: { 'X-Api-Key': apiKey, 'X-Hash': credentialHash, 'X-Timestamp': timestamp, 'X-Credential-Key': credentialKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 }),
    });
    const { data } = (await deposit.json()) as { data: { tracking_code: string } };
    expect(data.tracking_code).toMatch(/^MAN-/);

    // The controls work over HTTP too.
    const settled = await fetch(`${url}/__sandbox/settle`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: data.tracking_code, status: 'completed' }) });
    expect(await settled.json()).toMatchObject({ success: true, record: { status: 'completed' } });

    cli.kill('SIGTERM');
    expect(await exited(cli)).toBe(0);
  });

  test('--seed changes the credentials; the default seed gives the same ones every run', async () => {
    const keyOf = async (...args: string[]) => {
      const cli = payorch('sandbox', '--port', '0', ...args);
      const printed = await output(cli, /Stop with Ctrl\+C\./);
      cli.kill('SIGTERM');
      await exited(cli);
      return /^PAYORCH_PROVIDER_API_KEY=(.+)$/m.exec(printed)?.[1];
    };
    const first = await keyOf();
    expect(await keyOf()).toBe(first);
    expect(await keyOf('--seed', 'other')).not.toBe(first);
  });

  test('--help prints the usage', async () => {
    const cli = payorch('sandbox', '--help');
    expect(await output(cli, /--callback/)).toMatch(/^Usage: payorch sandbox \[options\]/);
    expect(await exited(cli)).toBe(0);
  });

  test.each([
    [['serve'], /Unknown command serve/],
    [['sandbox', '--port', 'http'], /--port must be a port number: http/],
    [['sandbox', '--callback', 'refunds=http://127.0.0.1:1/'], /--callback takes kind=url/],
    [['sandbox', '--verbose'], /Unknown option '--verbose'/],
  ])('payorch %j fails with a message', async (args, message) => {
    const cli = payorch(...args);
    expect(await output(cli, /$^/)).toMatch(message);
    expect(await exited(cli)).toBe(1);
  });
});
