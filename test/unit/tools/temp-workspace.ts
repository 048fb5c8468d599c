import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace, type NodeWorkspaceOptions } from '../../../src/tools/node-workspace';
import { PermissionGate } from '../../../src/tools/permissions';
import { type PermissionPolicy } from '../../../src/vocabulary/permission-types';
import { TodoStore } from '../../../src/tools/todos';
import type { ToolContext } from '../../../src/tools/tool';
import type { Workspace } from '../../../src/tools/workspace';

/** A fresh folder under the system temp dir; `remove()` deletes it. */
export function tempDir(prefix = 'crow-tools-'): { dir: string; remove: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A NodeWorkspace on a fresh temp folder, with `files` (relative path → content) written into it. */
export function tempWorkspace(
  files: Record<string, string> = {},
  options: NodeWorkspaceOptions = {},
): { root: string; workspace: NodeWorkspace; remove: () => void } {
  const { dir, remove } = tempDir();
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return { root: dir, workspace: new NodeWorkspace(dir, options), remove };
}

/** Every category allowed: tool tests exercise the tools, not the policy. */
export const ALLOW_ALL: PermissionPolicy = {
  rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' },
  allowCommands: [],
};

export function toolContext(
  workspace: Workspace,
  signal: AbortSignal = new AbortController().signal,
  extra: Partial<ToolContext> = {},
): ToolContext {
  return {
    sessionId: 'session-1',
    agentName: 'tester',
    callId: 'call-1',
    workspace,
    signal,
    provider: 'scripted',
    model: 'scripted-model',
    supportsImages: true,
    permissions: new PermissionGate({ policy: ALLOW_ALL }),
    todos: new TodoStore(),
    ...extra,
  };
}
