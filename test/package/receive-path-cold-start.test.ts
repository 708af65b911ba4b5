import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';

/*
 * Importing payorch/webhooks (or payorch) loads none of the receive path: dist/webhooks/receive.js,
 * which a receiver imports on its first request. A fresh process imports the entry, records every
 * file it loaded (ESM: a resolve hook; CommonJS: require.cache), creates a receiver (its options
 * are checked then), answers one signed callback and records again. Then the same with the
 * receive path's file gone: the request is answered 500, never 200, and onError is told.
 */
const root = join(import.meta.dirname, '..', '..');
const webhooks = entry('payorch/webhooks');
const main = entry('payorch');
requireBuilt(webhooks.esm, webhooks.cjs, main.esm, main.cjs);

const receiveAndTell = `
const told = [];
const secretKey = 'cold_secret_0001';
let refused;
try { createCallbackReceiver({ apiKey: 'cold_api_0001', secretKey, maxBodyBytes: 0 }); } catch (error) { refused = error.constructor.name; }
const receiver = createCallbackReceiver({ apiKey: 'cold_api_0001', secretKey, onError: (error, details) => told.push({ name: error.constructor.name, payorch: error instanceof PayorchError, message: error.message, phase: details.phase }) });
let applied = 0;
receiver.on('deposit', () => { applied++; });
const signed = signCallback({ tracking_code: 'MAN-cold01-1763812000', status: 'completed', amount: 100, user_id: 'u1' }, { apiKey: 'cold_api_0001', secretKey });
const answer = await receiver.receive({ headers: signed.headers, body: signed.body });
const again = await receiver.handle(new Request('https://merchant.example/callbacks', { method: 'POST', headers: signed.headers, body: signed.body }));`;
const result = `{ atStart, after: loaded(), refused, status: answer.status, body: answer.body, again: again.status, applied, told }`;

const esm = (file: string) => `
import { registerHooks } from 'node:module';
const files = [];
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); files.push(found.url); return found; } });
const loaded = () => [...files];
const { createCallbackReceiver, signCallback, PayorchError } = await import(${JSON.stringify(pathToFileURL(file).href)});
const atStart = loaded();
${receiveAndTell}
process.stdout.write(JSON.stringify(${result}));`;

const cjs = (file: string) => `
(async () => {
const loaded = () => Object.keys(require.cache);
const { createCallbackReceiver, signCallback, PayorchError } = require(${JSON.stringify(file)});
const atStart = loaded();
${receiveAndTell}
process.stdout.write(JSON.stringify(${result}));
})();`;

interface Outcome {
  readonly atStart: string[];
  readonly after: string[];
  readonly refused: string | undefined;
  readonly status: number;
  readonly body: string;
  readonly again: number;
  readonly applied: number;
  readonly told: { name: string; payorch: boolean; message: string; phase: string }[];
}

const run = (args: readonly string[]): Outcome => JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })) as Outcome;
const files = (loaded: readonly string[]) => [...new Set(loaded.filter((file) => file.includes('/dist/')).map((file) => (file.startsWith('file:') ? fileURLToPath(file) : file)))];
const receivePath = (loaded: readonly string[]) => files(loaded).filter((file) => /\/dist\/webhooks\/receive\.c?js$/.test(file));
const core = (loaded: readonly string[]) => files(loaded).filter((file) => /\/dist\/webhooks\/core\.c?js$/.test(file));

const builds = [
  ['payorch/webhooks', 'ESM', (dist: string) => ['--input-type=module', '-e', esm(join(dist, webhooks.esm.replace(/^dist\//, '')))]],
  ['payorch/webhooks', 'CommonJS', (dist: string) => ['-e', cjs(join(dist, webhooks.cjs.replace(/^dist\//, '')))]],
  ['payorch', 'ESM', (dist: string) => ['--input-type=module', '-e', esm(join(dist, main.esm.replace(/^dist\//, '')))]],
  ['payorch', 'CommonJS', (dist: string) => ['-e', cjs(join(dist, main.cjs.replace(/^dist\//, '')))]],
] as const;

test.each(builds)('importing %s (%s) loads no receive path; a receiver checks its options at creation, and its first request loads it', (name, _format, args) => {
  const out = run(args(join(root, 'dist')));
  expect(core(out.atStart)).toHaveLength(1);
  expect(receivePath(out.atStart)).toEqual([]);
  // payorch takes payorch/webhooks' names from the core file: one file fewer to load than through the entry's own.
  if (name === 'payorch') expect(files(out.atStart).filter((file) => [webhooks.esm, webhooks.cjs].some((own) => file.endsWith(`/${own}`)))).toEqual([]);
  // A misconfiguration still throws at creation, before any request.
  expect(out.refused).toBe('RequestValidationError');
  expect(receivePath(out.after)).toHaveLength(1);
  expect(out.status).toBe(200);
  expect(out.applied).toBe(1);
  // The second request, a duplicate through handle, runs on the receive path already loaded.
  expect(out.again).toBe(200);
  expect(out.told).toEqual([]);
});

// A copy of dist/ without the receive path's files: the package as a broken install or a bundle that dropped the file leaves it.
const broken = mkdtempSync(join(tmpdir(), 'payorch-no-receive-'));
cpSync(join(root, 'dist'), join(broken, 'dist'), { recursive: true });
writeFileSync(join(broken, 'package.json'), JSON.stringify({ type: 'module' }));
rmSync(join(broken, 'dist/webhooks/receive.js'));
rmSync(join(broken, 'dist/webhooks/receive.cjs'));
afterAll(() => {
  rmSync(broken, { recursive: true, force: true });
});

test.each(builds.filter(([name]) => name === 'payorch/webhooks'))('a receive path that cannot be loaded is answered 500, never 200, and onError is told (%s, %s)', (_entry, _format, args) => {
  const out = run(args(join(broken, 'dist')));
  expect(out.refused).toBe('RequestValidationError');
  expect(out.status).toBe(500);
  expect(JSON.parse(out.body)).toEqual({ success: false, error: 'not_applied' });
  expect(out.again).toBe(500);
  expect(out.applied).toBe(0);
  // Each request tries the import again, and each failure is told as a PayorchError.
  expect(out.told).toHaveLength(2);
  for (const told of out.told) expect(told).toMatchObject({ name: 'PayorchError', payorch: true, phase: 'request', message: expect.stringContaining('could not load its receive path') as unknown });
});
