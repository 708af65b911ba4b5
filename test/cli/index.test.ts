import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { payorch, root, version, expectUsageError } from './run.js';

const COMMANDS = ['sandbox', 'trigger', 'verify', 'sign', 'call', 'reconcile', 'dead-letters', 'migrate', 'doctor', 'openapi'];

describe('payorch', { timeout: 30_000 }, () => {
  test.each([['--version'], ['-v']])('%s prints the package version and exits 0', async (flag) => {
    expect(await payorch([flag])).toEqual({ code: 0, stdout: `payorch ${version}\n`, stderr: '' });
  });

  test.each([['--help'], ['-h'], ['help']])('%s lists every command and the exit codes, exit 0', async (flag) => {
    const run = await payorch([flag]);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).toContain('0 success, 1 the operation failed, 2 bad usage');
  });

  test('docs/cli.md lists every command with the summary --help prints', async () => {
    const listed = (text: string) => text.split('\n').filter((line) => /^ {2}[a-z-]+ +\S/.test(line) && COMMANDS.includes(line.trim().split(' ')[0] ?? '')).map((line) => line.trim().replace(/ +/, ' '));
    const page = readFileSync(join(root, 'docs/cli.md'), 'utf8');
    const help = listed((await payorch(['--help'])).stdout);
    expect(help).toHaveLength(COMMANDS.length);
    expect(listed(page.slice(0, page.indexOf('\n## ')))).toEqual(help);
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
    [['sign', 'basic', '--verbose'], /^payorch sign: unknown option --verbose\nSee payorch sign --help\.\n$/],
    [['sign', 'basic', '--dealr'], /payorch sign: unknown option --dealr; did you mean --dealer\?/],
    [['sgin'], /^payorch: unknown command "sgin"; did you mean sign\?\nSee payorch --help\.\n$/],
    [['call', 'welcome', '--verbose'], /^payorch call: unknown option --verbose\nSee payorch call --help\.\n$/],
    [['sign', 'basic', '--json=yes'], /payorch sign: --json takes no value/],
    [['sign', 'key', '--key'], /payorch sign: --key needs a value\n/],
    [['sign', 'key', '--key', '-k'], /payorch sign: --key needs a value; write a value that starts with a dash as --key=-…/],
    [['verify', '--header', 'X-Hash: 00', 'abc"}'], /payorch verify: unexpected argument "abc\\"}": this command takes options only/],
  ])('payorch %j is bad usage: exit 2 with a message on stderr', async (args, message) => {
    await expectUsageError(args, {}, message);
  });
});
