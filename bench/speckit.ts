/**
 * Spec Kit files: the cost of parsing a large tasks.md, of ticking one task
 * in it (a full re-parse to find the line, then one character changed), and
 * of the code checks of /speckit.analyze. Figures are medians; nothing here
 * fails on time.
 */
import { analyzeArtifacts } from '../src/speckit/analysis';
import { setTaskDone } from '../src/speckit/task-ticks';
import { parseTasks } from '../src/speckit/tasks-parser';
import { median } from './common';

const PHASES = 40;
const TASKS_PER_PHASE = 50;
const REQUIREMENTS = 200;
const RUNS = 21;

export async function speckitBenchmark(): Promise<void> {
  const tasks = tasksFile();
  const spec = specFile();
  const plan = '# Plan\n\n## Constitution Check\n\n- ok\n';
  const count = PHASES * TASKS_PER_PHASE;
  const last = `T${String(count).padStart(4, '0')}`;
  console.log(`Spec Kit files: tasks.md of ${count} tasks in ${PHASES} phases (${Math.round(tasks.length / 1024)} KiB), spec of ${REQUIREMENTS} requirements; median of ${RUNS} runs`);
  console.log(`  ${'parse tasks.md'.padEnd(46)} ${ms(timeOf(() => parseTasks(tasks)))}`);
  console.log(`  ${`tick ${last} (the last task)`.padEnd(46)} ${ms(timeOf(() => setTaskDone(tasks, last, true)))}`);
  console.log(`  ${'analysis code checks (spec, plan, tasks)'.padEnd(46)} ${ms(timeOf(() => analyzeArtifacts({ spec, plan, tasks })))}`);
}

function timeOf(fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

function ms(value: number): string {
  return `${value.toFixed(2)} ms`;
}

function tasksFile(): string {
  const lines = ['# Tasks: Benchmark', ''];
  let id = 0;
  for (let p = 1; p <= PHASES; p++) {
    lines.push(`## Phase ${p}: User Story ${p} - Part ${p} (Priority: P${(p % 3) + 1})`, '', `**Goal**: part ${p}`, '');
    for (let t = 0; t < TASKS_PER_PHASE; t++) {
      id++;
      const tag = t % 2 === 0 ? ' [P]' : '';
      lines.push(`- [ ] T${String(id).padStart(4, '0')}${tag} [US${p}] Implement step ${t} in src/part${p}/step${t}.ts (FR-${String((id % REQUIREMENTS) + 1).padStart(3, '0')})`);
    }
    lines.push('', `**Checkpoint**: part ${p} works`, '');
  }
  return `${lines.join('\n')}\n`;
}

function specFile(): string {
  const stories = Array.from({ length: PHASES }, (_, i) => `### User Story ${i + 1} - Part ${i + 1} (Priority: P1)\n`);
  const requirements = Array.from({ length: REQUIREMENTS }, (_, i) => `- **FR-${String(i + 1).padStart(3, '0')}**: The system MUST do thing ${i + 1}.`);
  return `# Spec\n\n${stories.join('\n')}\n## Requirements\n\n${requirements.join('\n')}\n`;
}
