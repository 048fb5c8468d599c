import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientWorkspace } from '../../../../src/adapters/acp/client-workspace';
import { NodeWorkspace } from '../../../../src/tools/node-workspace';

/** A file written as bytes goes to an ACP client that edits text (fs/write_text_file) as the same text, byte for byte. */
describe('the workspace of an ACP client that writes text files', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function clientWorkspace(): { workspace: ClientWorkspace; written: Array<{ path: string; content: string }> } {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-client-ws-')));
    const written: Array<{ path: string; content: string }> = [];
    const request = (async (method: string, params: { path: string; content: string }) => {
      assert.equal(method, 'fs/write_text_file');
      written.push({ path: params.path, content: params.content });
      return {};
    }) as never;
    const workspace = new ClientWorkspace(new NodeWorkspace(root), {
      sessionId: 's',
      capabilities: { fs: { readTextFile: true, writeTextFile: true } },
      client: { request, createTerminal: (() => undefined) as never },
      embedTerminal: async () => undefined,
    });
    return { workspace, written };
  }

  it('keeps a byte order mark in the text it sends', async () => {
    const { workspace, written } = clientWorkspace();
    await workspace.writeFile('bom.md', Buffer.from('\uFEFF# Notes\r\n', 'utf8'));
    assert.deepEqual(written, [{ path: join(root, 'bom.md'), content: '\uFEFF# Notes\r\n' }]);
  });

  it('writes bytes that are no UTF-8 to the disk itself, since no text can carry them', async () => {
    const { workspace, written } = clientWorkspace();
    await workspace.writeFile('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    assert.deepEqual(written, []);
    assert.deepEqual([...readFileSync(join(root, 'latin1.txt'))], [0x63, 0x61, 0x66, 0xe9, 0x0a]);
  });
});
