/**
 * A parser for Spec Kit's tasks.md: `- [ ] T001 [P] [US1] Description with
 * file path` lines grouped under `## Phase N: Title` headings, with
 * checkpoints and a dependencies section. It reads what people and models
 * actually write (bold ids, a colon after the id, tags in any order, `[x]`
 * or `[X]`, older `Phase 3.1` numbering, CRLF) and rejects what cannot be
 * executed, naming the line.
 */
import { markdownLines, type MarkdownLine } from './markdown-lines';

export interface SpecTask {
  /** As written, upper-cased: "T001". */
  id: string;
  done: boolean;
  /** `[P]`: may run at the same time as the [P] tasks around it. */
  parallel: boolean;
  /** The user story tag, e.g. "US1". */
  story?: string;
  /** Other bracketed tags after the id, e.g. "Setup". */
  tags: string[];
  /** The text after the id and tags. */
  description: string;
  /** Paths named in the description, e.g. "src/models/user.py". */
  files: string[];
  /** Task ids this one waits for, from its own text and the dependencies section. */
  dependsOn: string[];
  /** 1-based line in the file. */
  line: number;
  /** Index into `phases`. */
  phase: number;
  /** The `###` subheading the task sits under, if any ("Tests for User Story 1"). */
  group?: string;
}

export interface TaskPhase {
  index: number;
  /** "3", "3.1", or "N" as written after "Phase"; absent for a heading without one. */
  number?: string;
  /** The heading without "Phase N:", e.g. "User Story 1 - Browse albums (Priority: P1)". */
  title: string;
  line: number;
  /** The user story the phase delivers, from "User Story 1" in its title. */
  story?: string;
  /** "P1" from "(Priority: P1)". */
  priority?: string;
  purpose?: string;
  goal?: string;
  independentTest?: string;
  checkpoint?: string;
}

export interface TasksProblem {
  line: number;
  message: string;
}

export interface ParsedTasks {
  /** The `# ` heading's text, e.g. "Tasks: Photo albums". */
  title?: string;
  phases: TaskPhase[];
  /** In file order. */
  tasks: SpecTask[];
  /** The lines of the dependencies section, for whoever reads the plan. */
  dependencyNotes: TasksProblem[];
  /** Things worth fixing that do not stop execution (an unknown dependency). */
  warnings: TasksProblem[];
}

/** A tasks.md that cannot be executed as written; every problem names its line. */
export class TasksFileError extends Error {
  override name = 'TasksFileError';
  constructor(
    readonly file: string,
    readonly problems: TasksProblem[],
  ) {
    const lines = problems.map((p) => `  ${file}:${p.line}: ${p.message}`).join('\n');
    super(
      `${file} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${lines}\n` +
        'Each task is one line: "- [ ] T001 [P] [US1] Description with file path". Fix these lines (or run /speckit.tasks again).',
    );
  }
}

