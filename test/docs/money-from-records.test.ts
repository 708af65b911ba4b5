import { describe, expect, test } from 'vitest';
import { exampleTags, filesUnder, markdownBlocks, readSource } from '../../scripts/snippet-sources.js';
import type { Snippet } from '../../scripts/snippet-sources.js';

/*
 * A callback's hash covers tracking_code, status and timestamp only (spec 5.3): anyone who can
 * replay a genuine callback can change its user_id and amount. So no snippet a reader may copy
 * (a code block of README.md or docs/, an @example in src/, a file of examples/) moves money to
 * the callback's user_id, and none moves the callback's amount unless the snippet compares that
 * amount with the merchant's own record (its order row, its ceiling, the card's status).
 */

/** The code of each `@example`: its fenced block, or the tag's text when it has no fence. */
const exampleBlocks = (file: string): Snippet[] => exampleTags(file).map(({ source, line, text, fenced }) => fenced ?? { source, line, code: text });

/** Every snippet a reader may copy. */
export function snippets(): Snippet[] {
  return [
    ...['README.md', ...filesUnder('docs', ['.md'])].flatMap((file) => markdownBlocks(file, ['ts', 'typescript', 'js', 'javascript', 'sql'])),
    ...filesUnder('src', ['.ts']).flatMap(exampleBlocks),
    ...filesUnder('examples', ['.ts', '.js', '.mjs']).map((file) => ({ source: file, line: 1, code: readSource(file) })),
  ];
}

