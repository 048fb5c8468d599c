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

/** Which attempt a request comes from: its system prompt names the worktree it works in. */
export function attemptOf(body: Record<string, unknown>): number | 'judge' | undefined {
  const system = JSON.stringify(body['system']);
  if (system.includes('the judge of several attempts')) return 'judge';
  const match = /crow-attempts\/[^/"\\]+\/(\d)/.exec(system);
  return match ? Number(match[1]) : undefined;
}

/**
 * The fake model of the attempts: each attempt writes greet.js (WRITES),
 * then says it is done; the judge answers `ranking` (its JSON text), and
 * `judged` (when given) collects what it was shown.
 */
export function scriptAttempts(server: FakeLlmServer, ranking: string, judged?: string[]): void {
  server.respondWith('anthropic', (body): ScriptedReply | undefined => {
    const who = attemptOf(body);
    if (who === 'judge') {
      judged?.push(JSON.stringify(body['messages']));
      return { blocks: [{ type: 'text', text: ranking }] };
    }
    if (who === undefined) return undefined;
    const messages = body['messages'] as { content: unknown }[];
    if (!JSON.stringify(messages.at(-1)).includes('tool_result')) return { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'greet.js', content: WRITES[who]! } }] };
    return { blocks: [{ type: 'text', text: `Attempt ${who}: greet.js now says ${WRITES[who]!.includes('hallo') ? 'hallo' : 'hello'}.` }] };
  });
}