const CHECKBOX = /^(\s*)(?:[-*+]|\d+[.)])\s+\[([^\]]{0,3})\]\s*(.*)$/;
const TASK_ID = /^(\*\*|__)?(T\d+|TXXX|T\?+)(?:\1)?[:.)]?(?=\s|\[|$)\s*(.*)$/i;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
// \u2013 and \u2014 are the en and em dash, written as escapes: the CLI bundle stays ASCII, which Node reads faster.
const PHASE_HEADING = /^Phase\s+(\d+(?:\.\d+)*|[A-Z])\b\s*[:.\-\u2013\u2014]?\s*(.*)$/i;
const PHASE_FIELD = /^\*\*(Checkpoint|Purpose|Goal|Independent Test)\s*:?\*\*\s*:?\s*(.*)$/i;
const DEPENDENCY_SECTION = /dependenc|execution order/i;
const DEPENDS_IN_TEXT = /\b(?:depends?\s+on|depend\s+on|after|requires?|require|blocked\s+by|needs?|waits?\s+for|wait\s+for)\s+(T\d+(?:\s*(?:,|and|&|\/)\s*T\d+)*)/gi;
const BEFORE_IN_TEXT = /\b(T\d+)\s+(?:before|blocks)\s+(T\d+(?:\s*(?:,|and|&|\/)\s*T\d+)*)/gi;

/** Parses tasks.md; throws TasksFileError when a task line is broken or there are no tasks. */
export function parseTasks(text: string, file = 'tasks.md'): ParsedTasks {
  const state = new ParseState();
  for (const line of markdownLines(text)) state.read(line);
  return state.finish(file);
}

interface Section {
  heading?: string;
  line: number;
  phase: Omit<TaskPhase, 'index'>;
  /** A "Phase N" heading: a phase even before it holds a task. */
  named: boolean;
  tasks: SpecTask[];
  /** Top-level checkboxes without a task id: errors once the section is a phase. */
  bare: number[];
  group?: string;
}

class ParseState {
  title: string | undefined;
  private readonly sections: Section[] = [];
  private current: Section | undefined;
  private inDependencies = false;
  private readonly notes: TasksProblem[] = [];
  private readonly errors: TasksProblem[] = [];
  private readonly noteDependencies: { line: number; task: string; on: string[] }[] = [];
  private lastTask: SpecTask | undefined;

  read(line: MarkdownLine): void {
    if (line.inCode || line.inComment) return;
    const heading = HEADING.exec(line.text);
    if (heading) return this.heading(heading[1]!.length, heading[2]!, line.number);
    if (this.inDependencies) return this.dependencyNote(line);
    const box = CHECKBOX.exec(line.text);
    if (box) return this.checkbox(box[1]!.replace(/\t/g, '    ').length, box[2]!, box[3]!, line.number);
    if (line.text.trim() !== '' && !/^\s/.test(line.text)) this.lastTask = undefined;
    const field = PHASE_FIELD.exec(line.text.trim());
    if (field && this.current) setField(this.current.phase, field[1]!, field[2]!.trim());
  }

  private heading(level: number, text: string, line: number): void {
    this.lastTask = undefined;
    if (level === 1) {
      this.title ??= text;
      this.current = undefined;
      this.inDependencies = false;
      return;
    }
    const phase = PHASE_HEADING.exec(text);
    if (phase || level === 2) {
      this.inDependencies = !phase && DEPENDENCY_SECTION.test(text);
      this.current = this.inDependencies ? undefined : this.openSection(text, line, phase);
      return;
    }
    if (this.current) this.current.group = text;
  }

  private openSection(text: string, line: number, phase: RegExpExecArray | null): Section {
    const title = (phase ? phase[2]! : text).trim() || text;
    const story = /\bUser Story\s+(\d+)\b/i.exec(title);
    const priority = /\bPriority:\s*(P\d+)\b/i.exec(title);
    const section: Section = {
      heading: text,
      line,
      phase: {
        ...(phase ? { number: phase[1]! } : {}),
        title,
        line,
        ...(story ? { story: `US${story[1]}` } : {}),
        ...(priority ? { priority: priority[1]!.toUpperCase() } : {}),
      },
      named: phase !== null,
      tasks: [],
      bare: [],
    };
    this.sections.push(section);
    return section;
  }

  private checkbox(indent: number, mark: string, rest: string, line: number): void {
    const id = TASK_ID.exec(rest);
    if (!id) {
      // Indented checkboxes under a task are its steps; elsewhere a checkbox must be a task.
      if (indent === 0 || !this.lastTask) this.section(line).bare.push(line);
      return;
    }
    if (mark !== ' ' && mark !== 'x' && mark !== 'X') {
      this.errors.push({ line, message: `the checkbox "[${mark}]" must be "[ ]" (to do) or "[X]" (done).` });
      return;
    }
    const task = this.task(id[2]!.toUpperCase(), mark !== ' ', id[3]!, line);
    if (!task) return;
    const section = this.section(line);
    task.phase = -1;
    if (section.group !== undefined) task.group = section.group;
    section.tasks.push(task);
    this.lastTask = task;
  }

  /** The section a line belongs to: the current one, or an unnamed one for tasks above any heading. */
  private section(line: number): Section {
    this.current ??= {
      line,
      phase: { title: this.title ?? 'Tasks', line },
      named: false,
      tasks: [],
      bare: [],
    };
    if (!this.sections.includes(this.current)) this.sections.push(this.current);
    return this.current;
  }

  private task(id: string, done: boolean, rest: string, line: number): SpecTask | undefined {
    if (!/^T\d+$/.test(id)) {
      this.errors.push({ line, message: `"${id}" is a placeholder left from the template; give the task a number (e.g. T0${String(line).padStart(2, '0')}).` });
      return undefined;
    }
    const tags = readTags(rest);
    if ('problem' in tags) {
      this.errors.push({ line, message: `${id}: ${tags.problem}` });
      return undefined;
    }
    const description = tags.rest.trim();
    if (description === '') {
      this.errors.push({ line, message: `${id} has no description: say what to do and in which file.` });
      return undefined;
    }
    return {
      id,
      done,
      parallel: tags.parallel,
      ...(tags.story !== undefined ? { story: tags.story } : {}),
      tags: tags.others,
      description,
      files: filesIn(description),
      dependsOn: idsAfter(DEPENDS_IN_TEXT, description),
      line,
      phase: -1,
    };
  }

  private dependencyNote(line: MarkdownLine): void {
    const text = line.text.trim();
    if (text === '' || /^-{3,}$/.test(text)) return;
    this.notes.push({ line: line.number, message: text });
    // "T006, T007 depend on T005", "T008 and T010 need T009": every task named just before the verb waits for those after it.
    let from = 0;
    for (const match of text.matchAll(DEPENDS_IN_TEXT)) {
      const clause = /(T\d+(?:\s*(?:,|and|&|\/)\s*T\d+)*)\W*$/.exec(text.slice(from, match.index));
      for (const task of clause?.[1]!.match(/T\d+/g) ?? []) this.noteDependencies.push({ line: line.number, task, on: match[1]!.match(/T\d+/g)! });
      from = match.index + match[0].length;
    }
    for (const match of text.matchAll(BEFORE_IN_TEXT)) {
      for (const later of match[2]!.match(/T\d+/g)!) this.noteDependencies.push({ line: line.number, task: later, on: [match[1]!] });
    }
  }

  finish(file: string): ParsedTasks {
    const phases: TaskPhase[] = [];
    const tasks: SpecTask[] = [];
    for (const section of this.sections) {
      if (section.tasks.length === 0 && !section.named) continue;
      const index = phases.length;
      phases.push({ index, ...section.phase });
      for (const task of section.tasks) tasks.push({ ...task, phase: index });
      for (const line of section.bare) {
        this.errors.push({ line, message: 'a checkbox without a task id: write "- [ ] T012 Description" (ids T001, T002, … in order).' });
      }
    }
    this.checkIds(tasks);
    if (tasks.length === 0 && this.errors.length === 0) {
      const first = this.sections.flatMap((s) => s.bare)[0];
      this.errors.push({ line: first ?? 1, message: 'no tasks found: each task is a line "- [ ] T001 Description with file path".' });
    }
    if (this.errors.length > 0) throw new TasksFileError(file, this.errors.sort((a, b) => a.line - b.line));
    const warnings = this.linkDependencies(tasks);
    return {
      ...(this.title !== undefined ? { title: this.title } : {}),
      phases,
      tasks,
      dependencyNotes: this.notes,
      warnings,
    };
  }

  private checkIds(tasks: SpecTask[]): void {
    const seen = new Map<string, number>();
    for (const task of tasks) {
      const first = seen.get(task.id);
      if (first !== undefined) this.errors.push({ line: task.line, message: `${task.id} is used twice (also on line ${first}); give each task its own id.` });
      else seen.set(task.id, task.line);
    }
  }

  private linkDependencies(tasks: SpecTask[]): TasksProblem[] {
    const byId = new Map(tasks.map((task) => [task.id, task]));
    for (const note of this.noteDependencies) {
      const task = byId.get(note.task);
      if (task) task.dependsOn = [...new Set([...task.dependsOn, ...note.on])];
    }
    const warnings: TasksProblem[] = [];
    const order = new Map(tasks.map((task, i) => [task.id, i]));
    for (const task of tasks) {
      for (const dependency of task.dependsOn) {
        const at = order.get(dependency);
        if (at === undefined) warnings.push({ line: task.line, message: `${task.id} depends on ${dependency}, which is not a task in this file.` });
        else if (at > order.get(task.id)!) warnings.push({ line: task.line, message: `${task.id} depends on ${dependency}, which comes later in the file; tasks run in file order.` });
      }
    }
    return warnings;
  }
}

function setField(phase: Omit<TaskPhase, 'index'>, name: string, value: string): void {
  if (value === '') return;
  const key = name.toLowerCase();
  if (key === 'checkpoint') phase.checkpoint = value;
  else if (key === 'purpose') phase.purpose = value;
  else if (key === 'goal') phase.goal = value;
  else phase.independentTest = value;
}

type Tags = { parallel: boolean; story?: string; others: string[]; rest: string } | { problem: string };

const PLACEHOLDER_TAGS = /^(P\?|Story|US\?|USn|ID|TaskID|Story\?)$/i;

/** The bracketed tags right after the id: [P], [US1], others; stops at the first bracket that is prose. */
function readTags(text: string): Tags {
  let rest = text;
  let parallel = false;
  let story: string | undefined;
  const others: string[] = [];
  for (;;) {
    const tag = /^\[([^\]]*)\]\s*/.exec(rest);
    if (!tag) break;
    const inner = tag[1]!.trim();
    if (PLACEHOLDER_TAGS.test(inner)) return { problem: `"[${inner}]" is a placeholder left from the template: use [P], [US1], … or drop it.` };
    if (/^P$/i.test(inner)) parallel = true;
    else if (/^US\s*\d+$/i.test(inner)) story = inner.replace(/\s+/g, '').toUpperCase();
    else if (/^[A-Za-z][\w-]{0,19}$/.test(inner)) others.push(inner);
    else break;
    rest = rest.slice(tag[0].length);
  }
  return { parallel, ...(story !== undefined ? { story } : {}), others, rest: rest.replace(/^[-\u2013\u2014:]\s*/, '') };
}

