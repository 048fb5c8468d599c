/**
 * The permission gate's command judgement: the cost of parsing a command
 * line with the bash parser and judging it against an allow-list, per call,
 * and the parser's load time in a fresh process (what the first bash call
 * of a session pays).
 */
import { execFileSync } from 'node:child_process';
import { covers, judgeCommand, parseEntry } from '../src/tools/command-rules';
import { median } from './common';

const LINES = [
  'git status',
  'cd packages/app && npm test -- --grep "parser" 2>&1 | tail -40',
  'git log --format=%H -n 5 $(git rev-parse --abbrev-ref HEAD) > /dev/null',
  'for f in src/*.ts; do grep -n "TODO" "$f" || true; done',
  'cat <<EOF > notes.md\n# Notes\n$(date)\nEOF',
];

export async function commandRulesBenchmark(): Promise<void> {
  const entries = ['git status', 'git log', 'git rev-parse', 'npm test', 'cd', 'tail', 'grep', 'true', 'cat', 'date'].map((text) => parseEntry(text)!);
  const ROUNDS = 30;
  const PER_ROUND = 200;
  const perCall: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < PER_ROUND; i++) covers(entries, judgeCommand(`${LINES[i % LINES.length]!} # ${i}`));
    if (round > 0) perCall.push(((performance.now() - start) * 1000) / PER_ROUND);
  }
  const loads: number[] = [];
  const script = "const t=performance.now();const u=require('unbash');u.parse('git status; touch x');console.log(performance.now()-t)";
  for (let i = 0; i < 5; i++) loads.push(Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })));
  console.log(`Command judgement: parse + judge a command line against a 10-entry allow-list, median of ${ROUNDS} rounds of ${PER_ROUND}`);
  console.log(`  ${median(perCall).toFixed(1)} µs per command line; parser load + first parse in a fresh Node ${process.version}: ${median(loads).toFixed(1)} ms`);
}
