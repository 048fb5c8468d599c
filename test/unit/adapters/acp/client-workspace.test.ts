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

/** What an ACP client answers is checked before it is used: a wrong shape is a failed request. */
describe('the workspace of an ACP client that answers with the wrong shapes', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function clientWorkspace(answers: { read?: unknown; terminalId?: unknown }): ClientWorkspace {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-client-ws-')));
    const terminal = { id: answers.terminalId, release: async () => undefined, kill: async () => undefined };
    return new ClientWorkspace(new NodeWorkspace(root), {
      sessionId: 's',
      capabilities: { fs: { readTextFile: true }, terminal: true },
      client: { request: (async () => answers.read) as never, createTerminal: (async () => terminal) as never },
      embedTerminal: async () => undefined,
    });
  }

  it('fails a read the client answered without text, rather than reading a file as empty, "5" or "[object Object]"', async () => {
    for (const read of [{}, { content: 5 }, { content: { text: 'x' } }, null, 'text']) {
      const workspace = clientWorkspace({ read });
      await assert.rejects(workspace.readFile('missing.txt'), /Cannot read missing\.txt: the client answered fs\/read_text_file without a text content/, JSON.stringify(read));
      rmSync(root, { recursive: true, force: true });
    }
    const workspace = clientWorkspace({ read: { content: 'the editor buffer' } });
    assert.equal(new TextDecoder().decode(await workspace.readFile('missing.txt')), 'the editor buffer');
  });

  it('fails a command whose terminal the client created without an id', async () => {
    const workspace = clientWorkspace({ terminalId: undefined });
    await assert.rejects(
      workspace.exec('echo hi', { signal: new AbortController().signal, timeoutMs: 5_000 }),
      /The client answered terminal\/create without a terminal id \(got undefined\)/,
    );
  });
});
