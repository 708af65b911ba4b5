import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';

const root = join(import.meta.dirname, '../..');

describe('payorch/sandbox', () => {
  // msw is an optional peer dependency, which payorch never imports.
  test('loads and serves in process, over HTTP and to msw-style handlers without msw installed', { timeout: 30_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/sandbox/without-msw/register.ts', 'test/sandbox/without-msw/use-sandbox.ts'], { cwd: root });
    expect(JSON.parse(stdout)).toEqual({
      inProcess: 200,
      overHttp: 200,
      handlers: [
        'https://sandbox.payorch.test/api/*',
        // An endpoint given a whole path has a handler of its own.
        ...new Set(API_ENDPOINTS.flatMap((row) => row.endpoint.fullPath ?? []).map((path) => `https://sandbox.payorch.test${path}`)),
        'https://sandbox.payorch.test/__sandbox',
        'https://sandbox.payorch.test/__sandbox/*',
      ],
    });
  });
});
