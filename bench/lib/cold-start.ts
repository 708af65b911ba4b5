import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './stats.js';

/**
 * How a command loads its module. Its floor is the same kind of load of a package that does
 * nothing: any ES module costs a process something to resolve and load (about 1.15x bare node on
 * Node 22), and the goals are judged over that floor, as ../shared/bench/cold-peers.mjs judges
 * them.
 */
export type ModuleSystem = 'esm' | 'cjs';

/** A node command line whose start-up is measured, run from `cwd` (where its imports resolve). */
export interface ColdCommand {
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly system: ModuleSystem;
}

/** Printed by every measured process as its last act: its own CPU time since it started. */
const REPORT_CPU = 'process.stdout.write(JSON.stringify(process.cpuUsage()))';
const BARE = ['-e', REPORT_CPU];

// The floor packages, created in each command's node_modules. The ESM one is byte for byte the one
// the outside script creates, under the same name, so that both measure the same floor.
const FLOORS = {
  esm: { name: 'payorch-bench-empty', manifest: { type: 'module', exports: './index.js' }, source: 'export const nothing = 0;\n' },
  cjs: { name: 'payorch-bench-empty-cjs', manifest: { exports: './index.js' }, source: 'exports.nothing = 0;\n' },
} as const;

function ensureFloor(system: ModuleSystem, cwd: string): void {
  const floor = FLOORS[system];
  const folder = join(cwd, 'node_modules', floor.name);
  if (existsSync(join(folder, 'package.json'))) return;
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: floor.name, version: '1.0.0', ...floor.manifest }));
  writeFileSync(join(folder, 'index.js'), floor.source);
}

export interface Run {
  readonly wall: number;
  /** User + system CPU milliseconds of the process, start-up included, read just before it exits. */
  readonly cpu: number;
}

function run(args: readonly string[], cwd: string): Run {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const wall = performance.now() - start;
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${cwd}: ${child.stderr.toString()}`);
  const { user, system } = JSON.parse(child.stdout.toString()) as { user: number; system: number };
  return { wall, cpu: (user + system) / 1000 };
}

/** One run of a command, with the bare node and the floor started next to it. */
export interface Slot {
  readonly measured: Run;
  readonly bare: Run;
  readonly floor: Run;
}

/**
 * Each command's slots: every run of a command is started next to a bare node and to its floor,
 * in an order that alternates, so that a load that comes and goes on a shared machine weighs on
 * all three. One warm-up pass fills the file system cache. Every process prints its CPU time at
 * the end.
 */
export function coldStarts(commands: readonly ColdCommand[], runs: number): Map<string, Slot[]> {
  const results = new Map<string, Slot[]>(commands.map((command) => [command.name, []]));
  for (const command of commands) {
    ensureFloor(command.system, command.cwd);
    run(command.args, command.cwd);
    run(floorArgs(command.system), command.cwd);
  }
  run(BARE, process.cwd());
  for (let round = 0; round < runs; round++) {
    for (let c = 0; c < commands.length; c++) {
      const command = commands[(round + c) % commands.length]!;
      const bareFirst = (round + c) % 2 === 0;
      const first = run(bareFirst ? BARE : command.args, command.cwd);
      const floor = run(floorArgs(command.system), command.cwd);
      const last = run(bareFirst ? command.args : BARE, command.cwd);
      results.get(command.name)!.push(bareFirst ? { bare: first, floor, measured: last } : { measured: first, floor, bare: last });
    }
  }
  return results;
}

/** What each slot's command added to its bare node, in wall or CPU milliseconds. */
export const addedToBare = (slots: readonly Slot[], time: keyof Run): number[] => slots.map((slot) => slot.measured[time] - slot.bare[time]);

export const esmImport = (specifier: string): readonly string[] => ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)}); ${REPORT_CPU}`];
export const cjsRequire = (specifier: string): readonly string[] => ['-e', `require(${JSON.stringify(specifier)}); ${REPORT_CPU}`];
export const esmScript = (code: string): readonly string[] => ['--input-type=module', '-e', `${code}; ${REPORT_CPU}`];
const floorArgs = (system: ModuleSystem): readonly string[] => (system === 'esm' ? esmImport(FLOORS.esm.name) : cjsRequire(FLOORS.cjs.name));


/**
 * How many times a baseline's start-up a command takes: medians over the slots of measured /
 * baseline. Wall time is what the goals are judged on, as the outside script judges them; the
 * process's own CPU time is shown beside it, since on a loaded machine wall time stretches while
 * CPU time does not.
 */
export interface ColdRatio {
  readonly wall: number;
  readonly cpu: number;
}

function ratioTo(slots: readonly Slot[], baseline: 'bare' | 'floor'): ColdRatio {
  const wall = median(slots.map((slot) => slot.measured.wall / slot[baseline].wall));
  const cpu = median(slots.map((slot) => slot.measured.cpu / slot[baseline].cpu));
  return { wall, cpu };
}

export const overBare = (slots: readonly Slot[]): ColdRatio => ratioTo(slots, 'bare');
/** Over the floor: the way the cold-start goals are judged. */
export const overFloor = (slots: readonly Slot[]): ColdRatio => ratioTo(slots, 'floor');
