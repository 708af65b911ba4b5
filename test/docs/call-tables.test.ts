import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';
import type { ApiEndpoint } from '../../src/tools/registry/index.js';
import { table } from '../helpers/markdown.js';

/*
 * Every table in a guide that lists calls is held to the endpoint table: each row's spec path,
 * call and hash, method, answer type or retry is what the endpoint row says, and the table lists
 * each endpoint of its API once. The call is the operation name (`manual.startDeposit`) on the
 * client: a new endpoint fails here until every guide lists it.
 */

const root = join(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

/** Rows that list a call no endpoint row is: the same endpoint, called another way. */
const OTHER_CALLS: Readonly<Record<string, string>> = {
  'dealer.transactions.iterate': 'dealer.transactions.list',
  'dealer.transactions.readNew': 'dealer.transactions.list',
  'dealer.transfers.waitFor': 'dealer.transfers.getStatus',
};

/** The texts in backticks of a cell. */
const quoted = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map(([, text]) => text ?? '');

/** The calls of a cell: `provider.thirdParty.bank.startDeposit(body)`, `.crypto`, `.wallet` names three. */
function callsOf(cell: string): string[] {
  const [first = '', ...others] = quoted(cell).map((text) => text.replace(/\(.*$/, ''));
  // The family is the segment the others replace: the channel of `thirdParty.<channel>.…`, else the one before the method.
  const family = /^(.*\.thirdParty\.)(\w+)(\..+)$/.exec(first) ?? /^(.*\.)(\w+)(\.\w+)$/.exec(first);
  return [first, ...others.map((other) => (family === null ? other : `${family[1]}${other.slice(1)}${family[3]}`))];
}

/** The spec paths of a cell: `/third-party/{bank,crypto,wallet}/gateways` names three, in that order. */
function pathsOf(cell: string): string[] {
  const path = cell.split(/[ ,](?![^{]*\})/)[0] ?? '';
  const braces = /\{([^}]+)\}/.exec(path);
  return braces === null ? [path] : (braces[1] ?? '').split(',').map((each) => path.replace(braces[0], each));
}

const byCall = new Map(API_ENDPOINTS.map((row) => [`${row.api}.${row.endpoint.operation}`, row]));

/** The endpoint row a table row lists, by its call, with the spec path it names. */
function endpointsOf(pathCell: string, callCell: string): { call: string; path: string; row: ApiEndpoint | undefined }[] {
  const calls = callsOf(callCell);
  const paths = pathsOf(pathCell);
  expect(paths, `${pathCell}: one path per call`).toHaveLength(calls.length);
  return calls.map((call, index) => ({ call, path: paths[index] ?? '', row: byCall.get(OTHER_CALLS[call] ?? call) }));
}

// The schema an endpoint answers with is exported under the name of its type.
const schemaNames = new Map<unknown, string>();
for (const folder of ['src/provider', 'src/dealer']) {
  for (const file of readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).filter((each) => each.endsWith('.ts'))) {
    const module = (await import(join(root, folder, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) if (!schemaNames.has(value)) schemaNames.set(value, name);
  }
}

interface Guide {
  readonly file: string;
  readonly api: ApiEndpoint['api'];
  readonly header: readonly string[];
  /** What a row's other cells must say of its endpoint, by column. */
  readonly checks: Readonly<Record<number, (row: ApiEndpoint, cell: string, call: string) => void>>;
}

const hash = (row: ApiEndpoint, cell: string): void => {
  expect(cell.split(/[ ,;(]/)[0]).toBe(row.endpoint.hash);
};
const method = (row: ApiEndpoint, cell: string): void => {
  expect(cell.split(/[ ,;(]/)[0]).toBe(row.endpoint.method);
};
const retried = (row: ApiEndpoint, cell: string): void => {
  expect(cell.startsWith('yes')).toBe(row.endpoint.resendable);
};
const answer = (row: ApiEndpoint, cell: string, call: string): void => {
  // Another way to call an endpoint answers its own way (`iterate` yields the records of each page).
  if (OTHER_CALLS[call] === undefined) expect(quoted(cell)).toContain(schemaNames.get(row.endpoint.response));
};

const guides: Guide[] = [
  { file: 'docs/provider.md', api: 'provider', header: ['Spec endpoint', 'Call', 'Hash', 'Sent again after an ambiguous failure'], checks: { 2: hash, 3: retried } },
  { file: 'docs/dealer.md', api: 'dealer', header: ['Spec endpoint', 'Call', 'Method', 'Answer', 'Retried'], checks: { 2: method, 3: answer, 4: retried } },
];

describe.each(guides)('the call table of $file ($api API)', ({ file, api, header, checks }) => {
  const rows = table(read(file), header).flatMap((cells) => endpointsOf(cells[0] ?? '', cells[1] ?? '').map((listed) => ({ ...listed, cells })));

  test('lists each endpoint of its API once, by the name of its operation', () => {
    const listed = rows.filter(({ call }) => OTHER_CALLS[call] === undefined).map(({ call }) => call);
    expect(listed.sort(), `the calls of ${file}'s table (${header.join(' | ')}) are not the ${api} endpoints of the registry: add a row for each missing call, remove each that no endpoint is`).toEqual(API_ENDPOINTS.filter((row) => row.api === api).map((row) => `${api}.${row.endpoint.operation}`).sort());
  });

  test.each(rows.map((listed) => [listed.call, listed] as const))('the row of %s says what its endpoint is', (call, { path, row, cells }) => {
    if (row === undefined) throw new Error(`${file} lists ${call}, which no endpoint is`);
    // A row with a whole path (`fullPath`) lists it whole.
    expect(path).toBe(row.endpoint.path ?? row.endpoint.fullPath);
    for (const [column, check] of Object.entries(checks)) check(row, cells[Number(column)] ?? '', call);
  });
});
