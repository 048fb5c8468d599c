/**
 * A tool call's two lines in the terminal, in the words the chat's cards
 * use (src/vocabulary/tool-story.ts, src/transcript/words.ts): "● Editing greeting.txt" as it
 * starts, then "✓ Edited greeting.txt +1 −1 3ms" or
 * "✗ Ran npm test · failed, exit 254 2.1s · npm error …" as it ends. The
 * tool's own name follows the first line under --verbose.
 */
import { plainLine } from '../../engine/output-tail';
import { oneLine } from '../../vocabulary/text';
import { callOutcome, deniedBy, type CallWords } from '../../vocabulary/tool-story';
import type { ToolKind, ToolResult } from '../../tools/tool';
import type { Style } from './terminal-style';
import { helperHeadline, refusedWords } from '../../transcript/words';
import type { TranscriptEntry } from '../../transcript/entries';
import { duration } from '../../telemetry/readable';

/** "● Reading notes.txt", and " (read_file)" under --verbose. */
export function startLine(words: CallWords, tool: string, s: Style, verbose: boolean): string {
  return `${s.cyan('●')} ${s.bold(words.doing)}${words.target ? ` ${words.target}` : ''}${verbose ? ` ${s.dim(`(${tool})`)}` : ''}`;
}

/** Up to how much of a failed call's error its ✗ line shows (enough for any refusal and its fix; not a whole dump). */
const ERROR_CHARS = 2_000;


/** The line a finished call (not a cancelled one) ends with; `time` is already styled. */
export function endLine(title: string, words: CallWords, tool: string, kind: ToolKind | undefined, result: ToolResult, time: string, s: Style): string {
  const target = words.target ? ` ${words.target}` : '';
  if (result.status !== 'success') {
    const denied = deniedBy(result);
    // Whole: a refusal ends with what to do about it, which a cut would lose.
    // A person's "no" in the transcript's words; a refusal by the settings keeps the gate's, which say how to change them.
    const why = denied === 'person' ? refusedWords('person') : oneLine(result.error ?? '', ERROR_CHARS);
    if (denied) return `  ${s.yellow('⊘')} ${title} · ${why} ${time}`;
    return `  ${s.red('✗')} ${title}${why ? `: ${why}` : ''} ${time}`;
  }
  const exitCode = result.metadata.extra['exitCode'];
  // A command that ran but exited non-zero did not do what was asked: marked as a failure, with its exit code.
  const failed = kind === 'execute' && typeof exitCode === 'number' && exitCode !== 0;
  const outcome = callOutcome(tool, result);
  const state = failed ? ` · ${s.red(`failed, exit ${exitCode as number}`)}` : '';
  const detail = kind === 'execute' ? lastLine(result.output) : '';
  return `  ${failed ? s.red('✗') : s.green('✓')} ${words.done}${target}${outcome ? ` ${outcome}` : ''}${state} ${time}${detail ? s.dim(` · ${detail}`) : ''}`;
}

/** A command's last line of output as a terminal shows it (its own exit note left out). */
function lastLine(output: string): string {
  const last = output.split('\n').map(plainLine).filter((line) => line.trim() !== '' && !/^\[(exit code|killed)/.test(line)).at(-1);
  return last ? oneLine(last, 160) : '';
}

/** The call's own time, and apart from it how long it waited for the person's answer: "1.2s (waited 8.0s for approval)". */
export function toolTime(entry: Extract<TranscriptEntry, { type: 'tool_end' }>): string {
  const { durationMs, waitedMs } = entry.result.metadata;
  const own = duration(durationMs ?? entry.durationMs);
  return waitedMs !== undefined ? `${own} (waited ${duration(waitedMs)} for approval)` : own;
}

/** A helper's start, step or end, under the task call that runs it. */
export function helperLine(entry: Extract<TranscriptEntry, { type: 'subagent' }>, s: Style): string {
  const headline = helperHeadline(entry.subagent, entry.state, entry.status);
  if (entry.state === 'started') return s.cyan(`→ ${headline} ${s.dim(oneLine(entry.text, 160))}`);
  if (entry.state === 'progress') return s.dim(`  ${headline}: ${oneLine(entry.text, 160)}`);
  return (entry.status === 'completed' ? s.green : s.yellow)(`← ${headline}: ${oneLine(entry.text, 160)}`);
}
