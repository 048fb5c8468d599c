/**
 * Spec Kit's checklist gate before /speckit.implement: every checklist of
 * the feature (checklists/*.md) is counted; when any has unchecked items
 * the implementation does not start unless the person confirms (asked
 * where a front door can ask, or `--proceed` in the command), as Spec
 * Kit's implement command stops and asks.
 */
import type { CommandRun } from './command-run';
import { SPECKIT_AGENT } from './command-run';
import { entriesOf, readText } from './workspace-text';

export interface ChecklistCount {
  file: string;
  total: number;
  checked: number;
}

/** How long the person has to answer whether to go on. */
const CONFIRM_TIMEOUT_MS = 10 * 60_000;

export async function countChecklists(run: CommandRun, folder: string): Promise<ChecklistCount[]> {
  const counts: ChecklistCount[] = [];
  for (const entry of await entriesOf(run.input.workspace, folder)) {
    if (entry.type !== 'file' || !entry.name.endsWith('.md')) continue;
    const text = (await readText(run.input.workspace, `${folder}/${entry.name}`)) ?? '';
    const items = text.match(/^\s*[-*+]\s+\[[ xX]\]/gm) ?? [];
    counts.push({ file: entry.name, total: items.length, checked: items.filter((item) => /\[[xX]\]/.test(item)).length });
  }
  return counts;
}

/** The table Spec Kit shows: checklist, total, checked, unchecked, status. */
export function checklistTable(counts: readonly ChecklistCount[]): string {
  const rows = counts.map((c) => `| ${c.file} | ${c.total} | ${c.checked} | ${c.total - c.checked} | ${c.checked === c.total ? '✓ PASS' : '✗ FAIL'} |`);
  return ['| Checklist | Total | Checked | Unchecked | Status |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * Whether implementation may start: yes when every checklist is complete
 * or the person said so; otherwise the message that stops the command, and
 * whether the person declined (rather than nobody answering).
 */
export async function checklistGate(run: CommandRun, folder: string, proceed: boolean): Promise<{ go: true; note: string } | { go: false; message: string; declined: boolean }> {
  const counts = await countChecklists(run, folder);
  if (counts.length === 0) return { go: true, note: '' };
  const table = checklistTable(counts);
  const incomplete = counts.filter((c) => c.checked < c.total);
  if (incomplete.length === 0) return { go: true, note: `\n\n${table}` };
  const list = incomplete.map((c) => `${c.file} ${c.checked}/${c.total}`).join(', ');
  if (proceed) return { go: true, note: `\n\n${table}\n\nGoing on with unchecked checklist items (--proceed).` };
  run.say(table);
  const answer = await run.input.session.permissions.approve(
    {
      tool: 'speckit.implement',
      callId: `speckit-checklists-${Date.now()}`,
      agent: SPECKIT_AGENT,
      category: 'write',
      title: `Some checklists have unchecked items (${list}). Proceed with implementation anyway?`,
      paths: [],
      alwaysScope: 'this implementation run',
    },
    run.input.signal,
    CONFIRM_TIMEOUT_MS,
  );
  if (answer === 'allowed') return { go: true, note: `\n\n${table}\n\nGoing on with unchecked checklist items: you confirmed.` };
  const why = answer === 'unavailable' ? 'nobody can be asked here' : answer === 'timeout' ? 'no answer came' : 'you said no';
  return {
    go: false,
    declined: answer === 'denied',
    message: `Some checklists have unchecked items (${list}), and ${why}, so implementation did not start. Complete them, or run /speckit.implement --proceed to go on anyway.`,
  };
}
