// Runs inside a real VS Code (see .vscode-test.mjs); not part of the Node suite.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { vscodeRipgrep } from '../../src/adapters/vscode/ripgrep';

suite('Crow Agent extension', () => {
  test('activates and contributes its commands', async () => {
    const extension = vscode.extensions.getExtension('crow-agent.crow-agent');
    assert.ok(extension, 'the extension is installed under its publisher.name id');
    await extension.activate();
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('crow.showVersion'));
  });

  test("finds VS Code's own ripgrep, which the packaged extension (no node_modules) searches with", () => {
    const rg = vscodeRipgrep();
    assert.ok(rg !== undefined && existsSync(rg), `no rg under ${vscode.env.appRoot}`);
  });
});
