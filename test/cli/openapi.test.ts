import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { payorch, root } from './run.js';

const committed = readFileSync(join(root, 'docs/openapi.json'), 'utf8');

describe('payorch openapi', { timeout: 30_000 }, () => {
  test('prints the document of docs/openapi.json', async () => {
    const run = await payorch(['openapi']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(committed);
  });

  test('--out writes it to a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payorch-openapi-')), 'openapi.json');
    const run = await payorch(['openapi', '--out', file]);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: `Wrote ${file}\n` });
    expect(readFileSync(file, 'utf8')).toBe(committed);
  });

  test('a file it cannot write fails with exit 1', async () => {
    const run = await payorch(['openapi', '--out', '/nonexistent/dir/openapi.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot write \/nonexistent\/dir\/openapi\.json/);
  });
});
