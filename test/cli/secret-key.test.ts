import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { refusedPort, closeLoopbackServers } from '../helpers/loopback.js';
import { expectNoSecret, expectUsageError, jsonOf, payorch, requireFreshBuild } from './run.js';

/*
 * The secret key can reach the CLI without sitting in /proc/<pid>/cmdline and the shell
 * history: from the environment, a file or standard input; on the command line it still works,
 * with a warning.
 */

requireFreshBuild();
closeLoopbackServers();

const API_KEY = 'prov_api_cli19';
const SECRET = 'prov_secret_Zt8qL2mN-cli';
const folder = mkdtempSync(join(tmpdir(), 'payorch-secret-'));
const keyFile = join(folder, 'secret');
writeFileSync(keyFile, `${SECRET}\n`, { mode: 0o600 });
const emptyFile = join(folder, 'empty');
writeFileSync(emptyFile, '\n');

/** The X-Timestamp and X-Hash of `payorch sign basic` output. */
function signed(stdout: string): { timestamp: string; hash: string } {
  return { timestamp: /X-Timestamp:(\d+)/.exec(stdout)?.[1] ?? '', hash: /X-Hash:([0-9a-f]+)/.exec(stdout)?.[1] ?? '' };
}

const WARNING = /warning: --secret-key on the command line can be read by other local users \(ps, \/proc\) and stays in your shell history/;

describe('the secret key of the CLI', { timeout: 30_000 }, () => {
  test.each<[string, string[], Record<string, string>, string, boolean]>([
    ['the environment', [], { PAYORCH_PROVIDER_SECRET_KEY: SECRET }, '', false],
    ['--secret-key-file, dropping the newline echo wrote', ['--secret-key-file', keyFile], {}, '', false],
    ['--secret-key-stdin', ['--secret-key-stdin'], {}, `${SECRET}\n`, false],
    ['--secret-key, with a warning on stderr', ['--secret-key', SECRET], {}, '', true],
  ])('comes from %s and signs with it', async (_way, flags, env, stdin, warns) => {
    const run = await payorch(['sign', 'basic', ...flags], { PAYORCH_PROVIDER_API_KEY: API_KEY, ...env }, stdin);
    expect(run.code).toBe(0);
    const { timestamp, hash } = signed(run.stdout);
    expect(hash).toBe(createHash('sha256').update(`${API_KEY}${SECRET}${timestamp}`).digest('hex'));
    if (warns) expect(run.stderr).toMatch(WARNING);
    else expect(run.stderr).toBe('');
    expectNoSecret(run, SECRET);
  });

  test.each<[string, string[], RegExp]>([
    ['two ways at once', ['--secret-key-file', keyFile, '--secret-key', SECRET], /give the secret key one way: --secret-key-file, --secret-key-stdin or --secret-key/],
    ['an empty key file', ['--secret-key-file', emptyFile], /the secret key read from .*empty is empty/],
    ['no secret at all', [], /--secret-key-file, --secret-key-stdin or --secret-key is required \(or set PAYORCH_PROVIDER_SECRET_KEY\)/],
  ])('refuses %s as a usage error', async (_name, flags, message) => {
    await expectUsageError(['sign', 'basic', ...flags], { PAYORCH_PROVIDER_API_KEY: API_KEY }, message);
  });

  test('refuses standard input for both the data and the secret key of payorch call', async () => {
    await expectUsageError(['call', 'welcome', '--data', '@-', '--secret-key-stdin', '--base-url', 'http://127.0.0.1:9'], { PAYORCH_PROVIDER_API_KEY: API_KEY }, /standard input cannot carry both --data @- and --secret-key-stdin/);
  });

  test.each(['call', 'sign', 'verify', 'trigger', 'doctor'])('payorch %s --help offers the file and standard input and says who can read --secret-key', async (command) => {
    const run = await payorch([command, '--help']);
    expect(run.stdout).toMatch(/--secret-key-file <path>/);
    expect(run.stdout).toMatch(/--secret-key-stdin/);
    expect(run.stdout).toMatch(/other local users \(ps\) and\s+(your\s+)?shell\s+history can read it/);
  });
});

describe('payorch call', { timeout: 30_000 }, () => {
  test.each([
    [['--json'], (run: { stdout: string }) => (jsonOf(run as never)['error'] as Record<string, unknown>)['outcome']],
    [[], (run: { stderr: string }) => /^outcome {2}(\S+)/m.exec(run.stderr)?.[1]],
  ])('prints the outcome of a failure (%j)', async (flags, outcomeOf) => {
    const url = `http://127.0.0.1:${await refusedPort()}`;
    const run = await payorch(['call', 'manual.startDeposit', '--base-url', url, ...flags, '--data', '{"fullname":"Ada","username":"ada","user_id":"u-1","amount":250}'], {
      PAYORCH_PROVIDER_API_KEY: API_KEY,
      PAYORCH_PROVIDER_SECRET_KEY: SECRET,
      PAYORCH_CREDENTIAL_KEY: 'cred_key_cli19_abcdef',
    });
    expect(run.code).toBe(1);
    expect(outcomeOf(run)).toBe('not_sent');
  });
});
