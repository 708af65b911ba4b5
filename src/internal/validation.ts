import type * as z from 'zod/mini';
import { RequestValidationError } from '../errors/error.js';
import type { ValidationIssue } from '../errors/error.js';
import { englishMessage } from './english.js';

/** Flattens zod issues into field + rule + message, the form every payorch error carries. */
export function toIssues(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return { field: issue.keys.join(', '), rule: issue.code, message: 'is not a field of this request' };
    }
    return { field: issue.path.map(String).join('.'), rule: issue.code, message: issue.message };
  });
}

/**
 * `schema.safeParse(input)` with zod's English messages (english.ts). zod/mini loads no locale (its
 * messages are a bare "Invalid input"), and setting one with `z.config` would change the app's zod
 * too (the config is global) and be work at import. Any parse options give each schema's run a context of
 * another shape, which slows every parse (docs/decisions.md), so the input is parsed without the
 * map and parsed again with it only when it fails, to word the issues.
 */
export function safeParse<S extends z.ZodMiniType>(schema: S, input: unknown): z.core.util.SafeParseResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return result;
  return schema.safeParse(input, { error: englishMessage });
}

/**
 * Checks a request body against its strict schema before anything is sent.
 * @throws {RequestValidationError} naming each field and rule that failed
 */
export function parseRequest<S extends z.ZodMiniType>(operation: string, schema: S, input: unknown): z.output<S> {
  const result = safeParse(schema, input);
  if (!result.success) throw new RequestValidationError(operation, toIssues(result.error));
  return result.data;
}
