import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ENDPOINTS } from '../../src/tools/sandbox/control.js';

// The controls are read from the list `GET /__sandbox` serves, so that a control or a body field
// added there and not to the guide fails here.
const guide = readFileSync(join(import.meta.dirname, '../../docs/sandbox.md'), 'utf8');
const controls = ENDPOINTS.map((line) => {
  const [method = '', path = '', ...rest] = line.split(/\s+/);
  const fields = [...(/^\{[^:]*?\}(?: or \{[^}]*\})?/.exec(rest.join(' '))?.[0] ?? '').matchAll(/"(\w+)"/g)].map(([, field]) => field ?? '');
  return { control: `${method} ${path}`, fields };
});

test('the sandbox serves controls with body fields, so the check below reads something', () => {
  expect(controls.length).toBeGreaterThan(5);
  expect(controls.find(({ control }) => control === 'POST /__sandbox/settle')?.fields).toContain('failDeliveries');
});

test.each(controls)('docs/sandbox.md lists the control $control with each of its body fields', ({ control, fields }) => {
  const rows = guide.split('\n').filter((line) => line.startsWith('|') && line.includes(`\`${control}\``));
  expect(rows, `a row of the controls table for ${control}`).toHaveLength(1);
  for (const field of fields) expect(rows[0], `${control}: "${field}"`).toContain(`"${field}"`);
});
