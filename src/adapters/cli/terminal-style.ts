/** ANSI styling that switches itself off for pipes, NO_COLOR and dumb terminals. */
export interface Style {
  /** Whether escapes are written at all (off for pipes, NO_COLOR, TERM=dumb). */
  readonly color: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function styleFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Style {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const enabled = forced || (stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb');
  const wrap = (open: number, close: number) => (text: string) => (enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text);
  return {
    color: enabled,
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
