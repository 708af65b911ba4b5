import { expect } from 'vitest';

/** The cells of a Markdown table row; a `|` inside backticks does not split. */
export function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let code = false;
  for (const char of line.trim().replace(/^\|/, '').replace(/\|$/, '')) {
    if (char === '`') code = !code;
    if (char === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else cell += char;
  }
  out.push(cell.trim());
  return out;
}

/** The body rows of the one table of `guide` whose header row is `header`. */
export function table(guide: string, header: readonly string[]): string[][] {
  const lines = guide.split('\n');
  const starts = lines.flatMap((line, index) => (line.startsWith('|') && JSON.stringify(cells(line)) === JSON.stringify(header) ? [index] : []));
  expect(starts, `one table headed ${header.join(' | ')}`).toHaveLength(1);
  const rows: string[][] = [];
  for (let index = (starts[0] ?? 0) + 2; lines[index]?.startsWith('|') === true; index++) rows.push(cells(lines[index] ?? ''));
  return rows;
}

/** The first ```ts block under the heading line `heading` (`### D1`) of `guide`. */
export function codeBlock(guide: string, heading: string): string {
  const at = guide.indexOf(`\n${heading}\n`);
  const block = at < 0 ? undefined : /```ts\n([\s\S]*?)```/.exec(guide.slice(at))?.[1];
  if (block === undefined) throw new Error(`no TypeScript block under ${heading}`);
  return block;
}
