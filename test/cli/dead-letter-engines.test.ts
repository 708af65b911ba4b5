import { expect, test } from 'vitest';
import { ENGINES } from '../../src/tools/cli/dead-letter-queues.js';
import { payorch } from './run.js';

// `payorch dead-letters` knows its engines from one table, ENGINES: a new engine is one row. Its
// help, its flags and the choice of engine all come from the rows, so a row's flag that the
// command line does not take, or that another engine accepts, fails here.

test('the help names every engine, its URL flag and variable, and each flag of its own', async () => {
  const help = (await payorch(['dead-letters', '--help'])).stdout;
  expect(help).toContain(`--engine <name>          ${ENGINES.map((each) => each.name).join(' or ')}`);
  for (const engine of ENGINES) {
    expect(help).toMatch(new RegExp(`\\n  ${engine.url.flag} <url> +${engine.label}: ${engine.url.help} \\(default \\$${engine.url.variable}\\)\\n`));
    for (const [name, flag] of Object.entries(engine.flags)) expect(help).toContain(`--${name} ${flag.value}`);
  }
});

test.each(ENGINES.flatMap((engine) => ENGINES.filter((other) => other !== engine).flatMap((other) => Object.keys(other.flags).map((flag) => [engine.name, flag, other.name] as const))))(
  'on %s, --%s (of %s) is refused before anything is opened',
  async (name, flag, other) => {
    const engine = ENGINES.find((each) => each.name === name)!;
    // A URL nothing listens on: the refusal comes before any connection.
    const url = new URL(engine.url.example);
    url.host = '127.0.0.1:1';
    const run = await payorch(['dead-letters', 'list', '--engine', engine.name, engine.url.flag, url.href, `--${flag}`, 'x']);
    expect(run.code, `--${flag} is ${other}'s`).toBe(2);
    expect(run.stderr).toContain(`--${flag} is not for ${engine.label}, the engine here`);
  },
);

test('an engine no row names is refused, naming every row', async () => {
  const run = await payorch(['dead-letters', 'list', '--engine', 'nope']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`--engine must be ${ENGINES.map((each) => each.name).join(' or ')}, not "nope"`);
});
