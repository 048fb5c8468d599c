/**
 * What a tool call did, in the words a person reads on its card: "Read
 * greeting.txt", "Edited greeting.txt" with "+1 −1", "Ran npm test",
 * "Searched for "foo"" with "3 files", "Fetched example.com". The tool's
 * own name stays on the card's details, one click away (in the terminal,
 * under `--verbose`). Plain functions of a call's name, arguments and
 * result: the chat view, `@crow` in VS Code's own chat and the CLI's
 * `crow run` all word calls through them.
 *
 * One wording for every door (see translate.ts): VS Code passes its `t` to
 * show the words in the display language; the CLI passes nothing and reads
 * the English written here.
 */
import { oneLine } from './text';
import { english, type Translate } from './translate';

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

/** The verbs of the tools Crow knows, in `t`'s words (a function, so each door's language is the one in force). */
function tools(t: Translate): Record<string, Verbs> {
  return {
    read_file: { doing: t('Reading'), done: t('Read'), ask: t('read'), file: true },
    list_directory: { doing: t('Listing'), done: t('Listed'), ask: t('list'), target: (args, summary) => folder(String(args['path'] ?? summary), t) },
    edit_file: { doing: t('Editing'), done: t('Edited'), ask: t('edit'), file: true },
    write_file: { doing: t('Writing'), done: t('Wrote'), ask: t('write'), file: true },
    bash: { doing: t('Running'), done: t('Ran'), ask: t('run') },
    grep: { doing: t('Searching for'), done: t('Searched for'), ask: t('search for'), target: (args) => quoted(args['pattern']) },
    glob: { doing: t('Looking for files'), done: t('Looked for files'), ask: t('look for files'), target: (args) => quoted(args['pattern']) },
    web_fetch: { doing: t('Fetching'), done: t('Fetched'), ask: t('fetch'), target: (args, summary) => host(String(args['url'] ?? summary)) },
    web_search: { doing: t('Searching the web for'), done: t('Searched the web for'), ask: t('search the web for'), target: (args) => quoted(args['query']) },
    todo_write: { doing: t('Updating the plan'), done: t('Updated the plan'), ask: t('update the plan'), target: () => '' },
    todo_read: { doing: t('Reading the plan'), done: t('Read the plan'), ask: t('read the plan'), target: () => '' },
    think: { doing: t('Thinking it through'), done: t('Thought it through'), ask: t('think'), target: () => '' },
    task: { doing: t('Handing over to'), done: t('Handed over to'), ask: t('hand over to'), target: (args) => String(args['agent'] ?? t('a helper')) },
    request_approval: { doing: t('Asking you'), done: t('Asked you'), ask: t('ask you'), target: (args, summary) => quoted(args['question'] ?? summary) },
  };
}

/** The words of a call as it starts; an unknown tool (an MCP server's) is "Used <tool>". `t` translates them (VS Code). */
export function callWords(tool: string, args: unknown, summary: string, t: Translate = english): CallWords {
  const known = tools(t);
  const verbs = Object.hasOwn(known, tool) ? known[tool] : undefined;
  const given = typeof args === 'object' && args !== null ? (args as Args) : {};
  if (!verbs) return { doing: t('Using {0}', tool), done: t('Used {0}', tool), ask: t('use {0}', tool), target: summary };
  const target = verbs.target ? verbs.target(given, summary) : summary;
  return { doing: verbs.doing, done: verbs.done, ask: verbs.ask, target, ...(verbs.file && target !== '' ? { file: true } : {}) };
}

/** What a finished call found or changed, short: "+1 −1", "3 files", "no matches", "12 entries"; undefined when the card's words say it all. */
export function callOutcome(tool: string, result: ResultFacts, t: Translate = english): string | undefined {
  if (result.status !== 'success') return undefined;
  const extra = result.metadata.extra ?? {};
  const number = (key: string): number | undefined => (typeof extra[key] === 'number' ? (extra[key] as number) : undefined);
  switch (tool) {
    case 'edit_file':
    case 'write_file': {
      const added = number('linesAdded');
      const removed = number('linesRemoved');
      const counts = added !== undefined && removed !== undefined ? `+${added} −${removed}` : undefined;
      return extra['created'] === true ? [t('new file'), counts].filter(Boolean).join(' ') : counts;
    }
    case 'grep': {
      const files = number('files');
      return files === undefined ? undefined : files === 0 ? t('no matches') : files === 1 ? t('1 file') : t('{0} files', files);
    }
    case 'glob': {
      const files = number('files');
      return files === undefined ? undefined : files === 0 ? t('none found') : files === 1 ? t('1 file') : t('{0} files', files);
    }
    case 'list_directory': {
      const entries = number('entries');
      return entries === undefined ? undefined : entries === 1 ? t('1 entry') : t('{0} entries', entries);
    }
    case 'web_search': {
      const results = number('results');
      return results === undefined ? undefined : results === 1 ? t('1 result') : t('{0} results', results);
    }
    default:
      return undefined;
  }
}

/** Who refused a call the policy gate denied: the person (now, or by an earlier "never"), or the settings. */
export function deniedBy(result: Pick<ResultFacts, 'metadata'>): 'person' | 'settings' | undefined {
  if (result.metadata.extra?.['permission'] !== 'denied') return undefined;
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
function folder(path: string, t: Translate): string {
  const trimmed = path.trim();
  if (trimmed === '' || trimmed === '.' || trimmed === './') return t('the workspace');
  return trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}
