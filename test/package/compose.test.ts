import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { requireBuilt } from '../helpers/dist.js';
import { describe, expect, expectTypeOf, test } from 'vitest';
import * as z from 'zod';
import type { Welcome } from '../../src/index.js';
import type { Welcome as WelcomeSchema } from '../../src/schemas/index.js';

// payorch/schemas exports zod/mini schemas (zod's core, bundled into dist/): an app that uses
// classic zod composes them, parses with them and infers their types, from either build.
const root = join(import.meta.dirname, '..', '..');
const builds = [
  ['ESM', () => import(pathToFileURL(join(root, 'dist/schemas/index.js')).href)],
  ['CommonJS', () => Promise.resolve(createRequire(import.meta.url)(join(root, 'dist/schemas/index.cjs')))],
] as const;

const welcome = { success: true, message: null, provider: { id: '1', name: 'Compose', is_active: true }, new_field: 'kept' };

requireBuilt('dist/schemas/index.js', 'dist/schemas/index.cjs');

describe.each(builds)('the %s build', (_label, load) => {
  test('an app’s classic zod composes Welcome, and parse, safeParse and the refusal work across both', async () => {
    const sdk = (await load()) as { Welcome: z.core.$ZodType & { parse(input: unknown): unknown; safeParse(input: unknown): { success: boolean } } };
    const Order = z.object({ id: z.string(), answer: sdk.Welcome });
    const parsed = Order.parse({ id: 'o-1', answer: welcome }) as { answer: Record<string, unknown> };
    // payorch's tolerance travels with the schema: a numeric string converted, null read as absent, unknown fields kept.
    expect(parsed.answer).toMatchObject({ provider: { id: 1, name: 'Compose' }, new_field: 'kept' });
    expect(parsed.answer['message']).toBeUndefined();
    expect(z.array(sdk.Welcome).parse([welcome])).toHaveLength(1);
    expect(sdk.Welcome.safeParse(welcome).success).toBe(true);
    const refused = Order.safeParse({ id: 'o-1', answer: { success: true } });
    expect(refused.success).toBe(false);
    expect(refused.error).toBeInstanceOf(z.ZodError);
    expect(z.prettifyError(refused.error!)).toContain('answer.provider');
  });
});

describe.each(builds)('the %s build, read by the app’s own zod', (_label, load) => {
  // The bundled zod builds the schemas; the app's zod walks them (zod 4's defs, not its classes):
  // the JSON Schema of what each accepts, its open enums (custom types) left open.
  test('z.toJSONSchema gives every payorch/schemas schema the JSON Schema of what it accepts', async () => {
    const sdk = (await load()) as Record<string, z.core.$ZodType>;
    const schemas = Object.entries(sdk).filter(([, value]) => typeof value === 'object' && '_zod' in value);
    expect(schemas.length, 'payorch/schemas exports zod schemas').toBeGreaterThan(0);
    for (const [name, schema] of schemas) expect(() => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), name).not.toThrow();
    const validate = new Ajv2020({ strict: false }).compile(z.toJSONSchema(sdk['Welcome']!, { io: 'input', unrepresentable: 'any' }));
    // What Welcome parses (a numeric string id, a null message, an unknown field) its JSON Schema accepts, and not an answer without its provider.
    expect(validate(welcome), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ success: true })).toBe(false);
  });
});

test('z.infer of a composed payorch/schemas schema is the type payorch exports', () => {
  type Order = z.ZodObject<{ answer: typeof WelcomeSchema }>;
  expectTypeOf<z.infer<Order>['answer']>().toEqualTypeOf<Welcome>();
  expectTypeOf<z.infer<typeof WelcomeSchema>>().toEqualTypeOf<Welcome>();
});
