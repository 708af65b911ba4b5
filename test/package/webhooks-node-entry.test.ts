import { nodeFileTrace } from '@vercel/nft';
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { repoRoot, requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';

/*
 * Under Node, `payorch/webhooks` is dist/webhooks/node.js (package.json `exports`, the
 * `module-sync` condition): the error classes at import, the rest loaded by a function's first
 * call. Told from outside, as a program imports it by name: which files of payorch a fresh process loads (a load
 * hook), what the module exports against the entry every other runtime and bundler gets, and what
 * its functions return.
 */
const webhooks = entry('payorch/webhooks');
const main = entry('payorch');
const NODE_FILE = 'dist/webhooks/node.js';
requireBuilt(NODE_FILE, webhooks.esm, main.esm);

const KEYS = { apiKey: 'node_entry_api_0001', secretKey: 'node_entry_secret_0001' };
const script = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { if (url.includes('/dist/')) loaded.push(url.slice(url.lastIndexOf('/dist/') + 1)); return next(url, context); } });
const resolved = import.meta.resolve('payorch/webhooks');
const node = await import('payorch/webhooks');
const atImport = [...loaded];
const keys = ${JSON.stringify(KEYS)};
const signed = node.signCallback({ tracking_code: 'MAN-node01-1763812000', status: 'completed', amount: 250, user_id: 'u1' }, keys);
const afterCall = [...loaded];
// One clock for both verifications, so that their results (receivedAt included) can be compared.
const at = Date.now();
const verifying = { ...keys, now: () => at };
const verified = node.verifyCallback({ headers: signed.headers, body: signed.body }, verifying);
let refusal;
try { node.verifyCallback({ headers: signed.headers, body: signed.body.replace('"completed"', '"canceled"') }, keys); } catch (error) { refusal = error; }
const eager = await import('./${webhooks.esm}');
const sdk = await import('./${main.esm}');
const names = (module) => Object.keys(module).sort();
const values = names(eager).filter((name) => typeof eager[name] !== 'function' || /^[A-Z]/.test(name) || name === 'isPayorchError');
process.stdout.write(JSON.stringify({
  resolved: resolved.slice(resolved.lastIndexOf('/dist/') + 1),
  atImport,
  loadedByCall: afterCall.filter((file) => !atImport.includes(file)),
  namesNode: names(node),
  namesEager: names(eager),
  differentValues: values.filter((name) => node[name] !== eager[name] || (name in sdk && node[name] !== sdk[name])),
  sameResult: JSON.stringify(verified) === JSON.stringify(eager.verifyCallback({ headers: signed.headers, body: signed.body }, verifying)),
  kind: verified.kind,
  refusal: { name: refusal?.name, reason: refusal?.reason, ofMain: refusal instanceof sdk.CallbackVerificationError && refusal instanceof node.PayorchError },
}));`;

interface Outcome {
  readonly resolved: string;
  readonly atImport: string[];
  readonly loadedByCall: string[];
  readonly namesNode: string[];
  readonly namesEager: string[];
  readonly differentValues: string[];
  readonly sameResult: boolean;
  readonly kind: string;
  readonly refusal: { name?: string; reason?: string; ofMain: boolean };
}

describe('payorch/webhooks under Node', () => {
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' })) as Outcome;
  // Without require() of ES modules Node sets no `module-sync` condition, and takes the whole entry.
  const off = JSON.parse(execFileSync(process.execPath, ['--no-experimental-require-module', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' })) as Outcome;

  test('is dist/webhooks/node.js, whose import loads the error classes and none of the code that verifies or receives', () => {
    expect(out.resolved).toBe(NODE_FILE);
    expect(out.atImport).toEqual([NODE_FILE, 'dist/webhooks/errors.js']);
  });

  test('a function’s first call loads the rest, the entry every other runtime gets, once', () => {
    expect(out.loadedByCall).toEqual([webhooks.esm, 'dist/webhooks/core.js']);
  });

  test('a Node that does not require() ES modules takes that entry, and works', () => {
    expect(off.resolved).toBe(webhooks.esm);
    expect(off.atImport).toEqual(expect.arrayContaining([webhooks.esm, 'dist/webhooks/core.js']));
    expect(off.kind).toBe('deposit');
    expect(off.refusal).toEqual({ name: 'CallbackVerificationError', reason: 'invalid_signature', ofMain: true });
  });

  test('where require() of its ES module fails though Node took this file (Jest’s ESM mode, Yarn PnP on Node 22.12 to 22.14), the first call loads the CommonJS build, whose errors are still instanceof its classes', () => {
    const args = ['--conditions=module-sync', '--no-experimental-require-module', '--input-type=module', '-e', script];
    const fallback = JSON.parse(execFileSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8' })) as Outcome;
    expect(fallback.resolved).toBe(NODE_FILE);
    // The ES module tried, then the CommonJS build.
    expect(fallback.loadedByCall).toEqual([webhooks.esm, webhooks.cjs, 'dist/webhooks/core.cjs']);
    expect(fallback.kind).toBe('deposit');
    expect(fallback.sameResult).toBe(true);
    expect(fallback.refusal).toEqual({ name: 'CallbackVerificationError', reason: 'invalid_signature', ofMain: true });
  });

  test('exports the names of that entry, the same error classes and constants as it and as payorch, and its functions give that entry’s results', () => {
    expect(out.namesNode).toEqual(out.namesEager);
    expect(out.namesEager.length).toBeGreaterThan(20);
    expect(out.differentValues).toEqual([]);
    expect(out.sameResult).toBe(true);
    expect(out.kind).toBe('deposit');
    expect(out.refusal).toEqual({ name: 'CallbackVerificationError', reason: 'invalid_signature', ofMain: true });
  });
});

describe('where payorch/webhooks resolves besides Node', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'payorch-node-entry-'));
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });
  // The package as an app installs it: node_modules/payorch, here a link to this repository.
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(repoRoot, join(scratch, 'node_modules', 'payorch'), 'dir');
  const app = join(scratch, 'app.mjs');
  writeFileSync(app, "import { verifyCallback } from 'payorch/webhooks';\ntry { verifyCallback({ headers: {}, body: '{}' }, { apiKey: 'a', secretKey: 's' }); } catch (error) { process.stdout.write(`${error.name}: ${error.message}`); }\n");
  const bundle = async (conditions: string[] | undefined) => {
    const result = await build({ entryPoints: [app], bundle: true, write: true, outfile: join(scratch, 'out', 'app.mjs'), platform: 'node', format: 'esm', metafile: true, logLevel: 'silent', ...(conditions === undefined ? {} : { conditions }) });
    const files = Object.keys(result.metafile.inputs).filter((file) => file.includes('dist/webhooks/')).map((file) => file.slice(file.indexOf('dist/')));
    return { files, printed: execFileSync(process.execPath, [join(scratch, 'out', 'app.mjs')], { cwd: scratch, encoding: 'utf8' }) };
  };

  test('a bundler with its default conditions (esbuild here; webpack, Rollup and Vite set `module` too) takes the whole entry, and the bundle runs on its own', async () => {
    const { files, printed } = await bundle(undefined);
    expect(files).toContain(webhooks.esm);
    expect(files).not.toContain(NODE_FILE);
    expect(printed).toMatch(/^CallbackVerificationError: /);
  });

  test('a bundle given Node’s conditions without `module` took the Node-only file: its first call says so, naming the condition to set', async () => {
    const { files, printed } = await bundle(['module-sync']);
    expect(files).toContain(NODE_FILE);
    expect(printed).toMatch(/^PayorchError: payorch\/webhooks could not load its code on first use \(Cannot find module '.*\/out\/index\.js'; Cannot find module '.*\/out\/index\.cjs'\): it loads dist\/webhooks\/index\.js or index\.cjs, next to the file Node resolved it to\. A bundle must carry them: bundle with the "module" condition/);
    expect(printed).not.toContain('\n');
  });

  test('a file tracer (@vercel/nft, which Vercel and Next.js standalone builds use) carries what the first call loads', async () => {
    // From the root: node_modules/payorch links to this repository, outside the scratch folder.
    const { fileList } = await nodeFileTrace([app], { base: '/' });
    const traced = [...fileList].filter((file) => /dist\/webhooks\/.*\.js$/.test(file)).map((file) => file.slice(file.indexOf('dist/'))).sort();
    expect(traced).toEqual(['dist/webhooks/core.js', 'dist/webhooks/errors.js', webhooks.esm, NODE_FILE, 'dist/webhooks/receive.js'].sort());
  });
});

test('the file Node imports first imports nothing but the error classes, and those import nothing: what its cold start rests on', () => {
  const imports = (file: string) => {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    return [...[...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gm)].map((match) => match[1]), ...[...text.matchAll(/\bimport\s*\(/g)].map(() => 'import()')];
  };
  expect(new Set(imports(NODE_FILE))).toEqual(new Set(['./errors.js']));
  expect(imports('dist/webhooks/errors.js')).toEqual([]);
});
