import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { listeningSandbox, requireFreshBuild } from '../cli/run.js';

/*
 * The README's quick start ends with the merchant's own receiver applying the sandbox's callback.
 * Its receiver block runs here as the README says, `node receiver.mjs` (plain JavaScript, 'payorch'
 * resolved to the built package), against a sandbox over real sockets.
 */
const root = join(import.meta.dirname, '../..');
requireFreshBuild();

function receiverBlock(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  const block = [...quickStart.matchAll(/^```ts\s*$([\s\S]*?)^```\s*$/gm)].map((match) => match[1] ?? '').find((code) => code.includes('createCallbackReceiver'));
  if (block === undefined) throw new Error("the README's quick start has no receiver block");
  return block;
}

test("the README quick start's receiver.mjs applies the sandbox's callback for its own order, and exits", { timeout: 30_000 }, async () => {
  const port = await freePort();
  const code = receiverBlock();
  expect(code).toContain('4999');
  // A project of its own with payorch installed: this package (its exports, dist/), linked.
  const directory = mkdtempSync(join(tmpdir(), 'payorch-quickstart-'));
  mkdirSync(join(directory, 'node_modules'));
  symlinkSync(root, join(directory, 'node_modules/payorch'), 'dir');
  const file = join(directory, 'receiver.mjs');
  writeFileSync(file, code.replaceAll('4999', String(port)));
  const sandbox = await listeningSandbox();
  try {
    const child = spawn(process.execPath, [file], { env: { ...process.env, ...sandbox.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^applied: deposit MAN-\S+ completed, 250 TRY for u-1\nthe sandbox settled MAN-\S+: HTTP 200\n$/);
    expect(exit).toBe(0);
    // Applied on the first delivery: the receiver answered 200 to the sandbox.
    const trackingCode = /deposit (MAN-\S+)/.exec(stdout)?.[1] ?? '';
    const { deliveries } = (await (await fetch(`${sandbox.url}/__sandbox/deliveries`)).json()) as { deliveries: { trackingCode: string; status: string; attempt: number; httpStatus?: number }[] };
    expect(deliveries).toEqual([expect.objectContaining({ trackingCode, status: 'completed', attempt: 1, httpStatus: 200 })]);
  } finally {
    await sandbox.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
