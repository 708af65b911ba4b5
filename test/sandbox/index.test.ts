import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const root = join(import.meta.dirname, '../..');

describe('payorch/sandbox', () => {
  // msw is an optional peer dependency: only mswHandlers() may need it.
  test('loads, serves in process and over HTTP without msw installed; mswHandlers() says what is missing', { timeout: 30_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/sandbox/without-msw/register.ts', 'test/sandbox/without-msw/use-sandbox.ts'], { cwd: root });
    expect(JSON.parse(stdout)).toEqual({
      inProcess: 200,
      overHttp: 200,
      msw: 'sandbox.mswHandlers() needs msw, an optional peer dependency of payorch: npm install --save-dev msw',
    });
  });
});
