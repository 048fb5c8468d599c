/**
 * What the test index (test/vscode/index.ts) and the harness that starts it
 * in code-server (scripts/vscode-e2e) agree on.
 */

/**
 * Starts every line of the test report the index prints. The extension
 * host's console and the workbench's own log reach the harness through the
 * same channel; the harness shows the marked lines and keeps the rest in a
 * log file.
 */
export const REPORT_MARKER = '[crow-vscode-test] ';

/** The extension host's environment variable holding a mocha grep pattern (the harness's --grep). */
export const GREP_VARIABLE = 'CROW_VSCODE_TEST_GREP';
