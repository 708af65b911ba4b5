/** One server or browser the tests start (scripts/test-servers.mjs). */
export interface Tool {
  readonly name: string;
  /** Which tests need it. */
  readonly needed: string;
  /** The variable that gives it instead: a URL (PostgreSQL, Redis) or a program's path. */
  readonly variable: string;
  readonly example: string;
  /** Debian's package and Homebrew's formula (or `--cask name`). */
  readonly apt: string;
  readonly aptRecommends?: boolean;
  readonly brew: string;
  /** The Docker image the tests run where Docker answers and nothing else is here. */
  readonly docker?: string;
  /** The Debian service the package starts by itself. */
  readonly service?: string;
  /** The program (for PostgreSQL the directory of initdb and pg_ctl) on this machine, if any. */
  find(): string | undefined;
}

export declare const TOOLS: {
  readonly postgres: Tool & { readonly docker: string };
  readonly pgbouncer: Tool;
  readonly redis: Tool & { readonly docker: string };
  readonly chromium: Tool;
};
export declare function given(tool: Tool): string | undefined;
export declare function dockerWorks(): boolean;
export declare function packageManager(): 'apt' | 'brew' | 'none';
export declare function installCommand(tools: readonly Tool[]): string;
export declare function missingMessage(tool: Tool, purpose?: string): string;
