import type { ElicitAnswer, ElicitField, ElicitFn, ElicitForm, ElicitValue } from '../../mcp/elicitation-form';
import { valueProblem } from '../../mcp/elicitation-form';
import type { ElicitUrlFn, UrlAnswer } from '../../mcp/elicitation-url';
import type { ApprovalScreen } from './cli-approval';
import type { CliIO } from './cli-io';
import { openInBrowser } from './open-browser';
import type { Style } from './terminal-style';

/** Times a question is asked again after an answer that does not fit, before the form counts as cancelled. */
const TRIES = 3;

type Screen = Pick<ApprovalScreen, 'pause' | 'resume'>;

/**
 * The terminal's answers to MCP servers' questions (forms and pages), asked
 * one at a time: a question that comes while another is on the screen
 * waits for it (or is cancelled when its request is), so two servers'
 * questions never interleave on the one line the person types.
 */
export function terminalQuestions(io: CliIO, style: Style, screen?: Screen): { elicit: ElicitFn; elicitUrl: ElicitUrlFn } {
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(signal: AbortSignal, cancelled: T, ask: () => Promise<T>): Promise<T> => {
    const mine = turn.then(() => (signal.aborted ? cancelled : ask()));
    turn = mine.catch(() => undefined);
    return mine;
  };
  const elicit = terminalElicit(io, style, screen);
  const elicitUrl = terminalElicitUrl(io, style, screen);
  return {
    elicit: (form, signal) => inTurn(signal, { action: 'cancel' }, () => elicit(form, signal)),
    elicitUrl: (request, signal) => inTurn(signal, { action: 'cancel' }, () => elicitUrl(request, signal)),
  };
}

/**
 * Asks an MCP server's form on the terminal: the server's name and message,
 * whether to answer, then one question at a time (its default on an empty
 * line, an optional one left out), each answer checked before the next.
 * End of input, a cancel or three answers in a row that do not fit cancel
 * the form. Texts come from the form already made safe to show.
 */
function terminalElicit(io: CliIO, style: Style, screen?: Screen): ElicitFn {
  return async (form, signal) => {
    screen?.pause();
    try {
      return await askForm(io, style, form, signal);
    } finally {
      screen?.resume();
    }
  };
}

/**
 * Offers a page an MCP server asks the person to open: its domain first,
 * then the server's message and the whole URL; [y] opens it in the default
 * browser (where that fails, or on Windows for a URL its shell would read,
 * the URL is there to copy). Nothing is fetched before the person says yes.
 */
