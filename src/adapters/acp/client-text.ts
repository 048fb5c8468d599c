/** How text written for the client is shaped: code blocks, quotes, labels. */

/** A markdown code block whose fence is longer than any backtick run inside. */
export function fenced(text: string, info = ''): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text.replace(/\n$/, '')}\n${fence}`;
}

/** The text as a markdown quote, cut after `maxChars`. */
export function quote(text: string, maxChars = 800): string {
  const clipped = text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
  return clipped
    .trim()
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** What precedes the words and tool titles of an agent: nothing for the primary, `[name] ` for anyone else. */
export function agentLabel(agent: string, primary: string): string {
  return agent === primary ? '' : `[${agent}] `;
}
