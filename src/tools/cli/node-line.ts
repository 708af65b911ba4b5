// payorch supports the Node lines from the floor of package.json `engines` up. Bun and Deno carry a
// Node version of their own (process.versions.node) that says nothing about them: only Node is
// checked. The executable checks once (src/tools/cli/index.ts); main() says it on stderr, and
// `payorch doctor` reports it as a failed check instead.

/** What is wrong with the runtime, and what to do about it. */
export interface RuntimeProblem {
  readonly problem: string;
  readonly fix: string;
}

/** Whether this Node is below `engines` (`>=22.12`); undefined when it is not, or when this is not Node. */
export function unsupportedNode(versions: NodeJS.ProcessVersions, engines: string): RuntimeProblem | undefined {
  if ('bun' in versions || 'deno' in versions) return undefined;
  const floor = /(\d+)\.(\d+)/.exec(engines);
  if (floor === null) return undefined;
  const [major = 0, minor = 0] = versions.node.split('.').map(Number);
  const [floorMajor, floorMinor] = [Number(floor[1]), Number(floor[2])];
  if (major > floorMajor || (major === floorMajor && minor >= floorMinor)) return undefined;
  return {
    problem: `Node ${versions.node} is not supported: payorch needs Node ${floorMajor}.${floorMinor} or later`,
    fix: 'install a supported Node (nvm install 22), or run payorch with Bun or Deno',
  };
}
