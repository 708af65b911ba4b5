import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { main } from '../../src/tools/cli/main.js';
import { unsupportedNode } from '../../src/tools/cli/node-line.js';
import { listeningSandbox, root, version } from './run.js';

// The floor the executable reads: package.json `engines`.
const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const node = (version: string, extra: Record<string, string> = {}) => ({ ...process.versions, node: version, ...extra }) as NodeJS.ProcessVersions;

/** `payorch ...args` in this process, as the executable runs it on Node 20.20.0. */
async function onNode20(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = (stream: PassThrough) => {
    let all = '';
    stream.on('data', (chunk: Buffer) => (all += chunk.toString('utf8')));
    return () => all;
  };
  const [out, err] = [text(stdout), text(stderr)];
  const unsupportedRuntime = unsupportedNode(node('20.20.0'), engines.node);
  if (unsupportedRuntime === undefined) throw new Error(`engines ${engines.node} admits Node 20`);
  const code = await main(args, { stdout, stderr, stdin: Readable.from(['']), env, unsupportedRuntime }, version);
  return { code, stdout: out(), stderr: err() };
}

describe('the Node line payorch runs on', () => {
  test('below the floor of package.json engines is unsupported, with the fix; the floor and later are not; Bun and Deno are not checked', () => {
    expect(engines.node).toBe('>=22.12');
    expect(unsupportedNode(node('20.20.0'), engines.node)).toEqual({ problem: 'Node 20.20.0 is not supported: payorch needs Node 22.12 or later', fix: 'install a supported Node (nvm install 22), or run payorch with Bun or Deno' });
    expect(unsupportedNode(node('22.11.0'), engines.node)?.problem).toBe('Node 22.11.0 is not supported: payorch needs Node 22.12 or later');
    for (const supported of ['22.12.0', '22.23.0', '24.11.1', '26.0.0']) expect(unsupportedNode(node(supported), engines.node)).toBeUndefined();
    expect(unsupportedNode(node('20.11.1', { deno: '2.5.0' }), engines.node)).toBeUndefined();
    expect(unsupportedNode(node('20.11.1', { bun: '1.3.0' }), engines.node)).toBeUndefined();
  });

  test('a command on Node 20 says so once on stderr, and runs', async () => {
    const run = await onNode20(['--version']);
    expect(run).toEqual({ code: 0, stdout: `payorch ${version}\n`, stderr: 'payorch: warning: Node 20.20.0 is not supported: payorch needs Node 22.12 or later; install a supported Node (nvm install 22), or run payorch with Bun or Deno\n' });
  });

  test('payorch doctor on Node 20 fails its runtime check, once, while every check of the service passes: not "All checks passed", exit 1', async () => {
    const sandbox = await listeningSandbox();
    try {
      const run = await onNode20(['doctor'], sandbox.env);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('');
      expect(run.stdout.match(/not supported/g)).toHaveLength(1);
      expect(run.stdout).toMatch(/^FAIL {2}local {4}runtime {8}Node 20\.20\.0 is not supported: payorch needs Node 22\.12 or later\n {6}fix: install a supported Node/);
      expect(run.stdout).toMatch(/^ok +provider authentication signed request accepted/m);
      expect(run.stdout).toMatch(/Some checks failed\.\n$/);
      const json = JSON.parse((await onNode20(['doctor', '--json'], sandbox.env)).stdout) as { ok: boolean; checks: { account: string; name: string; outcome: string }[] };
      expect(json.ok).toBe(false);
      expect(json.checks[0]).toMatchObject({ account: 'local', name: 'runtime', outcome: 'fail' });
      expect(json.checks.filter((check) => check.outcome === 'fail')).toHaveLength(1);
      // Stopped before its report by a usage error, doctor says it on stderr, once, as the others do.
      const usage = await onNode20(['doctor']);
      expect(usage.code).toBe(2);
      expect(usage.stderr.match(/not supported/g)).toHaveLength(1);
      expect(usage.stderr).toMatch(/^payorch: warning: Node 20\.20\.0 is not supported[^\n]*\npayorch doctor: --base-url is required/);
    } finally {
      await sandbox.close();
    }
  });
});
