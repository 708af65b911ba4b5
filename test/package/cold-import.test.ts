import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireBuilt } from '../helpers/dist.js';
import { describe, expect, test } from 'vitest';

/*
 * Importing payorch and payorch/schemas builds no field schema: each exported object is built empty
 * and its fields on first use (core/schema-blocks.ts, deferShape). Counted in a fresh node process
 * through zod's post-construction hook (`globalThis.__zod_globalConfig.postProcessor`, read by
 * every schema constructor, zod's own included), by schema type, right after the imports and after
 * first use.
 */
const root = join(import.meta.dirname, '..', '..');

const script = (load: (entry: string) => string) => `
const built = {};
globalThis.__zod_globalConfig = { postProcessor: (schema) => { const type = schema._zod.def.type ?? 'check'; built[type] = (built[type] ?? 0) + 1; } };
const sdk = ${load('index')};
const schemas = ${load('schemas/index')};
const atImport = { ...built };
if (typeof sdk.ProviderClient !== 'function') throw new Error('payorch did not load');
const shapeKeys = Object.keys(schemas.ManualDeposit.shape.data.shape);
const parsed = schemas.Welcome.parse({ success: 'true', message: null, provider: { id: '7', name: 'P', is_active: 1 } });
process.stdout.write(JSON.stringify({ atImport, afterUse: built, shapeKeys, parsed }));
`;

const builds = [
  ['ESM', 'dist/schemas/index.js', ['--input-type=module', '-e', script((entry) => `await import(${JSON.stringify(pathToFileURL(join(root, `dist/${entry}.js`)).href)})`)]],
  ['CommonJS', 'dist/schemas/index.cjs', ['-e', script((entry) => `require(${JSON.stringify(join(root, `dist/${entry}.cjs`))})`)]],
] as const;

// What an import may build: the exported objects themselves (fields not built), the exported
// open status enums, the no-parameters schema and the shared catch-all of lenient objects.
const AT_IMPORT = ['object', 'custom', 'undefined', 'unknown', 'never', 'check'];

requireBuilt(...builds.map(([, file]) => file));

describe.each(builds)('the %s build', (_label, _file, args) => {
  test('builds no field schema at import, and builds them on first use with the same fields and results', () => {
    const out = JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })) as {
      atImport: Record<string, number>;
      afterUse: Record<string, number>;
      shapeKeys: string[];
      parsed: unknown;
    };
    expect(Object.keys(out.atImport).filter((type) => !AT_IMPORT.includes(type))).toEqual([]);
    // The counter sees field schemas once they are needed: the check above is not vacuous.
    expect(out.afterUse['string']).toBeGreaterThan(0);
    expect(out.afterUse['union']).toBeGreaterThan(0);
    expect(out.shapeKeys).toEqual(['tracking_code', 'amount', 'site', 'customer', 'expires_at', 'created_at', 'payment_url', 'status']);
    expect(out.parsed).toEqual({ success: true, message: undefined, provider: { id: 7, name: 'P', is_active: true } });
  });
});
