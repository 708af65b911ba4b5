import { describe, expect, test } from 'vitest';
import { colours } from '../../src/tools/cli/io.js';
import type { Io } from '../../src/tools/cli/io.js';

const stream = (isTTY: boolean) => ({ isTTY }) as unknown as Io['stdout'];

describe('colours', () => {
  test('paint on a terminal', () => {
    expect(colours(stream(true), {}).red('FAIL')).toBe('\u001b[31mFAIL\u001b[0m');
  });

  test('never when the output is not a terminal', () => {
    expect(colours(stream(false), {}).red('FAIL')).toBe('FAIL');
  });

  test('never when NO_COLOR is set to anything, even on a terminal (no-color.org)', () => {
    expect(colours(stream(true), { NO_COLOR: '1' }).green('ok')).toBe('ok');
    // An empty NO_COLOR does not count, as no-color.org says.
    expect(colours(stream(true), { NO_COLOR: '' }).green('ok')).toBe('\u001b[32mok\u001b[0m');
  });
});
