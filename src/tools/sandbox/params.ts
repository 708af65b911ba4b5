import * as z from 'zod/mini';
import type { Endpoint } from '../../internal/endpoint.js';
import { safeParse, toIssues } from '../../internal/validation.js';
import type { ValidationIssue } from '../../errors/error.js';
import { errorFailure } from './answers.js';
import type { Failure } from './answers.js';

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: Failure };

/**
 * The request's parameters as the endpoint's schema expects them: the JSON body of a POST, the
 * query string of a GET. An empty body is `undefined`, as the SDK sends a call without parameters.
 */
export async function readParams(request: Request, endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>): Promise<Read<unknown>> {
  if (endpoint.method === 'GET') return { ok: true, value: fromQuery(new URL(request.url).searchParams, endpoint.params) };
  const text = await request.text();
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, failure: errorFailure(400, 'Invalid JSON', 'The request body is not valid JSON') };
  }
}

/**
 * A query string as an object (`{}` when there is none; `validate` lets that stand for no
 * parameters). Every query value is text, so a value is turned into a number where the field's
 * schema takes a number and not the text (`page=2`).
 */
function fromQuery(query: URLSearchParams, schema: z.ZodMiniType): Record<string, unknown> {
  const shape = schema instanceof z.ZodMiniObject ? (schema.shape as Record<string, z.ZodMiniType | undefined>) : {};
  const params: Record<string, unknown> = {};
  for (const [name, text] of query) {
    const asNumber = Number(text);
    params[name] = text.trim() !== '' && Number.isFinite(asNumber) && wantsNumber(shape[name], text) ? asNumber : text;
  }
  return params;
}

/** True when the field refuses `text` because it takes a number there. */
function wantsNumber(field: z.ZodMiniType | undefined, text: string): boolean {
  const result = field === undefined ? undefined : safeParse(field, text);
  return result?.success === false && result.error.issues.some((issue) => issue.code === 'invalid_type' && issue.expected === 'number');
}

/** Parses with the endpoint's strict schema; `{}` counts as no parameters for an endpoint that takes none. */
export function validate<S extends z.ZodMiniType>(schema: S, raw: unknown): { ok: true; value: z.output<S> } | { ok: false; issues: ValidationIssue[] } {
  let result = safeParse(schema, raw);
  if (!result.success && isEmptyObject(raw)) {
    const none = safeParse(schema, undefined);
    if (none.success) result = none;
  }
  return result.success ? { ok: true, value: result.data } : { ok: false, issues: toIssues(result.error) };
}

/** One readable message per failed rule, as the `messages` list of spec 7.2 holds them. */
export function issueMessages(issues: readonly ValidationIssue[]): string[] {
  return issues.map(({ field, message }) => {
    // zod's own wording for a wrong or missing type: "Invalid input: expected number, received string".
    const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
    if (field === '') return type === null ? message : 'the request body has the wrong shape for this endpoint';
    if (type === null) return `${field} ${message}`;
    const [, expected = '', received] = type;
    return received === 'undefined' ? `${field} is required` : `${field} must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`;
  });
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
