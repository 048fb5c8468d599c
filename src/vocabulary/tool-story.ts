/**
 * What a tool call did, in the words a person reads on its card: "Read
 * greeting.txt", "Edited greeting.txt" with "+1 −1", "Ran npm test",
 * "Searched for "foo"" with "3 files", "Fetched example.com". The tool's
 * own name stays on the card's details, one click away (in the terminal,
 * under `--verbose`). Plain functions of a call's name, arguments and
 * result: the chat view, `@crow` in VS Code's own chat and the CLI's
 * `crow run` all word calls through them.
 */
import { oneLine } from './text';

/**
 * A call in a person's words: `doing` while it runs ("Editing"), `done`
 * once it ended ("Edited"), `target` what it acted on
 * ("greeting.txt", a workspace path when `file`); `ask` is what a person
 * refused ("Not allowed: edit greeting.txt").
 */
export interface CallWords {
  doing: string;
  done: string;
  ask: string;
  target: string;
  file?: boolean;
}

/** What the words read of a call's result (a ToolResult has it; this layer does not know tools). */
interface ResultFacts {
  status: string;
  metadata: { extra: Record<string, unknown>; approval?: string };
}

type Args = Record<string, unknown>;

/** Verbs per tool: what it is doing, what it did, and what a person would refuse ("Not allowed: edit …"). */
interface Verbs {
  doing: string;
  done: string;
  ask: string;
  /** The target is a workspace path the card may open. */
  file?: boolean;
  /** The target from the arguments; the call's summary when absent. */
  target?(args: Args, summary: string): string;
}

const quoted = (text: unknown): string => `"${oneLine(String(text ?? ''), 60)}"`;

const TOOLS: Record<string, Verbs> = {
  read_file: { doing: 'Reading', done: 'Read', ask: 'read', file: true },
  list_directory: { doing: 'Listing', done: 'Listed', ask: 'list', target: (args, summary) => folder(String(args['path'] ?? summary)) },
  edit_file: { doing: 'Editing', done: 'Edited', ask: 'edit', file: true },
  write_file: { doing: 'Writing', done: 'Wrote', ask: 'write', file: true },
  bash: { doing: 'Running', done: 'Ran', ask: 'run' },
  grep: { doing: 'Searching for', done: 'Searched for', ask: 'search for', target: (args) => quoted(args['pattern']) },
  glob: { doing: 'Looking for files', done: 'Looked for files', ask: 'look for files', target: (args) => quoted(args['pattern']) },
  web_fetch: { doing: 'Fetching', done: 'Fetched', ask: 'fetch', target: (args, summary) => host(String(args['url'] ?? summary)) },
  web_search: { doing: 'Searching the web for', done: 'Searched the web for', ask: 'search the web for', target: (args) => quoted(args['query']) },
  todo_write: { doing: 'Updating the plan', done: 'Updated the plan', ask: 'update the plan', target: () => '' },
  todo_read: { doing: 'Reading the plan', done: 'Read the plan', ask: 'read the plan', target: () => '' },
  think: { doing: 'Thinking it through', done: 'Thought it through', ask: 'think', target: () => '' },
  task: { doing: 'Handing over to', done: 'Handed over to', ask: 'hand over to', target: (args) => String(args['agent'] ?? 'a helper') },
  request_approval: { doing: 'Asking you', done: 'Asked you', ask: 'ask you', target: (args, summary) => quoted(args['question'] ?? summary) },
};

/** The words of a call as it starts; an unknown tool (an MCP server's) is "Used <tool>". */
export function callWords(tool: string, args: unknown, summary: string): CallWords {
  const verbs = TOOLS[tool];
  const given = typeof args === 'object' && args !== null ? (args as Args) : {};
  if (!verbs) return { doing: `Using ${tool}`, done: `Used ${tool}`, ask: `use ${tool}`, target: summary };
  const target = verbs.target ? verbs.target(given, summary) : summary;
  return { doing: verbs.doing, done: verbs.done, ask: verbs.ask, target, ...(verbs.file && target !== '' ? { file: true } : {}) };
}

/** What a finished call found or changed, short: "+1 −1", "3 files", "no matches", "12 entries"; undefined when the card's words say it all. */
export function callOutcome(tool: string, result: ResultFacts): string | undefined {
  if (result.status !== 'success') return undefined;
  const extra = result.metadata.extra;
  const number = (key: string): number | undefined => (typeof extra[key] === 'number' ? (extra[key] as number) : undefined);
  switch (tool) {
    case 'edit_file':
    case 'write_file': {
      const added = number('linesAdded');
      const removed = number('linesRemoved');
      const counts = added !== undefined && removed !== undefined ? `+${added} −${removed}` : undefined;
      return extra['created'] === true ? ['new file', counts].filter(Boolean).join(' ') : counts;
    }
    case 'grep': {
      const files = number('files');
      return files === undefined ? undefined : files === 0 ? 'no matches' : plural(files, 'file');
    }
    case 'glob': {
      const files = number('files');
      return files === undefined ? undefined : files === 0 ? 'none found' : plural(files, 'file');
    }
    case 'list_directory': {
      const entries = number('entries');
      return entries === undefined ? undefined : plural(entries, 'entry', 'entries');
    }
    case 'web_search': {
      const results = number('results');
      return results === undefined ? undefined : plural(results, 'result');
    }
    default:
      return undefined;
  }
}

/** Who refused a call the policy gate denied: the person (now, or by an earlier "never"), or the settings. */
export function deniedBy(result: Pick<ResultFacts, 'metadata'>): 'person' | 'settings' | undefined {
  if (result.metadata.extra['permission'] !== 'denied') return undefined;
  const answer = result.metadata.approval;
  return answer === 'reject_once' || answer === 'reject_always' ? 'person' : 'settings';
}

/** A URL as its host ("example.com"); the text itself when it is no URL. */
function host(url: string): string {
  try {
    return new URL(url).host.replace(/^www\./, '') || url;
  } catch {
    return oneLine(url, 60);
  }
}

/** A folder as one reads it: "src/", the workspace as "the workspace". */
function folder(path: string): string {
  const trimmed = path.trim();
  if (trimmed === '' || trimmed === '.' || trimmed === './') return 'the workspace';
  return trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
