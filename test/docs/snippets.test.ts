import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { diagnosticsOf } from '../helpers/in-memory-program.js';

// Every ```ts block of README.md and docs/*.md is compiled against the real sources, so a guide
// cannot drift from the code. A block is its own module; the names guides use without defining
// them (`provider`, `dealer`, ...) are declared once below, and a block may define its own.
const root = join(import.meta.dirname, '../..');
const prelude = `
import type { DealerClient, ProviderClient } from 'payorch';
declare global {
  const provider: ProviderClient;
  const dealer: DealerClient;
  function redirect(url: string): void;
}
export {};
`;

interface Snippet {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

function snippetsOf(file: string): Snippet[] {
  const text = readFileSync(file, 'utf8');
  const snippets: Snippet[] = [];
  const fence = /^```(ts|typescript)\s*$([\s\S]*?)^```\s*$/gm;
  for (const match of text.matchAll(fence)) {
    const line = text.slice(0, match.index).split('\n').length + 1;
    snippets.push({ file: relative(root, file), line, code: match[2] ?? '' });
  }
  return snippets;
}

const guides = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(root, 'docs', name))];
const snippets = guides.flatMap(snippetsOf);

describe('code in the guides', () => {
  test('every TypeScript block of README.md and docs/*.md compiles', () => {
    const files = new Map<string, string>([[join(root, 'test/docs/__prelude__.ts'), prelude]]);
    snippets.forEach((snippet, index) => {
      // `export {}` makes each block a module, so blocks may reuse names.
      files.set(join(root, `test/docs/__snippet_${index}__.ts`), `${snippet.code}\nexport {};\n`);
    });
    const problems = diagnosticsOf(root, files)
      .map((diagnostic) => {
        const name = diagnostic.file?.fileName ?? '';
        const index = Number(/__snippet_(\d+)__/.exec(name)?.[1] ?? -1);
        const where = snippets[index];
        const { line } = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0) ?? { line: 0 };
        const place = where === undefined ? name : `${where.file}:${where.line + line}`;
        return `${place}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
    // Building the program reads every declaration the guides reach, beyond vitest's default of 5 s on a busy machine.
  }, 60_000);
});
