import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Api } from '../src/core/api.js';
import { API_ENDPOINTS } from '../src/tools/registry/index.js';

/*
 * The endpoint tables of docs/spec-gaps.md are made from the gaps on the endpoint rows of
 * src/tools/registry/index.ts; test/docs/spec-gaps.test.ts fails when the document is behind. Run
 * `npx tsx scripts/spec-gaps.ts` to rewrite them.
 */

export const SPEC_GAPS_FILE = join(import.meta.dirname, '../docs/spec-gaps.md');

const begin = (api: Api) => `<!-- ${api} endpoint gaps: generated from src/tools/registry/index.ts by scripts/spec-gaps.ts -->`;
const END = '<!-- end of generated gaps -->';

/** One table row per gap of the API's endpoint rows, in the order they first appear. */
function table(api: Api): string {
  const gaps = [...new Set(API_ENDPOINTS.filter((row) => row.api === api).flatMap((row) => row.gaps))];
  const lines = gaps.map(({ spec, gap, assumes, override, tests }) => `| ${[spec, gap, assumes, override, tests].join(' | ')} |`);
  return ['| Spec | Gap | payorch assumes | Override | Test |', '|---|---|---|---|---|', ...lines].join('\n');
}

/** The document with its generated tables made from the rows as they are now. */
export function withGeneratedTables(text: string): string {
  let result = text;
  for (const api of ['provider', 'dealer'] as const) {
    const start = result.indexOf(begin(api));
    const end = result.indexOf(END, start);
    if (start < 0 || end < 0) throw new Error(`docs/spec-gaps.md lacks the markers of the ${api} endpoint gaps`);
    result = `${result.slice(0, start)}${begin(api)}\n${table(api)}\n${result.slice(end)}`;
  }
  return result;
}

if (process.argv[1] === import.meta.filename) writeFileSync(SPEC_GAPS_FILE, withGeneratedTables(readFileSync(SPEC_GAPS_FILE, 'utf8')));
