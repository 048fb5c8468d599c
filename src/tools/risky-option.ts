/**
 * The shape of a program's table of options that write files or run code
 * (see risky-options.ts, which reads a command line against the tables,
 * and file-tool-risks.ts): what makes each one risky, and where in a
 * command line it counts.
 */

/** One option (`--output`, `-o`), positional word (`foreach`) or `+` word (less's `+cmd`) that writes a file or runs code. */
export interface RiskyOption {
  names: readonly string[];
  why: string;
  /** Its value is a path it writes (checked against the protected paths too). */
  writes?: true;
}

export interface ProgramRisks {
  /** Options dangerous wherever they appear after the program. */
  any?: readonly RiskyOption[];
  /** Options dangerous before the subcommand (git's global options). */
  global?: readonly RiskyOption[];
  /** Per subcommand: its dangerous options or words, or why the subcommand itself is dangerous. */
  subcommands?: Readonly<Record<string, readonly RiskyOption[] | string>>;
  /** Global options taking a separate value, to find the subcommand past them. */
  globalValues?: ReadonlySet<string>;
  /** Long options may be written with one dash (`-exec`, as Go's flag package allows). */
  singleDashLong?: true;
  /** `NAME=value` arguments override the program's variables (make: `SHELL=...`). */
  assignments?: string;
  /** Looks into an argument that is a program of its own (sed scripts), or at the mode the arguments pick (tar c). */
  script?: (args: readonly (string | undefined)[]) => string | undefined;
  /**
   * An operand the program writes (`uniq IN OUT`, `xxd IN OUT`): the
   * operand's place among the operands, the options whose value is the
   * next word (skipped when counting), and why.
   */
  output?: { operand: number; valued: ReadonlySet<string>; why: string };
}

export const option = (why: string, ...names: string[]): RiskyOption => ({ names, why });
export const writer = (why: string, ...names: string[]): RiskyOption => ({ names, why, writes: true });
