/**
 * For suites running inside VS Code: a FakeLlmServer in the extension host,
 * with Crow pointed at it through its settings (provider "openai" on the
 * server's loopback base URL, which needs no API key). Every setting changed
 * is put back afterwards, so suites do not leak configuration into each other.
 */
import * as vscode from 'vscode';
import { FakeLlmServer } from '../../../testkit/fake-llm-server';

export type PermissionPolicy = 'allow' | 'ask' | 'deny';
export type PermissionCategory = 'read' | 'write' | 'execute' | 'network';

export interface FakeLlmOptions {
  /** Sent as the model name; the server answers whatever it is asked. Default "fake-model". */
  model?: string;
  /** The agent new sessions start with (crow.defaultAgent). Default "build": one primary, no reviewer. */
  defaultAgent?: string;
  /** crow.permissions.*; categories left out keep their current value. */
  permissions?: Partial<Record<PermissionCategory, PermissionPolicy>>;
}

export interface FakeLlm {
  server: FakeLlmServer;
  /** Puts back every crow.* setting it changed, then stops the server. */
  dispose(): Promise<void>;
}

/** Starts a fake server and points Crow's settings at it. */
export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const server = await FakeLlmServer.start();
  const settings: Record<string, unknown> = {
    provider: 'openai',
    model: options.model ?? 'fake-model',
    baseUrls: { openai: server.openaiBaseUrl },
    defaultAgent: options.defaultAgent ?? 'build',
  };
  for (const [category, policy] of Object.entries(options.permissions ?? {})) settings[`permissions.${category}`] = policy;
  let restore: () => Promise<void>;
  try {
    restore = await applySettings(settings);
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    server,
    dispose: async () => {
      try {
        await restore();
      } finally {
        await server.close();
      }
    },
  };
}

/**
 * Suite-level form for tdd suites: starts the server in suiteSetup, clears its
 * queues and recorded requests before each test, restores the settings in
 * suiteTeardown. Call it inside `suite()`; the returned function gives the
 * running server.
 */
export function useFakeLlm(options: FakeLlmOptions = {}): () => FakeLlmServer {
  let fake: FakeLlm | undefined;
  suiteSetup(async () => {
    fake = await startFakeLlm(options);
  });
  setup(() => fake?.server.reset());
  suiteTeardown(async () => {
    await fake?.dispose();
    fake = undefined;
  });
  return () => {
    if (!fake) throw new Error('useFakeLlm: the server runs only between suiteSetup and suiteTeardown of its suite');
    return fake.server;
  };
}

/**
 * Writes `crow.<key>` settings where they win over user settings: the
 * workspace when a folder is open, else the user settings. Returns a function
 * that writes back what each key held at that level before.
 */
export async function applySettings(settings: Record<string, unknown>): Promise<() => Promise<void>> {
  const config = vscode.workspace.getConfiguration('crow');
  const inWorkspace = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  const target = inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  const previous = new Map<string, unknown>();
  const restore = async (): Promise<void> => {
    for (const [key, value] of [...previous].reverse()) await config.update(key, value, target);
  };
  try {
    for (const [key, value] of Object.entries(settings)) {
      const inspected = config.inspect(key);
      previous.set(key, inWorkspace ? inspected?.workspaceValue : inspected?.globalValue);
      await config.update(key, value, target);
    }
  } catch (error) {
    await restore();
    throw new Error(`could not point Crow's settings at the fake LLM server: ${(error as Error).message}`);
  }
  return restore;
}
