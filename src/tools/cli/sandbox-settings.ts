import { readFileSync } from 'node:fs';
import type { SandboxOptions } from 'payorch/sandbox';
import { RequestValidationError } from 'payorch/webhooks';
import type { OptionDeclaration } from '../../core/option-checks.js';
import { checkValue } from '../../core/option-checks.js';
import { SANDBOX_OPTIONS } from '../cli-internals.js';
import { rangeOf } from './flags.js';
import { UsageError } from './io.js';

/*
 * Every setting of createSandbox() is reachable from `payorch sandbox`: each declared option is a
 * flag named after it (`transferCompletionSeconds` is `--transfer-completion-seconds`,
 * `provider.active` is `--provider-active`), checked by its declaration; the lists (sites,
 * gateways, accounts) come from `--config file.json`, which takes any option. Flags win.
 */

type SandboxSetting = (typeof SANDBOX_OPTIONS)[number];

/** The flags kept from before the settings were derived: shorter, and the docs' examples use them. */
const NAMED: Partial<Record<SandboxSetting['name'], string>> = {
  'callbackRetry.attempts': '--callback-retries',
  'callbackRetry.timeoutMs': '--callback-timeout',
};

/** `--callback-keep-signature` is `callbackRetry.resign: false`: a switch, not a value. */
const KEEP_SIGNATURE = 'callbackRetry.resign';

/** The flag that sets a declared option: its dotted name in kebab case, or the name it kept. */
export function settingFlag(name: SandboxSetting['name']): string {
  return NAMED[name] ?? `--${name.replaceAll('.', '-').replaceAll(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** The declared options that take a value after their flag. */
export const SETTING_FLAGS: readonly { readonly flag: string; readonly declaration: SandboxSetting }[] = SANDBOX_OPTIONS.filter(
  (declaration) => declaration.name !== KEEP_SIGNATURE,
).map((declaration) => ({ flag: settingFlag(declaration.name), declaration }));

const VALUE_HINT: Record<OptionDeclaration['rule']['type'], string> = {
  number: '<n>',
  boolean: '<true|false>',
  time: '<iso-time>',
  httpUrl: '<url>',
  key: '<key>',
  text: '<text>',
  oneOf: '<value>',
  function: '<value>',
  object: '<value>',
  serviceUrl: '<url>',
};

/** The help's lines for the derived flags, each with the range and default of its option. */
export function settingsUsage(width: number): string[] {
  return SETTING_FLAGS.filter(({ flag }) => !Object.values(NAMED).includes(flag)).map(({ flag, declaration }) => {
    const usage = `${flag} ${VALUE_HINT[declaration.rule.type]}`;
    const description = `${declaration.name} (${rangeOf(declaration)})`;
    // A flag as wide as the column gets its description on the next line, not run into it.
    return usage.length <= width - 2 ? `  ${usage.padEnd(width)}${description}` : `  ${usage}\n  ${' '.repeat(width)}${description}`;
  });
}

/** The typed value of a flag's text, as the option takes it; the declaration then checks it. */
function typed(declaration: SandboxSetting, text: string): unknown {
  switch (declaration.rule.type) {
    case 'number':
      return text.trim() === '' || Number.isNaN(Number(text)) ? text : Number(text);
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'time':
      return Number.isNaN(Date.parse(text)) ? text : new Date(text);
    case 'key':
    case 'text':
    case 'httpUrl':
    case 'serviceUrl':
    case 'oneOf':
    case 'function':
    case 'object':
      return text;
  }
}

/** Sets `value` at a dotted path, creating the objects on the way. */
function place(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop() ?? path;
  let at = target;
  for (const part of parts) {
    const inner = at[part];
    const next: Record<string, unknown> = typeof inner === 'object' && inner !== null ? { ...(inner as Record<string, unknown>) } : {};
    at[part] = next;
    at = next;
  }
  at[last] = value;
}

/** createSandbox()'s options from `--config` and the setting flags, each checked as the option it sets. */
export function sandboxSettings(values: Readonly<Record<string, unknown>>, configFile: string | undefined, keepSignature: boolean): SandboxOptions {
  // Checked flag by flag here, and as a whole by createSandbox().
  const settings: Record<string, unknown> & SandboxOptions = configFile === undefined ? {} : readConfig(configFile);
  for (const { flag, declaration } of SETTING_FLAGS) {
    const text = values[flag.slice(2)];
    if (typeof text !== 'string') continue;
    const value = typed(declaration, text);
    try {
      checkValue(flag, declaration, value);
    } catch (error) {
      if (error instanceof RequestValidationError) throw new UsageError(`${flag} ${error.issues[0]?.message ?? ''}`);
      throw error;
    }
    place(settings, declaration.name, value);
  }
  if (keepSignature) place(settings, KEEP_SIGNATURE, false);
  return settings;
}

function readConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--config ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--config ${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--config ${file} must hold one JSON object of createSandbox() options`);
  const config = { ...(parsed as Record<string, unknown>) };
  // JSON has no Date: the record clock's start is written as an ISO 8601 time.
  if (typeof config['startTime'] === 'string') config['startTime'] = typed(SANDBOX_OPTIONS.find((each) => each.name === 'startTime') as SandboxSetting, config['startTime']);
  return config;
}

/** parseArgs' entries for the setting flags (all text; the declarations type them). */
export const SETTING_PARSE_OPTIONS: Readonly<Record<string, { readonly type: 'string' }>> = Object.fromEntries(
  SETTING_FLAGS.map(({ flag }) => [flag.slice(2), { type: 'string' as const }]),
);
