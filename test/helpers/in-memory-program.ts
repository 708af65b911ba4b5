import { join } from 'node:path';
import ts from 'typescript';

/**
 * The diagnostics of `files` (path to source, none on disk), compiled with the repository's
 * tsconfig.json as one program: what a guide's code blocks are checked with. Files they import
 * resolve from each path as on disk.
 */
export function diagnosticsOf(root: string, files: ReadonlyMap<string, string>): ts.Diagnostic[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (path) => files.get(path) ?? readFile(path);
  host.fileExists = (path) => files.has(path) || fileExists(path);
  const program = ts.createProgram([...files.keys()], { ...options, noEmit: true }, host);
  // Only these files: what they import is typed as far as they use it, and checked by `npm run typecheck`.
  return [...files.keys()].flatMap((name) => {
    const file = program.getSourceFile(name);
    return file === undefined ? [] : [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  });
}
