// The package's entry points, read from package.json `exports`: the one list of them. The build
// (tsup.config.ts), the reference (typedoc.config.mjs), the package tests and the scripts read it
// here. dist/ mirrors src/, so an entry's source follows from its built file: `./postgres` is
// built to dist/inboxes/postgres/index.js from src/inboxes/postgres/index.ts.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

function entryOf([subpath, target]) {
  const esm = target.import.default;
  const out = /^\.\/dist\/(.+)\.js$/.exec(esm)?.[1];
  if (out === undefined) throw new Error(`package.json exports["${subpath}"].import.default must be ./dist/<path>.js; got ${esm}`);
  const files = { esm: `dist/${out}.js`, cjs: `dist/${out}.cjs`, types: `dist/${out}.d.ts`, ctypes: `dist/${out}.d.cts` };
  const declared = [target.import.default, target.require.default, target.import.types, target.require.types].map((file) => file.slice(2));
  if (declared.join() !== [files.esm, files.cjs, files.types, files.ctypes].join()) {
    throw new Error(`package.json exports["${subpath}"]: the ESM, CommonJS and declaration files must share one path (${files.esm}, .cjs, .d.ts, .d.cts); got ${declared.join(', ')}`);
  }
  return { name: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, subpath, out, source: `src/${out}.ts`, ...files };
}

/** Every entry (`payorch`, `payorch/webhooks`, …), in the order of `exports`. */
export const ENTRIES = Object.entries(manifest.exports)
  .filter(([, target]) => typeof target === 'object')
  .map(entryOf);

/** The entry named `name` (`payorch/sandbox`); throws for a name `exports` does not list. */
export function entry(name) {
  const found = ENTRIES.find((each) => each.name === name);
  if (found === undefined) throw new Error(`${name} is not an entry of package.json exports (${ENTRIES.map((each) => each.name).join(', ')})`);
  return found;
}
