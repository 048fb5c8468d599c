/**
 * A command's arguments: free text with a few `--name value` (or
 * `--name=value`) options anywhere in it. Only the options a command knows
 * are taken out; anything else stays in the text.
 */
export interface CommandArgs {
  /** The arguments without the options (line breaks kept). */
  text: string;
  options: Record<string, string>;
  flags: Set<string>;
}

export function parseCommandArgs(args: string, known: { options?: readonly string[]; flags?: readonly string[] }): CommandArgs {
  const options: Record<string, string> = {};
  const flags = new Set<string>();
  const valued = new Set(known.options ?? []);
  const switches = new Set(known.flags ?? []);
  const pattern = /(^|\s)--([a-z][a-z-]*)(?:=(\S+)|\s+(?!--)(\S+))?(?=\s|$)/g;
  const text = args.replace(pattern, (whole, lead: string, name: string, joined?: string, spaced?: string) => {
    if (switches.has(name) && joined === undefined) {
      flags.add(name);
      return spaced === undefined ? lead : `${lead}${spaced}`;
    }
    const value = joined ?? spaced;
    if (!valued.has(name) || value === undefined) return whole;
    options[name] = value;
    return lead;
  });
  return { text: text.replace(/[ \t]{2,}/g, ' ').trim(), options, flags };
}

/** The first word of `text` and the rest, e.g. a feature reference ahead of the command's text. */
export function firstWord(text: string): { word: string; rest: string } {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(text.trim());
  return match ? { word: match[1]!, rest: match[2]! } : { word: '', rest: '' };
}
