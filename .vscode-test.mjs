// Configuration for @vscode/test-cli (`npm run build && npx vscode-test`) on
// a machine that can download VS Code: it starts VS Code with this extension
// and runs the suites bundled from test/vscode/ by esbuild.mjs.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'dist/test/vscode/**/*.test.js',
  workspaceFolder: './test/fixtures/workspace',
  mocha: { ui: 'tdd', timeout: 20000 },
});