const FILE_EXTENSIONS = new Set(
  ('ts tsx js jsx mjs cjs py go rs java kt kts rb php cs cpp cc c h hpp swift m scala dart lua r ' +
    'md mdx json jsonc yaml yml toml ini cfg conf env xml html htm css scss sass less vue svelte astro ' +
    'sql graphql proto sh bash ps1 bat txt csv lock gradle tf hcl dockerfile ipynb').split(' '),
);

/** Paths in a description: backticked ones, then words with a "/" or a known file extension. */
export function filesIn(description: string): string[] {
  const found: string[] = [];
  const add = (path: string): void => {
    const clean = path.replace(/^[("'[]+|[)"'\],;:.!?]+$/g, '');
    if (clean !== '' && !found.includes(clean)) found.push(clean);
  };
  for (const match of description.matchAll(/`([^`\s]+)`/g)) if (looksLikePath(match[1]!)) add(match[1]!);
  const plain = description.replace(/`[^`]*`/g, ' ');
  for (const word of plain.split(/\s+/)) {
    const trimmed = word.replace(/^[("'[]+|[)"'\],;:!?]+$/g, '').replace(/\.$/, '');
    if (looksLikePath(trimmed)) add(trimmed);
  }
  return found;
}

function looksLikePath(word: string): boolean {
  if (word === '' || /^[a-z]+:\/\//i.test(word) || /[<>{}|*]/.test(word)) return false;
  if (word.includes('/')) return /^[\w.@~+-]+(\/[\w.@+-]*)+$/.test(word) && /[A-Za-z]/.test(word);
  const match = /^([\w.@+-]*[A-Za-z0-9_-]{2,})\.([A-Za-z][A-Za-z0-9]{0,9})$/.exec(word);
  if (!match || !FILE_EXTENSIONS.has(match[2]!.toLowerCase())) return false;
  // "Node.js", "Vue.js": product names, not files.
  return !(match[2]!.toLowerCase() === 'js' && /^[A-Z]/.test(match[1]!));
}

function idsAfter(pattern: RegExp, text: string): string[] {
  const ids = new Set<string>();
  for (const match of text.matchAll(pattern)) for (const id of match[1]!.match(/T\d+/g) ?? []) ids.add(id);
  return [...ids];
}
