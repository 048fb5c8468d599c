// Runs inside a real VS Code (npm run test:vscode -- --only=restricted); not part of the Node suite.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { crowConfiguration } from '../../src/adapters/vscode/settings';

/**
 * An untrusted folder (Restricted Mode) whose .vscode/settings.json tries to
 * widen what Crow does: the harness's restricted phase opens it with
 * workspace trust on and the folder untrusted. In a trusted workbench (the
 * other phases) there is nothing to check, and the suite says so.
 */
suite('Restricted Mode: an untrusted folder\'s settings', () => {
  test('cannot turn the sandbox off, raise the approval caps or loosen permissions; harmless settings still apply', function () {
    if (vscode.workspace.isTrusted) this.skip();
    const inspected = vscode.workspace.getConfiguration('crow').inspect('sandbox');
    assert.equal(inspected?.workspaceValue, undefined, 'VS Code hid the folder\'s crow.sandbox');
    const configuration = crowConfiguration();
    assert.equal(configuration.sandbox, undefined, 'crow.sandbox = "off" from the folder reached Crow');
    assert.deepEqual(configuration.autoApprove, {}, 'the folder\'s approval caps reached Crow');
    assert.equal(configuration.permissions?.execute, undefined, 'the folder\'s crow.permissions.execute reached Crow');
    assert.equal(configuration.maxIterations, 7, 'a harmless setting of the folder still applies');
  });
});
