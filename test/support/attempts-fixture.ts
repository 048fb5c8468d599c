/**
 * The repository and scripted model the parallel-attempt tests share
 * (crow run --attempts, ACP attempts): a greeter whose greet.js each
 * attempt rewrites its own way, and a fake model that tells the attempts
 * and the judge apart by the worktree their system prompt names.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeLlmServer, ScriptedReply } from '../../testkit/fake-llm-server';

export const ORIGINAL = "module.exports = () => 'hi';\n";
/** What each attempt writes to greet.js: attempt 2 gets the word wrong, so a check of the greeting fails it. */
export const WRITES: Record<number, string> = {
  1: "module.exports = () => 'hello';\n",
  2: "module.exports = () => 'hallo';\n",
  3: "// Greets the caller.\nmodule.exports = () => 'hello';\n",
};

/** git in `cwd` with an identity of its own; its trimmed output. */
export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

/** A git repository at `repo` holding greet.js (ORIGINAL) and `files`, in one commit. */
export function greeterRepository(repo: string, files: Record<string, string> = {}): void {
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q');
  writeFileSync(join(repo, 'greet.js'), ORIGINAL);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(repo, name), text);
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'start');
}

/** What the built-in reviewer's system prompt (prompts/reviewer.hbs) says of itself. */
export const REVIEWER_SAYS = 'a meticulous reviewer working with a coding agent';
/** What judge-attempts' own judge (agents/base/attempt-judge.md) says of itself. */
export const JUDGE_SAYS = 'the judge of several attempts';

/**
 * Which attempt a request comes from: its system prompt names the worktree
 * it works in. The judge works in the person's folder: judge-attempts, or
 * a reviewer (of an agent with one) whose prompt names no worktree.
 */
export function attemptOf(body: Record<string, unknown>): number | 'judge' | undefined {
  const system = JSON.stringify(body['system']);
  const match = /crow-attempts\/[^/"\\]+\/(\d)/.exec(system);
  if (system.includes(JUDGE_SAYS) || (system.includes(REVIEWER_SAYS) && !match)) return 'judge';
  return match ? Number(match[1]) : undefined;
}

/**
 * The fake model of the attempts: each attempt writes greet.js (WRITES),
 * then says it is done (an attempt's reviewer, with an agent that has
 * one, approves); the judge answers `ranking` (its JSON text), `judged`
 * (when given) collects what it was shown and `judgeSystems` its system
 * prompt: who judged.
 */
export function scriptAttempts(server: FakeLlmServer, ranking: string, judged?: string[], judgeSystems?: string[]): void {
  server.respondWith('anthropic', (body): ScriptedReply | undefined => {
    const who = attemptOf(body);
    if (who === 'judge') {
      judged?.push(JSON.stringify(body['messages']));
      judgeSystems?.push(JSON.stringify(body['system']));
      return { blocks: [{ type: 'text', text: ranking }] };
    }
    if (who === undefined) return undefined;
    // An attempt of an agent with a reviewer (pair): the reviewer approves the attempt's work.
    if (JSON.stringify(body['system']).includes(REVIEWER_SAYS)) return { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: `Attempt ${who} reviewed.` } }] };
    const messages = body['messages'] as { content: unknown }[];
    if (!JSON.stringify(messages.at(-1)).includes('tool_result')) return { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'greet.js', content: WRITES[who]! } }] };
    return { blocks: [{ type: 'text', text: `Attempt ${who}: greet.js now says ${WRITES[who]!.includes('hallo') ? 'hallo' : 'hello'}.` }] };
  });
}
