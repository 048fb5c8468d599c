/**
 * MCP elicitation (form mode) through the built binary: a server's form is
 * asked of the person in `crow run` on a real terminal (tmux), declined
 * with a notice where nobody can answer (a pipe, an ACP client without
 * forms, between prompts), forwarded to an ACP client that offers forms,
 * and attacked: escapes in the message, a huge schema, a flood, an answer
 * that does not fit. Each question is a span of the session's trace.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import { CROW, runCrow } from '../support/crow-binary';
import { acpxExec, askHarness, call, say } from '../support/mcp-ask-harness';
import { HAVE_TMUX, Terminal } from '../support/terminal';

/** The form the model has the fixture ask: a choice, a bounded whole number, yes/no, optional text. */
const DEPLOY = {
  type: 'object',
  properties: {
    region: { type: 'string', title: 'Region', oneOf: [{ const: 'us', title: 'United States' }, { const: 'eu', title: 'Europe' }] },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5 },
    confirm: { type: 'boolean', title: 'Confirm' },
    note: { type: 'string', title: 'Note' },
  },
  required: ['region', 'replicas'],
};
const ask = (message: string, schema: unknown = DEPLOY) => call('mcp__ask__ask', { message, schema: JSON.stringify(schema) });

describe('MCP elicitation through crow', function () {
  this.timeout(60_000);
  const h = askHarness();
  const toModel = (request: number) => h.toModel(request);
  const elicitation = { elicitation: { form: {} } };

  describe('crow run', () => {
    beforeEach(() => h.configure());

    (HAVE_TMUX ? it : it.skip)('asks the form one question at a time on the terminal, re-asks what does not fit, and the server gets the answer', async () => {
      h.llm.enqueue('anthropic', ask('Deploy where?\u001b[2J\u001b[31m'), say('Deployed.'));
      h.terminal = Terminal.start([process.execPath, CROW, 'run', '--no-undo', '--allow', 'execute', 'Deploy it'], { cwd: h.workspace, env: h.env() });
      const terminal = h.terminal;
      const asked = await terminal.waitFor(/\[y\] answer its 4 questions/);
      assert.match(asked, /\? MCP server "ask" asks:\n\s+Deploy where\?\\u001b\[2J\\u001b\[31m/, 'the escapes are shown, not obeyed');
      terminal.typeLine('y');
      await terminal.waitFor(/2\) Europe\n.*the number of one choice/);
      terminal.typeLine('2');
      await terminal.waitFor(/Replicas\n.*\(a whole number 1–5\)/);
      terminal.typeLine('9');
      await terminal.waitFor(/at most 5/);
      terminal.typeLine('3');
      await terminal.waitFor(/Confirm\n.*\(y\/n, empty to skip\)/);
      terminal.typeLine('y');
      await terminal.waitFor(/Note\n.*\(text, empty to skip\)/);
      terminal.typeLine('');
      assert.equal(await terminal.waitForExit(), 0, terminal.screen());
      assert.match(terminal.screen(), /answered/);
      assert.match(toModel(1), /answer: \{\\"action\\":\\"accept\\",\\"content\\":\{\\"region\\":\\"eu\\",\\"replicas\\":3,\\"confirm\\":true\}\}/);
      const span = h.spans().findLast((s) => s.name === 'elicitation ask');
      assert.ok(span, 'the question is a span');
      assert.equal(span.attributes['crow.mcp.elicitation.action'], 'accept');
      assert.deepEqual(span.attributes['crow.mcp.elicitation.answered'], ['region', 'replicas', 'confirm']);
      const tool = h.spans().find((s) => s.name === 'execute_tool mcp__ask__ask');
      assert.equal(span.parentSpanId, tool?.spanId, 'it hangs below the tool call that asked');
    });

    (HAVE_TMUX ? it : it.skip)('"n" declines and "c" cancels, as the spec\'s actions', async () => {
      h.llm.enqueue('anthropic', ask('First?'), ask('Second?'), say('Done.'));
      h.terminal = Terminal.start([process.execPath, CROW, 'run', '--no-undo', '--allow', 'execute', 'Ask twice'], { cwd: h.workspace, env: h.env() });
      const terminal = h.terminal;
      await terminal.waitFor(/First\?\n.*\[c\] cancel/);
      terminal.typeLine('n');
      await terminal.waitFor(/Second\?\n.*\[c\] cancel/);
      terminal.typeLine('c');
      assert.equal(await terminal.waitForExit(), 0, terminal.screen());
      assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);
      assert.match(toModel(2), /answer: \{\\"action\\":\\"cancel\\"\}/);
    });

    (HAVE_TMUX ? it : it.skip)('URL mode: shows the page\'s domain first, and opens it in the browser only on "y"', async () => {
      h.llm.enqueue('anthropic', call('mcp__ask__ask_url', { message: 'Sign in to continue', url: 'https://auth.example.com/login?state=1' }), say('Opened.'));
      const bin = join(h.home, 'bin');
      mkdirSync(bin);
      const opened = join(h.home, 'opened.txt');
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${JSON.stringify(opened)}\n`, { mode: 0o755 });
      h.terminal = Terminal.start([process.execPath, CROW, 'run', '--no-undo', '--allow', 'execute', 'Sign in'], {
        cwd: h.workspace,
        env: { ...h.env(), PATH: `${bin}:${process.env.PATH}` },
      });
      const terminal = h.terminal;
      const asked = await terminal.waitFor(/\[y\] open it in your browser/);
      assert.match(asked, /\? MCP server "ask" asks you to open a page on auth\.example\.com\n\s+Sign in to continue\n\s+https:\/\/auth\.example\.com\/login\?state=1\n/);
      assert.ok(!existsSync(opened), 'nothing is opened before the person says yes');
      terminal.typeLine('y');
      assert.equal(await terminal.waitForExit(), 0, terminal.screen());
      assert.match(terminal.screen(), /opened/);
      assert.equal(readFileSync(opened, 'utf8'), 'https://auth.example.com/login?state=1\n');
      assert.match(toModel(1), /answer: \{\\"action\\":\\"accept\\"\}/);
    });

    it('declines on a pipe, and says which server asked what and how to answer', async () => {
      h.llm.enqueue('anthropic', ask('Deploy where?'), say('Declined.'));
      const run = await runCrow(['run', '--no-undo', '--allow', 'execute', 'Deploy it'], h.env(), h.workspace);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /MCP server "ask" asked: "Deploy where\?"\. Crow declined: crow run is not on a terminal .*run it on a terminal to answer/);
      assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);
    });
  });

  describe('crow acp', () => {
    it('forwards the checked form to a client that offers forms, and the answer reaches the server', async () => {
      h.llm.enqueue('anthropic', ask('Deploy <b>where</b>?'), say('Deployed.'));
      const { client, sessionId, close } = await h.acpSession({ capabilities: elicitation, elicit: () => ({ action: 'accept', content: { region: 'us', replicas: 2 } }) });
      try {
        assert.equal((await client.prompt(sessionId, 'Deploy it')).stopReason, 'end_turn');
        const [form] = client.elicitations as (CreateElicitationRequest & { requestedSchema: Record<string, unknown> })[];
        assert.equal(form!.message, 'MCP server "ask" asks: Deploy <b>where</b>?');
        assert.equal(form!.mode, 'form');
        assert.deepEqual(form!.requestedSchema.required, ['region', 'replicas']);
        assert.deepEqual((form!.requestedSchema.properties as Record<string, unknown>).region, {
          type: 'string',
          title: 'Region',
          oneOf: [{ const: 'us', title: 'United States' }, { const: 'eu', title: 'Europe' }],
        });
        assert.match(toModel(1), /answer: \{\\"action\\":\\"accept\\",\\"content\\":\{\\"region\\":\\"us\\",\\"replicas\\":2\}\}/);
      } finally {
        await close();
      }
    });

    it('answers server-everything\'s form of every field kind (text formats, numbers, enums, multi-selects)', async () => {
      h.llm.enqueue('anthropic', call('mcp__everything__trigger-elicitation-request', {}), say('Answered.'));
      const answer = { name: 'Ada', check: true, integer: 7, untitledMultipleSelectEnum: ['Piano'], legacyTitledEnum: 'pet-2' };
      const { client, sessionId, close } = await h.acpSession({ capabilities: elicitation, everything: true, elicit: () => ({ action: 'accept', content: answer }) });
      try {
        await client.prompt(sessionId, 'Trigger it');
        const schema = (client.elicitations[0] as { requestedSchema: { properties: Record<string, { title?: string; oneOf?: unknown }> } }).requestedSchema;
        assert.equal(Object.keys(schema.properties).length, 13);
        assert.deepEqual(schema.properties.legacyTitledEnum!.oneOf, [
          { const: 'pet-1', title: 'Cats' }, { const: 'pet-2', title: 'Dogs' }, { const: 'pet-3', title: 'Birds' }, { const: 'pet-4', title: 'Fish' }, { const: 'pet-5', title: 'Reptiles' },
        ]);
        assert.match(toModel(1), /User provided the requested information.*Name: Ada.*Favorite Integer: 7.*legacyTitledEnum.*pet-2/s);
      } finally {
        await close();
      }
    });

    it('URL mode: passes the page to a client that offers it, domain first, and refuses a hostile URL', async () => {
      const asking = (url: string) => call('mcp__ask__ask_url', { message: 'Sign in', url });
      h.llm.enqueue('anthropic', asking('https://auth.example.com/x'), asking('javascript:alert(1)'), say('Done.'));
      const { client, sessionId, close } = await h.acpSession({ capabilities: { elicitation: { form: {}, url: {} } }, elicit: () => ({ action: 'accept' }) });
      try {
        await client.prompt(sessionId, 'Sign in');
        assert.deepEqual(client.elicitations[0], {
          mode: 'url',
          sessionId,
          message: 'MCP server "ask" asks you to open a page on auth.example.com: Sign in',
          url: 'https://auth.example.com/x',
          elicitationId: 'e-1',
        });
        assert.match(toModel(1), /answer: \{\\"action\\":\\"accept\\"\}/);
        assert.match(toModel(2), /refused: MCP error -32602: MCP server \\"ask\\" asked to open a page Crow will not offer: its URL is javascript, not https/);
        assert.equal(client.elicitations.length, 1);
      } finally {
        await close();
      }
    });

    it('URL mode is not declared to servers where the client offers only forms', async () => {
      h.llm.enqueue('anthropic', call('mcp__ask__ask_url', { message: 'Sign in', url: 'https://auth.example.com/x' }), say('Done.'));
      const { client, sessionId, close } = await h.acpSession({ capabilities: elicitation, elicit: () => ({ action: 'accept' }) });
      try {
        await client.prompt(sessionId, 'Sign in');
        assert.match(toModel(1), /refused: .*does not support URL-mode elicitation/);
        assert.equal(client.elicitations.length, 0);
      } finally {
        await close();
      }
    });

    it('declines a client\'s answer that does not fit the form, and says so', async () => {
      h.llm.enqueue('anthropic', ask('Deploy where?'), say('Declined.'));
      const { client, sessionId, close } = await h.acpSession({ capabilities: elicitation, elicit: () => ({ action: 'accept', content: { region: 'mars', replicas: 99 } }) });
      try {
        await client.prompt(sessionId, 'Deploy it');
        assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);
        const notices = client.updates(sessionId, 'notice').map((notice) => notice.description ?? '');
        assert.ok(notices.some((text) => /Crow declined: the answer did not fit the form \(Region: not one of the choices\)/.test(text)), notices.join('\n'));
      } finally {
        await close();
      }
    });

    it('declines where the client offers no forms, naming the server', async () => {
      h.llm.enqueue('anthropic', ask('Deploy where?'), say('Declined.'));
      const { client, sessionId, close } = await h.acpSession({});
      try {
        await client.prompt(sessionId, 'Deploy it');
        assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);
        const notice = client.updates(sessionId, 'notice').find((update) => update.title === 'An MCP server asked a question');
        assert.match(notice?.description ?? '', /MCP server "ask" asked: "Deploy where\?"\. Crow declined: this ACP client offers no forms/);
      } finally {
        await close();
      }
    });

    it('refuses a huge or nested schema with the reason, and a flood is asked one at a time', async () => {
      const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`f${i}`, { type: 'string' }])) };
      h.llm.enqueue('anthropic', ask('Huge?', huge), call('mcp__ask__flood', { count: 25 }), say('Done.'));
      const { client, sessionId, close } = await h.acpSession({ capabilities: elicitation, elicit: () => ({ action: 'accept', content: { ok: true } }) });
      try {
        await client.prompt(sessionId, 'Attack');
        assert.match(toModel(1), /refused: MCP error -32602: MCP server \\"ask\\" asked for input Crow cannot ask: it asks 2000 questions; at most 30 are asked/);
        const flood = toModel(2);
        assert.ok((flood.match(/answer: \{\\"action\\":\\"accept\\"/g) ?? []).length >= 1, flood);
        assert.ok((flood.match(/one question of MCP server \\"ask\\" at a time/g) ?? []).length >= 20, flood);
        assert.equal(client.elicitations.length, (flood.match(/answer: \{\\"action\\":\\"accept\\"/g) ?? []).length, 'only the questions asked reached the client');
      } finally {
        await close();
      }
    });

    it('declines a question that comes while no prompt runs, and tells the person', async () => {
      h.llm.enqueue('anthropic', call('mcp__ask__ask_later', { delayMs: 500 }), say('Asked.'));
      const { client, sessionId, close } = await h.acpSession({ capabilities: elicitation, elicit: () => ({ action: 'accept', content: { ok: true } }) });
      try {
        await client.prompt(sessionId, 'Ask later');
        const deadline = Date.now() + 10_000;
        while (!(existsSync(h.log) && /later:/.test(readFileSync(h.log, 'utf8'))) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
        assert.match(readFileSync(h.log, 'utf8'), /later: \{"action":"decline"\}/);
        assert.equal(client.elicitations.length, 0, 'the person was not asked out of the blue');
        await client.until(() => client.updates(sessionId, 'notice').some((notice) => /no prompt was running/.test(notice.description ?? '')));
      } finally {
        await close();
      }
    });
  });

  describe('acpx, a client we did not write', () => {
    it('offers no forms, so the question is declined with a note naming the server', async function () {
      h.llm.enqueue('anthropic', ask('Deploy where?'), say('Declined.'));
      const run = await acpxExec(h, 'Deploy it');
      if (!run) return this.skip();
      assert.equal(run.code, 0, run.stdout.slice(-2000));
      assert.match(run.stdout, /MCP server \\"ask\\" asked: \\"Deploy where\?\\"\. Crow declined: this ACP client offers no forms/);
      assert.match(toModel(1), /answer: \{\\"action\\":\\"decline\\"\}/);
    });
  });
});
