import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';
import { describe, expect, test } from 'vitest';

// payorch/webhooks: a function that only receives callbacks loads neither ky nor zod, and gets
// the very objects payorch exports (one class per error, ESM and CommonJS alike).
const root = join(import.meta.dirname, '..', '..');
const webhooks = entry('payorch/webhooks');
const payorch = entry('payorch');
requireBuilt(webhooks.cjs);

async function graph(entry: string): Promise<{ packages: string[]; code: string }> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, write: false, metafile: true, platform: 'neutral', packages: 'external', logLevel: 'silent' });
  const packages = Object.values(result.metafile.inputs).flatMap((input) => input.imports.filter((each) => each.external).map((each) => each.path));
  return { packages, code: result.outputFiles[0]?.text ?? '' };
}

describe.each([webhooks.source, webhooks.esm, webhooks.cjs, payorch.esm])('the module graph of %s', (entry) => {
  const main = entry === payorch.esm;
  test(main ? 'holds ky and zod (the checks of payorch/webhooks are not vacuous)' : 'reaches neither ky nor zod', async () => {
    const { packages, code } = await graph(entry);
    const ky = packages.some((name) => name === 'ky' || name.startsWith('ky/'));
    const zod = packages.some((name) => name === 'zod' || name.startsWith('zod/')) || code.includes('$ZodType');
    expect({ ky, zod }).toEqual({ ky: main, zod: main });
    expect(code).toContain('tracking_code');
  });
});

const esm = `
const webhooks = await import(${JSON.stringify(pathToFileURL(join(root, webhooks.esm)).href)});
const main = await import(${JSON.stringify(pathToFileURL(join(root, payorch.esm)).href)});
check(webhooks, main);`;
const cjs = `
const webhooks = require(${JSON.stringify(join(root, webhooks.cjs))});
const main = require(${JSON.stringify(join(root, payorch.cjs))});
check(webhooks, main);`;
const check = `
function check(webhooks, main) {
  const names = Object.keys(webhooks).filter((name) => name !== 'default' && name !== '__esModule');
  const different = names.filter((name) => webhooks[name] !== main[name]);
  let error;
  try { webhooks.verifyCallback({ headers: {}, body: '{}' }, { apiKey: 'a', secretKey: 's' }); } catch (caught) { error = caught; }
  // The client's errors extend the one PayorchError, which lives in payorch/webhooks' file.
  const extending = ['APIError', 'TimeoutError', 'ResponseValidationError'].filter((name) => !(main[name].prototype instanceof webhooks.PayorchError));
  process.stdout.write(JSON.stringify({ names: names.length, different, extending, instance: error instanceof main.CallbackVerificationError && error instanceof main.PayorchError}));
}`;

describe.each([
  ['ESM', ['--input-type=module', '-e', check + esm]],
  ['CommonJS', ['-e', check + cjs]],
] as const)('the %s build', (_label, args) => {
  test('exports from payorch/webhooks the same objects as payorch: an error of one is instanceof the other’s class', () => {
    const out = JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })) as { names: number; different: string[]; extending: string[]; instance: boolean };
    expect(out.names).toBeGreaterThan(10);
    expect(out.different).toEqual([]);
    expect(out.extending).toEqual([]);
    expect(out.instance).toBe(true);
  });
});
