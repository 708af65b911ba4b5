import type { OptionDeclaration } from '../../core/option-checks.js';
import { allowedBy, checkValue } from '../../core/option-checks.js';
import { RequestValidationError } from 'payorch/webhooks';
import { UsageError } from './io.js';

/*
 * Number flags checked by the declaration of the SDK option they set, with the range and default
 * their help shows, so that a flag takes exactly what the option takes.
 */

/** How long `doctor` waits for each account and `trigger` for the receiver, by default. */
export const DEFAULT_WAIT_MS = 10_000;
/** `--timeout` of the commands that wait of their own (doctor, trigger): its range and default reach their help. */
export const WAIT_TIMEOUT: OptionDeclaration = { name: 'timeout', rule: { type: 'number', min: 1, max: 600_000, integer: true }, default: DEFAULT_WAIT_MS };

/** The declaration named `name` in `declarations`; a flag is checked by the option it sets, so a name none declares does not compile. */
export function declared<TName extends string>(declarations: readonly OptionDeclaration<TName>[], name: NoInfer<TName>): OptionDeclaration<TName> {
  const declaration = declarations.find((each) => each.name === name);
  if (declaration === undefined) throw new Error(`No option ${name} is declared`);
  return declaration;
}

/** A flag's range and default as its help and docs/cli.md show them: `1 to 20, default 5`. */
export function rangeOf(declaration: OptionDeclaration): string {
  const { rule } = declaration;
  const range = rule.type !== 'number' ? allowedBy(rule) : rule.max === Infinity ? `${rule.min} or more` : `${rule.min} to ${rule.max}`;
  return declaration.default === undefined ? range : `${range}, default ${String(declaration.default)}`;
}

/**
 * A number from a flag, checked by the declaration of the option it sets, as the SDK checks that
 * option; a usage error naming the flag, the range and the text given otherwise.
 */
export function numberFlag(value: string | undefined, flag: string, declaration: OptionDeclaration): number | undefined {
  if (value === undefined) return undefined;
  const number = value.trim() === '' ? Number.NaN : Number(value);
  try {
    // Text that is no number is checked as text: the refusal then quotes what was typed.
    checkValue(flag, declaration, Number.isNaN(number) ? value : number);
  } catch (error) {
    if (error instanceof RequestValidationError) throw new UsageError(`${flag} ${error.issues[0]?.message ?? ''}`);
    throw error;
  }
  return number;
}
