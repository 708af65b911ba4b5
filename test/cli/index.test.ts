import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { payorch, requireFreshBuild, root, expectUsageError } from './run.js';

requireFreshBuild();
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const COMMANDS = ['sandbox', 'trigger', 'verify', 'sign', 'call', 'doctor', 'openapi'];

describe('payorch (dist/cli.js)', { timeout: 30_000 }, () => {
  test.each([['--version'], ['-v']])('%s prints the package version and exits 0', async (flag) => {
    expect(await payorch([flag])).toEqual({ code: 0, stdout: `payorch ${version}\n`, stderr: '' });
  });

  test.each([['--help'], ['-h'], ['help']])('%s lists every command and the exit codes, exit 0', async (flag) => {
    const run = await payorch([flag]);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).toContain('0 success, 1 the operation failed, 2 bad usage');
  });

  test('no command prints the usage and exits 2', async () => {
    const run = await payorch([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Usage: payorch <command>/);
  });

  test.each(COMMANDS)('help %s prints the usage of that command, the same as its --help', async (command) => {
    const [help, flag] = await Promise.all([payorch(['help', command]), payorch([command, '--help'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^Usage: payorch ${command}`));
    expect(flag).toEqual(help);
  });

  test.each([
    [['serve'], /unknown command "serve"/],
    [['help', 'serve'], /unknown command "serve"/],
    [['--verbose'], /unknown option --verbose/],
    [['sign', 'basic', '--verbose'], /Unknown option '--verbose'/],
  ])('payorch %j is bad usage: exit 2 with a message on stderr', async (args, message) => {
    await expectUsageError(args, {}, message);
  });
});

describe('the build', () => {
  test('the main entry carries neither the CLI nor the OpenAPI generator, and no CommonJS CLI is built', () => {
    for (const file of ['dist/index.js', 'dist/index.cjs']) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(text).not.toContain('openApiDocument');
      expect(text).not.toContain('toJSONSchema');
      expect(text).not.toContain('parseArgs');
    }
    expect(existsSync(join(root, 'dist/cli.cjs'))).toBe(false);
    expect(readFileSync(join(root, 'dist/cli.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});
