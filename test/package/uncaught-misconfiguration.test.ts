import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';

/*
 * What on-call reads when a service starts misconfigured and nobody catches the error: Node prints
 * the source line the error was thrown from, then the message and the stack. From the built
 * package, each of these start-up mistakes must print a short report, its message near the top and
 * its stack frames on lines a person can read (a minified build printed tens of KB of code first).
 */
const root = join(import.meta.dirname, '..', '..');
const dist = (file: string): string => JSON.stringify(pathToFileURL(join(root, 'dist', file)).href);

const MISCONFIGURATIONS = [
  {
    name: 'an empty secret key, from the `?? \'\'` of an unset variable',
    script: `import { createCallbackReceiver } from ${dist('webhooks/index.js')};
createCallbackReceiver({ apiKey: 'k', secretKey: process.env.PAYORCH_TEST_UNSET_SECRET ?? '' });`,
    message: /secretKey: must be a non-empty string/,
  },
  {
    name: 'a key rotation without merchantId',
    script: `import { createCallbackReceiver } from ${dist('webhooks/index.js')};
createCallbackReceiver({ apiKey: 'k', secretKey: 'new', previousSecretKey: { secretKey: 'old', until: new Date(Date.now() + 3_600_000) } });`,
    message: /merchantId: is required with previousSecretKey/,
  },
  {
    name: 'a baseUrl that is not a URL',
    script: `import { ProviderClient } from ${dist('index.js')};
new ProviderClient({ baseUrl: 'pay.example.com', apiKey: 'k', secretKey: 's' });`,
    message: /baseUrl: must be an absolute https URL/,
  },
] as const;

/** The exit code and standard error of `node` running `script` as a module, uncaught. */
function runUncaught(script: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env['PAYORCH_TEST_UNSET_SECRET'];
    delete env['NODE_OPTIONS'];
    execFile(process.execPath, ['--input-type=module', '-e', script], { env }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr });
    });
  });
}

describe('an uncaught configuration error of the built package', () => {
  test.each(MISCONFIGURATIONS)('$name: a short report, its message first, readable frames', async ({ script, message }) => {
    const { code, stderr } = await runUncaught(script);
    expect(code).toBe(1);
    expect(Buffer.byteLength(stderr)).toBeLessThan(4096);
    const lines = stderr.split('\n');
    const at = lines.findIndex((line) => message.test(line));
    expect(at, stderr).toBeGreaterThanOrEqual(0);
    expect(at, stderr).toBeLessThan(8);
    expect(lines[at]).toMatch(/^RequestValidationError: /);
    // Every line Node printed, the quoted source line included, is one a person reads whole.
    for (const line of lines) expect(line.length, line.slice(0, 200)).toBeLessThan(400);
    // The frames point into the package's files, at lines of a build that kept its line breaks.
    const frames = lines.filter((line) => /^\s+at .*\/dist\/.*:\d+:\d+\)?$/.test(line));
    expect(frames.length, stderr).toBeGreaterThan(0);
    for (const frame of frames) expect(Number(/:(\d+):\d+\)?$/.exec(frame)?.[1])).toBeGreaterThan(10);
  });
});
