// Configuration for @vscode/test-cli (`npm run build && npx vscode-test`) on a machine
// with a desktop VS Code or network to download one: it starts VS Code with this
// extension and runs the same suites as `npm run test:vscode` (which runs them in
// code-server, offline). The workspace is a temp copy of test/fixtures/vscode-workspace,
// so tests may change its files; it is removed when the run ends.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@vscode/test-cli';

const scratch = mkdtempSync(join(tmpdir(), 'crow-vscode-test-'));
const workspace = join(scratch, 'workspace');
cpSync('test/fixtures/vscode-workspace', workspace, { recursive: true });
process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));

export default defineConfig({
  files: 'dist/test/vscode/**/*.test.js',
  workspaceFolder: workspace,
  mocha: { ui: 'tdd', timeout: 30000 },
});
