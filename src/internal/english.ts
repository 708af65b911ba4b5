import type * as z from 'zod/mini';

/*
 * zod's English messages (`zod/locales` `en`), for the issues payorch's own schemas can raise:
 * the same words, without those of the string formats, sized types and checks no payorch schema
 * uses (e-mail, UUID, files, maps, prefixes, multiples, discriminators), which zod's map would
 * bring into every bundle. test/internal/english.test.ts holds each message to zod's own, and walks
 * every schema of the SDK for a type, check or format this map does not word as zod does.
 */

/** The string formats payorch's schemas check, worded as zod's `en` words them. */
export const FORMAT_NOUNS: Readonly<Record<string, string>> = { regex: 'input', date: 'ISO date', datetime: 'ISO datetime' };

/** The sized types payorch's schemas check, with the unit zod's `en` counts them in. */
export const SIZE_UNITS: Readonly<Record<string, string>> = { string: 'characters', array: 'items' };

function typeName(type: string, input?: unknown): string {
  if (type === 'number' && typeof input === 'number' && !Number.isFinite(input)) return String(input);
  return type === 'nan' ? 'NaN' : type;
}

// zod's util.parsedType: the name of a value's type as `invalid_type` reports it.
function parsedType(input: unknown): string {
  if (typeof input === 'number') return Number.isNaN(input) ? 'nan' : 'number';
  if (typeof input !== 'object') return typeof input;
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  const { constructor } = input as { readonly constructor?: { readonly name?: unknown } };
  return Object.getPrototypeOf(input) !== Object.prototype && 'constructor' in input && constructor ? String(constructor.name) : 'object';
}

function primitive(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function bound(kind: 'big' | 'small', issue: { readonly origin?: string; readonly exact?: boolean; readonly inclusive?: boolean }, limit: { toString(): string }): string {
  const adjective = issue.exact === true ? 'exactly ' : issue.inclusive === true ? (kind === 'big' ? '<=' : '>=') : kind === 'big' ? '<' : '>';
  const unit = issue.origin === undefined ? undefined : SIZE_UNITS[issue.origin];
  const origin = issue.origin ?? (kind === 'big' ? 'value' : 'undefined');
  return `Too ${kind}: expected ${origin} to ${unit === undefined ? 'be' : 'have'} ${adjective}${limit.toString()}${unit === undefined ? '' : ` ${unit}`}`;
}

/** The English message of a zod issue. */
export function englishMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${typeName(issue.expected)}, received ${typeName(parsedType(issue.input), issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `Invalid input: expected ${primitive(issue.values[0])}` : `Invalid option: expected one of ${issue.values.map(primitive).join('|')}`;
    case 'too_big':
      return bound('big', issue, issue.maximum);
    case 'too_small':
      return bound('small', issue, issue.minimum);
    case 'invalid_format':
      return issue.format === 'regex' ? `Invalid string: must match pattern ${String(issue['pattern'])}` : `Invalid ${FORMAT_NOUNS[issue.format] ?? issue.format}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.map(primitive).join(', ')}`;
    // The first three come from checks and types no payorch schema has (the test keeps it so),
    // and a plain union has no other words: payorch has no discriminated or exclusive union.
    case 'not_multiple_of':
    case 'invalid_key':
    case 'invalid_element':
    case 'invalid_union':
    case 'custom':
    default:
      return 'Invalid input';
  }
}
