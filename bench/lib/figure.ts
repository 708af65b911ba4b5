/**
 * The contract between `bench/main.ts` and one figure script. Each figure runs in a fresh
 * process (no JIT or heap state shared between figures) and sends back one `FigureReport`.
 */

export interface FigureOptions {
  /** Fewer rounds and smaller sizes: proves the harness runs, the numbers are rough. */
  readonly quick: boolean;
}

/** One line of the summary table at the top of RESULTS.md. */
export interface Headline {
  readonly figure: string;
  readonly payorch: string;
  readonly baseline: string;
  /** payorch divided by baseline, in the direction where lower is better. */
  readonly ratio?: number | undefined;
  /** The goal, for example `< 1.15x`, and whether this run met it. */
  readonly target?: { readonly text: string; readonly met: boolean } | undefined;
}

export interface FigureReport {
  readonly title: string;
  /** Markdown of the figure's section, without its heading. */
  readonly markdown: string;
  readonly headlines: readonly Headline[];
}

export type FigureMessage = { readonly type: 'report'; readonly report: FigureReport } | { readonly type: 'error'; readonly message: string };

/** What a figure reports when the code it measures is not on this branch yet. */
export function notAvailable(title: string, missing: string): FigureReport {
  return { title, markdown: `not available yet: ${missing}.\n`, headlines: [{ figure: title, payorch: 'not available yet', baseline: '' }] };
}

/** Runs a figure script's body and hands its report to the parent process. */
export function runFigure(measure: (options: FigureOptions) => Promise<FigureReport> | FigureReport): void {
  const options: FigureOptions = { quick: process.argv.includes('--quick') };
  const send = (message: FigureMessage) => {
    if (process.send === undefined) {
      console.log(JSON.stringify(message, null, 2));
      process.exit(message.type === 'report' ? 0 : 1);
    }
    process.send(message, () => process.exit(message.type === 'report' ? 0 : 1));
  };
  Promise.resolve()
    .then(() => measure(options))
    .then(
    (report) => {
      send({ type: 'report', report });
    },
    (error: unknown) => {
      send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    },
  );
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n') + '\n';
}
