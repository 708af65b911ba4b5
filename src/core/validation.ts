import type { z } from 'zod';
import { RequestValidationError } from '../errors/request-validation-error.js';
import type { ValidationIssue } from '../errors/request-validation-error.js';

/** Flattens zod issues into field + rule + message, the form every payorch error carries. */
export function toIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return { field: issue.keys.join(', '), rule: issue.code, message: 'is not a field of this request' };
    }
    return { field: issue.path.map(String).join('.'), rule: issue.code, message: issue.message };
  });
}

/**
 * Checks a request body against its strict schema before anything is sent.
 * @throws {RequestValidationError} naming each field and rule that failed
 */
export function parseRequest<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new RequestValidationError(operation, toIssues(result.error));
  return result.data;
}
