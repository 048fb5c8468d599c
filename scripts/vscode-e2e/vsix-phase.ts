/**
 * Phase 3: the packaged extension as a user runs it. The .vsix (fresh from
 * scripts/package.ts, or one given with --vsix) is installed with
 * code-server's `--install-extension` into the sandbox's own extensions dir,
 * where no node_modules is within reach; code-server then starts without an
 * extension under development, and Playwright drives the chat view against
 * a fake LLM server through a prompt that runs grep and edit_file. Before
 * it is installed, the .vsix is checked as Open VSX would take it
 * (scripts/vsix-validate.ts).
 * Screenshots: test/artifacts/vscode/vsix-<n>-<slug>.png.
 */
import type { Browser } from 'playwright-core';
import { validateVsix } from '../vsix-validate';
import { HarnessError } from './harness-error';
import { log, step } from './progress';
import { runWorkbenchPhase, type UiSummary } from './ui-phase';
import { VSIX_CHECKS } from './vsix-checks';
import { assertNoNodeModulesInReach, freshVsix, installedVersion, installVsix, ripgrepOnPath } from './vsix-package';

export interface VsixPhaseOptions {
  /** A .vsix to test instead of packing the repository. */
  vsix?: string;
}

export async function runVsixPhase(browser: Browser, options: VsixPhaseOptions = {}): Promise<UiSummary> {
  const vsix = options.vsix ?? (await freshVsix());
  const report = await step('checking the .vsix as ovsx and Open VSX would (scripts/vsix-validate.ts)', () => validateVsix(vsix));
  if (report.problems.length > 0) throw new HarnessError(`the .vsix would be refused:\n  ${report.problems.join('\n  ')}`);
  log(`  ${report.passed.length} checks passed, the walkthrough's pages and the translations inside`);
  return runWorkbenchPhase(browser, {
    name: 'vsix',
    checks: VSIX_CHECKS,
    startTitle: 'starting code-server with the installed .vsix only',
    install: async (box) => {
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
      return { version: installedVersion(extensionDir) };
    },
  });
}
