import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot, requireBuilt } from '../helpers/dist.js';

/*
 * A consumer who compiles with skipLibCheck false reads every declaration file an entry's types
 * reach. An entry whose declarations reach another entry's that imports an optional peer (bullmq)
 * fails to compile where that peer is not installed: the declaration bundler once took a type
 * re-exported by payorch/bullmq from there for payorch/cloudflare-queues.
 */

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { import?: { types?: string }; require?: { types?: string } }>;
  peerDependencies: Record<string, string>;
};
const entries = Object.entries(manifest.exports).flatMap(([name, target]) =>
  typeof target === 'string' ? [] : [target.import?.types, target.require?.types].flatMap((types) => (types === undefined ? [] : [{ name, types }])),
);
requireBuilt(...entries.map(({ types }) => types));

// Code lines only: doc comments quote imports of the user's own packages.
const SPECIFIER = /^(?:import|export)\b[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm;

/** The packages the declarations of `file` reach, through every declaration file they import. */
function packagesReached(file: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const match of readFileSync(path, 'utf8').matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) visit(resolve(dirname(path), specifier.replace(/\.c?js$/, path.endsWith('.d.cts') ? '.d.cts' : '.d.ts')));
      else packages.add(specifier);
    }
  };
  visit(join(repoRoot, file));
  return packages;
}

const optionalPeers = Object.keys(manifest.peerDependencies);

test.each(entries)("the declarations of $name ($types) reach no optional peer but the entry's own", ({ name, types }) => {
  // Each adapter's types name its engine's; every other entry's are payorch's own and zod's.
  const own: Readonly<Record<string, readonly string[]>> = { './bullmq': ['bullmq'] };
  const reached = [...packagesReached(types)].filter((specifier) => optionalPeers.some((peer) => specifier === peer || specifier.startsWith(`${peer}/`)));
  expect(reached.filter((peer) => !(own[name] ?? []).includes(peer))).toEqual([]);
  // The scan sees what it looks for: payorch/bullmq's types do name BullMQ's.
  if (name === './bullmq') expect(reached).toContain('bullmq');
});
