import { writeFile } from 'node:fs/promises';
import { openApiDocument } from '../openapi/document.js';
import { COMMON_OPTIONS, EXIT_OK, OperationError, parse } from './io.js';
import type { Command, Io } from './io.js';

const USAGE = `Usage: payorch openapi [--out <file>]

Prints an OpenAPI 3.1 document of the Provider and Dealer APIs and the four callbacks (as
webhooks) as the spec defines them, generated from payorch's endpoint table and schemas:
requests strict, answers and callbacks with the spec's types (what payorch tolerates besides
is said in prose), the spec's limits, the signing headers as security schemes, the error
bodies of section 7, and a note wherever the spec says "not shown". The output is JSON
(--json changes nothing).

Options:
  --out <file>   write it to a file instead of standard output
  -h, --help     show this text

Example:
  payorch openapi --out openapi.json`;

/** Made by the entry point, which knows the package version. */
export function openapiCommand(version: string): Command {
  const run = async (args: readonly string[], io: Io): Promise<number> => {
    const { values } = parse(args, { ...COMMON_OPTIONS, out: { type: 'string' } });
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return EXIT_OK;
    }
    const text = `${JSON.stringify(openApiDocument({ version }), null, 2)}\n`;
    if (values.out === undefined) {
      io.stdout.write(text);
      return EXIT_OK;
    }
    try {
      await writeFile(values.out, text);
    } catch (error) {
      throw new OperationError(`cannot write ${values.out}: ${error instanceof Error ? error.message : String(error)}`);
    }
    io.stderr.write(`Wrote ${values.out}\n`);
    return EXIT_OK;
  };
  return { usage: USAGE, run };
}