const STRING = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
/** The code without its strings' contents and its comments: what names a value. */
const bare = (code: string): string => code.replace(STRING, (literal) => `${literal[0] ?? ''}${literal.at(-1) ?? ''}`).replace(/\/\/.*$/gm, '');
const COMPARE = String.raw`(?:===|!==|==|!=|<=|>=|<|>)`;
/** Helpers of examples/webhooks/orders.ts and the SDK that compare a callback with a record. */
const CONFIRMERS = /\b(?:orderMatches|confirmOrder|confirmWithCardStatus)\s*\(/;

/** The statements of `code` that move money with a user or an amount read from the callback's payload. */
export function paidFromPayload(code: string): string[] {
  const plain = bare(code);
  // Names a destructuring or an assignment gave to the payload's user_id and amount.
  const aliases = new Map<string, 'user_id' | 'amount'>();
  for (const [, fields = ''] of plain.matchAll(/\{([^{}]*)\}\s*=\s*(?:[\w.]*\.)?payload\b/g)) {
    for (const entry of fields.split(',')) {
      const [field = '', local = field] = entry.split(':').map((part) => part.trim());
      if (field === 'user_id' || field === 'amount') aliases.set(local, field);
    }
  }
  for (const [, local = '', field] of plain.matchAll(/\b(?:const|let|var)\s+(\w+)\s*=\s*[\w.]*\bpayload\.(user_id|amount)\b/g)) {
    aliases.set(local, field === 'user_id' ? 'user_id' : 'amount');
  }
  const references = (text: string, field: 'user_id' | 'amount'): string[] => [
    String.raw`\bpayload\.${field}\b`,
    ...[...aliases].filter(([, each]) => each === field).map(([local]) => String.raw`(?<![\w.$])${local}\b(?!\s*:)`),
  ].filter((pattern) => new RegExp(pattern).test(text));
  // An amount compared with anything in the snippet (its order row, a ceiling), or handed to a confirmer.
  const amountCompared =
    CONFIRMERS.test(plain) ||
    references(plain, 'amount').some((reference) => new RegExp(String.raw`${reference}\s*\)?\s*${COMPARE}(?!>)|${COMPARE}\s*(?:[\w.]+\()?\s*${reference}`).test(plain));

  // Statements: lines joined until their brackets close.
  const statements: { raw: string; plain: string }[] = [];
  const rawLines = code.split('\n');
  const plainLines = plain.split('\n');
  for (let index = 0; index < rawLines.length; index++) {
    let raw = rawLines[index] ?? '';
    let text = plainLines[index] ?? '';
    const depth = (each: string) => (each.match(/[([{]/g) ?? []).length - (each.match(/[)\]}]/g) ?? []).length;
    while (depth(text) > 0 && index + 1 < rawLines.length && !/\{\s*$/.test(text)) {
      index++;
      raw += `\n${rawLines[index] ?? ''}`;
      text += `\n${plainLines[index] ?? ''}`;
    }
    statements.push({ raw, plain: text });
  }
  return statements
    .filter(({ plain: text }) => !/^\s*(?:declare\b|import\b|export\s+(?:async\s+)?function\b|(?:async\s+)?function\b)/.test(text))
    .filter(({ raw, plain: text }) => {
      const strings = (raw.match(STRING) ?? []).join(' ');
      return (/\b(?:update|insert)\b/i.test(strings) && /balance|credit|refund|ledger|amount/i.test(strings)) || /\w*(?:credit|refund)\w*\s*\(/i.test(text);
    })
    .filter(({ plain: text }) => {
      const wholePayload = /\bpayload\s*[,)]/.test(text);
      const user = references(text, 'user_id').length > 0;
      const amount = references(text, 'amount').length > 0;
      return wholePayload || user || (amount && !amountCompared);
    })
    .map(({ raw }) => raw.trim());
}

describe('no snippet pays the callback its own user or amount', () => {
  test('every code block, @example and example credits, debits and refunds the user of the merchant\'s record', () => {
    const all = snippets();
    // The finder reads each kind of source it promises to.
    for (const kind of ['README.md', 'docs/', 'src/', 'examples/']) expect(all.some(({ source }) => source.startsWith(kind)), kind).toBe(true);
    const found = all.flatMap(({ source, line, code }) => paidFromPayload(code).map((statement) => `${source}:${String(line)}: ${statement}`));
    expect(found).toEqual([]);
  });

  test('the check refuses the forms that pay the callback, and passes those that pay the record', () => {
    const refused = [
      "receiver.on('deposit.completed', async (callback, { client }) => {\n  await client.query('UPDATE balances SET amount = amount + $1 WHERE user_id = $2', [callback.payload.amount, callback.payload.user_id]);\n});",
      "receiver.on('withdrawal.completed', async (callback, { db, statements }) => {\n  const { user_id: user, amount } = callback.payload;\n  statements.push(db.prepare('UPDATE balances SET amount = amount - ? WHERE user_id = ?').bind(amount, user));\n});",
      "receiver.on('withdrawal.rejected', async (callback, { key }) => {\n  await payouts.refund({ user: callback.payload.user_id, amount: callback.payload.amount }, { idempotencyKey: callbackKeyString(key) });\n});",
      "receiver.on('deposit.completed', async (callback, { client }) => credit(client, callback.payload));",
      // The user from the record, an amount compared with nothing.
      "receiver.on('deposit.completed', async (callback) => {\n  const order = await orderOf(callback.payload.tracking_code);\n  await creditBalance(order.userId, callback.payload.amount);\n});",
      "const user = callback.payload.user_id;\nstorage.sql.exec(\n  'INSERT INTO ledger (user_id, amount) VALUES (?, ?)',\n  user,\n  1,\n);",
    ];
    for (const code of refused) expect(paidFromPayload(code), code).not.toEqual([]);
    const passed = [
      "receiver.on('withdrawal.rejected', async (callback) => {\n  const order = await orderOf(callback.payload.tracking_code);\n  await refund(order.userId, order.amount);\n});",
      "confirm: async (callback) => callback.kind === 'deposit' && order.user_id === callback.payload.user_id && callback.payload.amount <= Number(order.max_amount),\nreceiver.on('deposit.completed', async (callback, { client }) => {\n  await client.query('UPDATE balances SET amount = balances.amount + $2 FROM orders WHERE orders.tracking_code = $1 AND balances.user_id = orders.user_id', [callback.payload.tracking_code, callback.payload.amount]);\n});",
      "console.log('credit', order.userId, callback.payload.amount);",
    ];
    for (const code of passed) expect(paidFromPayload(code), code).toEqual([]);
  });
});