function terminalElicitUrl(io: CliIO, style: Style, screen?: Screen): ElicitUrlFn {
  return async (request, signal) => {
    screen?.pause();
    try {
      io.stderr.write(`${style.yellow('?')} ${style.bold(`MCP server "${request.server}" asks you to open a page on ${request.domain}`)}\n`);
      for (const line of request.message.split('\n')) io.stderr.write(`  ${line}\n`);
      io.stderr.write(`  ${style.dim(request.url)}\n  ${style.dim(`[y] open it in your browser · [n] decline · [c] cancel`)} `);
      const choice = await io.readLine(signal);
      const typed = (choice ?? '').trim().toLowerCase();
      if (choice === undefined || signal.aborted || typed === 'c' || typed === 'cancel') return said(io, style, { action: 'cancel' });
      if (typed !== 'y' && typed !== 'yes') return said(io, style, { action: 'decline' });
      const shellRisk = process.platform === 'win32' && /[&|<>^"%]/.test(request.url);
      const opened = shellRisk ? { ok: false as const, why: 'this URL is not passed to the Windows shell' } : await openInBrowser(request.url, io.env);
      if (!opened.ok) io.stderr.write(`  ${style.yellow(`Could not open a browser (${opened.why}); open the URL above yourself.`)}\n`);
      return said(io, style, { action: 'accept' }, opened.ok ? 'opened' : 'accepted');
    } finally {
      screen?.resume();
    }
  };
}

async function askForm(io: CliIO, style: Style, form: ElicitForm, signal: AbortSignal): Promise<ElicitAnswer> {
  io.stderr.write(`${style.yellow('?')} ${style.bold(`MCP server "${form.server}" asks:`)}\n`);
  for (const line of form.message.split('\n')) io.stderr.write(`  ${line}\n`);
  const count = form.fields.length === 1 ? 'its question' : `its ${form.fields.length} questions`;
  io.stderr.write(`  ${style.dim(`[y] answer ${count} · [n] decline · [c] cancel`)} `);
  const choice = await io.readLine(signal);
  const typed = (choice ?? '').trim().toLowerCase();
  if (choice === undefined || signal.aborted || typed === 'c' || typed === 'cancel') return said(io, style, { action: 'cancel' });
  if (typed !== 'y' && typed !== 'yes') return said(io, style, { action: 'decline' });
  const content: Record<string, ElicitValue> = {};
  for (const field of form.fields) {
    const value = await askField(io, style, field, signal);
    if (value === 'cancel') return said(io, style, { action: 'cancel' });
    if (value !== undefined) content[field.name] = value;
  }
  return said(io, style, { action: 'accept', content });
}

/** One question, asked until it fits (or TRIES times); undefined: an optional question left out. */
async function askField(io: CliIO, style: Style, field: ElicitField, signal: AbortSignal): Promise<ElicitValue | undefined | 'cancel'> {
  io.stderr.write(`  ${style.bold(field.title)}${field.description ? ` ${style.dim(`— ${field.description}`)}` : ''}\n`);
  if (field.kind === 'choice' || field.kind === 'choices') {
    field.options.forEach((option, i) => io.stderr.write(`    ${i + 1}) ${option.label}\n`));
  }
  for (let tries = 0; tries < TRIES; tries++) {
    io.stderr.write(`  ${style.dim(hintOf(field))} `);
    const line = await io.readLine(signal);
    if (line === undefined || signal.aborted) return 'cancel';
    const text = line.trim();
    if (text === '') {
      if (field.default !== undefined) return field.default;
      if (!field.required) return undefined;
      io.stderr.write(`  ${style.red('an answer is required')}\n`);
      continue;
    }
    const value = parse(field, text);
    const problem = value === undefined ? 'not understood' : valueProblem(field, value);
    if (problem === undefined) return value;
    io.stderr.write(`  ${style.red(problem)}\n`);
  }
  return 'cancel';
}

function said<T extends ElicitAnswer | UrlAnswer>(io: CliIO, style: Style, answer: T, accepted = 'answered'): T {
  const words = { accept: style.green(accepted), decline: style.red('declined'), cancel: style.yellow('cancelled') };
  io.stderr.write(`  ${words[answer.action]}\n`);
  return answer;
}

/** What to type, with the default an empty line takes. */
function hintOf(field: ElicitField): string {
  const kind = {
    text: field.kind === 'text' && field.format ? `text, ${field.format}` : 'text',
    number: field.kind === 'number' && field.integer ? 'a whole number' : 'a number',
    boolean: 'y/n',
    choice: 'the number of one choice',
    choices: 'numbers of choices, separated by commas',
  }[field.kind];
  const range = field.kind === 'number' && (field.minimum !== undefined || field.maximum !== undefined) ? ` ${field.minimum ?? '…'}–${field.maximum ?? '…'}` : '';
  const empty = field.default !== undefined ? `, empty for ${shownDefault(field)}` : field.required ? '' : ', empty to skip';
  return `(${kind}${range}${empty})`;
}

function shownDefault(field: ElicitField): string {
  switch (field.kind) {
    case 'boolean':
      return field.default ? 'yes' : 'no';
    case 'choice':
      return field.options.find((option) => option.value === field.default)?.label ?? String(field.default);
    case 'choices':
      return (field.default ?? []).map((value) => field.options.find((option) => option.value === value)?.label ?? value).join(', ');
    default:
      return String(field.default);
  }
}

/** The typed text as the field's value; undefined when it cannot be one. */
function parse(field: ElicitField, text: string): ElicitValue | undefined {
  switch (field.kind) {
    case 'text':
      return text;
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? value : undefined;
    }
    case 'boolean':
      return /^(y|yes|true)$/i.test(text) ? true : /^(n|no|false)$/i.test(text) ? false : undefined;
    case 'choice':
      return field.options[Number(text) - 1]?.value;
    case 'choices': {
      const picked = text.split(',').map((part) => field.options[Number(part.trim()) - 1]?.value);
      return picked.every((value): value is string => value !== undefined) ? picked : undefined;
    }
  }
}
