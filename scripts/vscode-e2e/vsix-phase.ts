/**
 * Phase 3: the packaged extension as a user runs it. The .vsix (fresh from
 * scripts/package.ts, or one given with --vsix) is installed with
 * code-server's `--install-extension` into the sandbox's own extensions dir,
 * where no node_modules is within reach; code-server then starts without an
 * extension under development, and Playwright drives the chat view against
 * a fake LLM server through a prompt that runs grep and edit_file.
 * Screenshots: test/artifacts/vscode/vsix-<n>-<slug>.png.
 */
import type { Browser, Page } from 'playwright-core';
import { FakeLlmServer } from '../../src/testing/fake-llm-server';
import { startCodeServer, type CodeServer } from './code-server';
import { log, step } from './progress';
import { createSandbox, type Sandbox } from './sandbox';
import type { UiContext } from './ui-checks';
import { runChecks, saveServerLogs, type UiSummary } from './ui-phase';
import { VSIX_CHECKS } from './vsix-checks';
import { assertNoNodeModulesInReach, freshVsix, installedVersion, installVsix, ripgrepOnPath } from './vsix-package';
import { openWorkbench } from './workbench';

export interface VsixPhaseOptions {
  /** A .vsix to test instead of packing the repository. */
  vsix?: string;
}

/** As in the UI phase: the "build" agent on the fake server, reads allowed, edits asked for. */
function vsixSettings(fake: FakeLlmServer): Record<string, unknown> {
  return {
    'crow.provider': 'openai',
    'crow.model': 'fake-model',
    'crow.baseUrls': { openai: fake.openaiBaseUrl },
    'crow.defaultAgent': 'build',
    'crow.permissions.read': 'allow',
    'crow.permissions.write': 'ask',
  };
}

export async function runVsixPhase(browser: Browser, options: VsixPhaseOptions = {}): Promise<UiSummary> {
  const vsix = options.vsix ?? (await freshVsix());
  const fake = await FakeLlmServer.start();
  let sandbox: Sandbox | undefined;
  let server: CodeServer | undefined;
  let page: Page | undefined;
  try {
    const box = (sandbox = createSandbox('vsix', vsixSettings(fake)));
    const extensionDir = await installVsix(box, vsix);
    const reach = await step('checking that no node_modules is within reach of the installed extension', async () =>
      assertNoNodeModulesInReach(extensionDir, box),
    );
    log(`  ${reach}`);
    const strayRipgrep = ripgrepOnPath(box);
    log(
      strayRipgrep
        ? `  note: ${strayRipgrep} is on PATH, so the grep check passes even if VS Code's own rg is not found`
        : '  no rg on PATH: grep can only run the rg VS Code ships',
    );
    server = await step('starting code-server with the installed .vsix only', () => startCodeServer(box, 'vsix'));
    // No extensionDevelopmentPath: Crow can only come from the extensions dir.
    page = await openWorkbench(browser, { serverUrl: server.url, folder: box.workspace });
    const context: UiContext = { page, fake, workspace: box.workspace, version: installedVersion(extensionDir) };
    const summary = await runChecks(VSIX_CHECKS, context, 'vsix');
    if (summary.failed > 0) log(`VS Code's logs (the extension host's among them): ${saveServerLogs(box, 'vsix-logs')}`);
    return summary;
  } finally {
    await page?.context().close().catch(() => undefined);
    await server?.stop();
    await fake.close();
    sandbox?.dispose();
  }
}
