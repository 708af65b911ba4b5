import { readdirSync, readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * The functions that took the most CPU in the `node --cpu-prof` profiles of a folder: self time
 * (in the function itself) and total time (with what it called), as shares of all samples.
 */
export function summarizeProfiles(folder: string, top = 25): string {
  const lines: string[] = [];
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(`${folder}/${file}`, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const name = (node: ProfileNode) => {
      const { functionName, url, lineNumber } = node.callFrame;
      return `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    };
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let all = 0;
    profile.samples.forEach((id, index) => {
      const delta = profile.timeDeltas[index] ?? 0;
      all += delta;
      const leaf = byId.get(id)!;
      self.set(name(leaf), (self.get(name(leaf)) ?? 0) + delta);
      const seen = new Set<string>();
      for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
        const key = name(byId.get(current)!);
        if (seen.has(key)) continue;
        seen.add(key);
        total.set(key, (total.get(key) ?? 0) + delta);
      }
    });
    const rank = (map: Map<string, number>) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([key, time]) => `  ${((100 * time) / all).toFixed(1).padStart(5)}%  ${key}`);
    lines.push(`${folder}/${file}`, ' self time:', ...rank(self), ' total time:', ...rank(total), '');
  }
  return lines.join('\n');
}
