/**
 * What the hooks of a folder ask for beyond the user's settings, for the
 * trust decision: every hook of a Claude Code settings.json inside the
 * workspace (whoever lists it) or listed by the project. Each is shown
 * with its command, and any change to one asks again. The project's own
 * `[[hooks]]` and `claude_hooks` are judged with its config.toml
 * (judgeProjectSettings).
 */
import { claudeFilePath, type HookDocument, isInside } from './hook-config';
import { readClaudeHooks } from './claude-hooks';
import { hookText } from './hook-settings';
import type { Widening } from './project-trust';

export function claudeHookWidenings(root: string, env: NodeJS.ProcessEnv, layers: { user: HookDocument; project: HookDocument }): Widening[] {
  const inside = (layers.user.claude_hooks ?? []).map((path) => claudeFilePath(path, root, env)).filter((file) => isInside(root, file));
  const projects = (layers.project.claude_hooks ?? []).map((path) => claudeFilePath(path, root, env));
  return [...new Set([...inside, ...projects])].flatMap((file) =>
    readClaudeHooks(file).hooks.map((hook) => ({
      file,
      setting: 'claude_hooks',
      text: `${hookText(hook)} (a Claude Code hook, timeout ${hook.timeoutSec} s)`,
      value: { event: hook.event, command: hook.command, matcher: hook.matcher ?? null, timeoutSec: hook.timeoutSec },
    })),
  );
}
