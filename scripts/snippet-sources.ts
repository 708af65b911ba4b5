import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Where a reader finds code to copy: the fenced blocks of the guides and the `@example` tags of doc
 * comments, each with the line it starts at. The snippet check (check-snippets.ts) compiles them;
 * the docs tests read them (test/docs/money-from-records.test.ts). One reading for both, so that
 * neither sees a snippet the other misses.
 */

const root = join(import.meta.dirname, '..');

export interface Snippet {
  readonly source: string;
  /** The source line of the block's first line of code. */
  readonly line: number;
  readonly code: string;
}

/** One `@example` tag: its text (the tag's line and what follows until the next tag), and its fenced block if it has one. */
export interface ExampleTag {
  readonly source: string;
  /** The line of the tag. */
  readonly line: number;
  readonly text: string;
  readonly fenced: (Snippet & { readonly language: string }) | undefined;
}

/** The files under `directory` (relative to the repository) ending with one of `suffixes`; typedoc's output (api/) left out. */
export const filesUnder = (directory: string, suffixes: readonly string[]): string[] =>
  readdirSync(join(root, directory), { recursive: true, encoding: 'utf8' })
    .filter((name) => suffixes.some((suffix) => name.endsWith(suffix)) && !name.startsWith('api/'))
    .map((name) => join(directory, name));

export const readSource = (file: string): string => readFileSync(join(root, file), 'utf8');

export const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** The fenced blocks of a markdown file in one of `languages`. */
export function markdownBlocks(file: string, languages: readonly string[]): Snippet[] {
  const text = readSource(file);
  const fence = new RegExp(String.raw`^\`\`\`(?:${languages.join('|')})[ \t]*\n([\s\S]*?)^\`\`\``, 'gm');
  return [...text.matchAll(fence)].map((match) => ({ source: file, line: lineOf(text, match.index) + 1, code: match[1] ?? '' }));
}

/** Each `@example` tag of the doc comments of a source or declaration file. */
export function exampleTags(file: string): ExampleTag[] {
  const text = readSource(file);
  const tags: ExampleTag[] = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = comment[0].split('\n').map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ''));
    const at = lineOf(text, comment.index);
    lines.forEach((line, index) => {
      if (!line.startsWith('@example')) return;
      const rest = [line.slice('@example'.length), ...lines.slice(index + 1)];
      const end = rest.findIndex((each, position) => position > 0 && each.startsWith('@'));
      const body = (end < 0 ? rest : rest.slice(0, end)).join('\n');
      const fence = /```(\w*)\n([\s\S]*?)```/.exec(body);
      const fenced = fence === null ? undefined : { source: file, line: at + index + lineOf(body, fence.index), code: fence[2] ?? '', language: fence[1] ?? '' };
      tags.push({ source: file, line: at + index, text: body, fenced });
    });
  }
  return tags;
}
