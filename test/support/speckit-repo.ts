/**
 * A repository laid out as Spec Kit 1.0's `specify init --script sh` makes
 * it (test/fixtures/speckit/specify-1.0: init-options.json, the memory, the
 * core templates and scripts written for these tests after Spec Kit's
 * documented contracts), copied to a temporary folder, with the real crow
 * binary run in it against the fake LLM server.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { FakeLlmServer, ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from './crow-binary';
import { isolatedEnv } from './isolated-env';

export const SPECIFY_INIT = resolve(__dirname, '../fixtures/speckit/specify-1.0');

export interface SpeckitRepo {
  root: string;
  home: string;
  env: NodeJS.ProcessEnv;
  write(path: string, text: string): void;
  read(path: string): string;
  exists(path: string): boolean;
  git(...args: string[]): string;
  /** `crow run [flags] PROMPT` in the repository. */
  crow(prompt: string, flags?: string[], env?: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** The user's own config.toml (trusted), e.g. permissions or [subagents]. */
  userConfig(text: string): void;
  remove(): void;
}

export function speckitRepo(llm: FakeLlmServer, options: { scripts?: boolean; git?: string } = {}): SpeckitRepo {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-specify-')));
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-specify-home-')));
  cpSync(SPECIFY_INIT, root, { recursive: true });
  if (options.scripts === false) rmSync(join(root, '.specify/scripts'), { recursive: true, force: true });
  const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test-key-28', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: root, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString().trim();
  if (options.git !== undefined) {
    git('init', '--quiet', `--initial-branch=${options.git}`);
    git('add', '-A');
    git('commit', '--quiet', '-m', 'specify init');
  }
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  return {
    root,
    home,
    env,
    write,
    read: (path) => readFileSync(join(root, path), 'utf8'),
    exists: (path) => existsSync(join(root, path)),
    git,
    crow: (prompt, flags = ['--allow', 'write'], extra = {}) => runCrow(['run', ...flags, prompt], { ...env, ...extra }, root),
    userConfig: (text) => {
      mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), text);
    },
    remove: () => {
      rmSync(root, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A model reply calling `name` with `args`. */
export const toolCall = (name: string, args: Record<string, unknown>): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
export const text = (words: string): ScriptedReply => ({ blocks: [{ type: 'text', text: words }] });

/** Every request the fake server got from the anthropic side, as JSON text. */
export function requestTexts(llm: FakeLlmServer): string[] {
  return llm.requestsFor('anthropic').map((request) => JSON.stringify(request.body));
}
