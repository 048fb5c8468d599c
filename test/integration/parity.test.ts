/**
 * Front-door parity: one table of scenarios, each run through the real
 * `crow` binary, the real `crow acp` binary with the SDK client, and the
 * VS Code chat controller. A capability a door lacks is a failing row.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { DOORS, type DoorSession, userConfigDir } from '../support/doors';
import { until } from '../support/crow-binary';

const FIXTURE = resolve(__dirname, '../fixtures/mcp-server.ts');
const PARITY_KEY = 'parity-key-0123456789';

interface World {
  llm: FakeLlmServer;
  root: string;
  home: string;
  /** Adds to the user's config.toml. */
  config(toml: string): void;
  /** Spans the OTLP receiver got, as raw JSON text. */
  exported(): string;
  otlpEndpoint: string;
}

interface Scenario {
  name: string;
  /** Scripts the model and prepares the folder and the user's config before the door opens. */
  setup?(world: World): void;
  run(session: DoorSession, world: World): Promise<void>;
}

const text = (value: string): ScriptedReply => ({ blocks: [{ type: 'text', text: value }] });
const call = (name: string, args: unknown, say = ''): ScriptedReply => ({
  blocks: [...(say ? [{ type: 'text' as const, text: say }] : []), { type: 'tool_call', name, arguments: args }],
});
const lastUserText = (body: { messages: { role: string; content: unknown }[] }): string => JSON.stringify(body.messages.at(-1)?.content ?? '');
/** A process whose command line is exactly `sleep SECONDS` runs. */
const sleeping = (seconds: string): boolean => {
  try {
    return execFileSync('pgrep', ['-f', `^sleep ${seconds}$`], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
};

const SCENARIOS: Scenario[] = [
  {
    name: 'an edit, then undo puts the file back',
    setup: ({ llm, root }) => {
      writeFileSync(join(root, 'notes.md'), 'v1\n');
      llm.enqueue('anthropic', call('write_file', { path: 'notes.md', content: 'v2\n' }), text('Changed.'), text('I will read it again.'));
    },
    async run(session, { llm, root }) {
      assert.ok((await session.prompt('Change notes.md')).ok);
      assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'v2\n');
      const undone = await session.undo();
      assert.ok(undone.ok, undone.text);
      assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'v1\n', 'undo restored the file');
      // The agent's history still says it wrote v2: it is told, before the next message, that the file is back.
      assert.ok((await session.prompt('What does notes.md hold?')).ok);
      assert.match(JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages.slice(-1)), /undid the prompt \\"Change notes.md\\": notes.md is back as it was before/);
    },
  },
  {
    name: 'a reviewed pair run: the reviewer approves and ends the task',
    setup: ({ llm }) =>
      llm.enqueue(
        'anthropic',
        call('task_complete', { summary: 'Explained it.' }, 'It adds numbers.'),
        call('task_complete', { summary: 'Approved: the explanation is right.' }),
      ),
    async run(session, { llm }) {
      const run = await session.prompt('Explain add()', { agent: 'pair' });
      assert.ok(run.ok, run.ended);
      const [builder, reviewer] = llm.requestsFor('anthropic').map((request) => JSON.stringify(request.body.system));
      assert.notEqual(builder, reviewer, 'the reviewer ran with its own prompt');
      assert.equal(llm.requestsFor('anthropic').length, 2);
    },
  },
  {
    name: 'a subagent does part of the work and reports back',
    setup: ({ llm, root }) => {
      writeFileSync(join(root, 'notes.md'), 'The notes.\n');
      llm.enqueue(
        'anthropic',
        call('task', { agent: 'explorer', task: 'Read notes.md and say what it holds.' }),
        call('read_file', { path: 'notes.md' }),
        call('task_complete', { summary: 'notes.md holds "The notes."' }, 'It holds one line.'),
        text('The explorer says it holds one line.'),
      );
    },
    async run(session, { llm }) {
      assert.ok((await session.prompt('What is in notes.md?')).ok);
      const requests = llm.requestsFor('anthropic');
      assert.equal(requests.length, 4);
      assert.match(lastUserText(requests[1]!.body), /Read notes\.md and say what it holds/, 'the child got the task, not the history');
      assert.match(lastUserText(requests[3]!.body), /## Summary/, 'the parent read the report');
    },
  },
  {
    name: 'a tool of an MCP server from config.toml',
    setup: ({ llm, config }) => {
      config(`[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(['--require', require.resolve('tsx/cjs'), FIXTURE])}\n`);
      llm.enqueue('anthropic', call('mcp__fx__echo', { text: 'parity' }), text('Echoed.'));
    },
    async run(session, { llm }) {
      assert.ok((await session.prompt('Echo parity')).ok);
      assert.match(lastUserText(llm.requestsFor('anthropic')[1]!.body), /fixture echo: parity/);
    },
  },
  {
    name: 'a slash command expands to its prompt',
    setup: ({ llm, home }) => {
      mkdirSync(join(userConfigDir(home), 'commands'), { recursive: true });
      writeFileSync(join(userConfigDir(home), 'commands', 'greet.md'), '---\ndescription: Greets\n---\nSay hello to {{args}} in one word.\n');
      llm.enqueue('anthropic', text('Hello.'));
    },
    async run(session, { llm }) {
      assert.ok((await session.prompt('/greet parity')).ok);
      assert.match(lastUserText(llm.requestsFor('anthropic')[0]!.body), /Say hello to parity in one word\./);
    },
  },
  {
    name: 'compaction keeps a session inside a small context window',
    setup: ({ llm, config }) => {
      config('[providers.anthropic.models."claude-sonnet-4-6"]\ncontext_window = 1000\n');
      llm.enqueue('anthropic', text('First answer.'), text('Summary: the user asked twice.'), text('Second answer.'));
    },
    async run(session, { llm }) {
      assert.ok((await session.prompt(`First question. ${'context '.repeat(400)}`)).ok);
      assert.ok((await session.prompt(`Second question. ${'context '.repeat(400)}`)).ok);
      const requests = llm.requestsFor('anthropic');
      assert.equal(requests.length, 3);
      assert.match(lastUserText(requests[1]!.body), /this session is being compacted/, 'the older history was summarised');
      assert.deepEqual(requests[1]!.body.tool_choice, { type: 'none' }, 'by the agent, asked to call no tool');
      assert.match(JSON.stringify(requests[2]!.body.messages), /Summary: the user asked twice/, 'the next call reads the summary');
    },
  },
  {
    name: '/compact summarises the conversation now, focused as asked',
    setup: ({ llm }) => llm.enqueue('anthropic', text('The parser lives in src/parse.ts.'), text('Summary: parser in src/parse.ts.'), text('Next answer.')),
    async run(session, { llm }) {
      assert.ok((await session.prompt('Where is the parser?')).ok);
      const compacted = await session.prompt('/compact the parser');
      assert.ok(compacted.ok, compacted.ended);
      assert.match(compacted.text, /Compacted the conversation of build/);
      assert.ok((await session.prompt('And now?')).ok);
      const requests = llm.requestsFor('anthropic');
      assert.equal(requests.length, 3);
      assert.match(lastUserText(requests[1]!.body), /The user asked to compact this session now, and wants the summary to focus on: the parser/);
      assert.deepEqual(requests[1]!.body.tool_choice, { type: 'none' }, 'the summary is asked of the agent without tools');
      const later = JSON.stringify(requests[2]!.body.messages);
      assert.match(later, /Summary: parser in src\/parse\.ts/, 'the next prompt reads the summary');
      assert.doesNotMatch(later, /Where is the parser\?/, 'instead of the conversation');
    },
  },
  {
    name: 'a spending limit stops the run before the next model call',
    setup: ({ llm, config }) => {
      config('[providers.anthropic.models."claude-sonnet-4-6"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n\n[limits]\nmax_cost_per_prompt = 0.25\n');
      // 100,000 input tokens at $3 per million: $0.30, past the limit once the first call returns.
      llm.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'notes.md' } }], usage: { input: 100_000, output: 10 } });
    },
    async run(session, { llm, root }) {
      writeFileSync(join(root, 'notes.md'), 'notes\n');
      const run = await session.prompt('Read the notes');
      assert.ok(['exit 3', 'max_tokens', 'budget'].includes(run.ended), `ended ${run.ended}`);
      assert.equal(llm.requestsFor('anthropic').length, 1, 'no model call past the limit');
    },
  },
  {
    name: 'rewinds to a checkpoint: the files only, the conversation only, then both',
    setup: ({ llm, root }) => {
      writeFileSync(join(root, 'notes.md'), 'v1\n');
      llm.enqueue(
        'anthropic',
        call('write_file', { path: 'notes.md', content: 'v2\n' }),
        text('Wrote v2.'),
        call('write_file', { path: 'notes.md', content: 'v3\n' }),
        text('Wrote v3.'),
        text('Back at v2.'),
        text('After the conversation rewind.'),
        text('After rewinding both.'),
      );
    },
    async run(session, { llm, root }) {
      const notes = (): string => readFileSync(join(root, 'notes.md'), 'utf8');
      assert.ok((await session.prompt('Write v2')).ok);
      assert.ok((await session.prompt('Write v3')).ok);
      // Checkpoints: #1 before "Write v2", #2 before its write, #3 before "Write v3", #4 before its write.
      const files = await session.rewind(4, 'files');
      assert.ok(files.ok, `${files.ended} ${files.text}`);
      assert.equal(notes(), 'v2\n', 'the files as they were before the second write');
      // The conversation still says v3 was written: the agents are told the file went back.
      assert.ok((await session.prompt('What is in notes.md now?')).ok);
      assert.match(JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages.slice(-1)), /rewound the files to checkpoint #4[^\]]*: notes.md is back/);
      const conversation = await session.rewind(3, 'conversation');
      assert.ok(conversation.ok, `${conversation.ended} ${conversation.text}`);
      assert.equal(notes(), 'v2\n', 'a conversation rewind leaves the files');
      assert.ok((await session.prompt('Where are we?')).ok);
      const sent = JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages);
      assert.match(sent, /Write v2/);
      assert.doesNotMatch(sent, /Write v3|Wrote v3/, 'the agents no longer read what came after checkpoint #3');
      const both = await session.rewind(2, 'both');
      assert.ok(both.ok, `${both.ended} ${both.text}`);
      assert.equal(notes(), 'v1\n');
      assert.ok((await session.prompt('And now?')).ok);
      assert.doesNotMatch(JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages), /Wrote v2|Where are we/);
    },
  },
  {
    name: 'forks a session from an earlier message: the branch holds the conversation up to it',
    setup: ({ llm }) => llm.enqueue('anthropic', text('Answer A.'), text('Answer B.'), text('Answer on the branch.'), text('Still on the branch.')),
    async run(session, { llm }) {
      assert.ok((await session.prompt('Question A')).ok);
      assert.ok((await session.prompt('Question B')).ok);
      // Checkpoint #2 comes before "Question B": the branch has A and its answer, then the new question.
      const branched = await session.forkAndPrompt(2, 'Question C instead');
      assert.ok(branched.ok, `${branched.ended} ${branched.text}`);
      const sent = JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages);
      assert.match(sent, /Question A[\s\S]*Answer A[\s\S]*Question C instead/);
      assert.doesNotMatch(sent, /Question B/);
      assert.ok((await session.prompt('And then?')).ok);
      assert.match(JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages), /Question C instead[\s\S]*And then\?/, 'later prompts go on with the branch');
    },
  },
  {
    name: 'a message sent while a command runs reaches the agent after the command returns',
    setup: ({ llm }) => llm.enqueue('anthropic', call('bash', { command: 'sleep 1.4' }), text('Done, and I saw your note.')),
    async run(session, { llm }) {
      const run = await session.promptThenSteer('Wait a bit', 'Also mention the tests', () => sleeping('1.4'));
      assert.ok(run.ok, `${run.ended} ${run.text}`);
      const requests = llm.requestsFor('anthropic');
      assert.equal(requests.length, 2, 'given to the running prompt, not sent as a prompt of its own');
      const last = JSON.stringify(requests[1]!.body.messages.at(-1));
      assert.match(last, /"type":"tool_result"[\s\S]*sent this message while you were working[\s\S]*Also mention the tests/);
    },
  },
  {
    name: 'a cancel during a command stops it and ends the prompt as cancelled',
    setup: ({ llm }) => llm.enqueue('anthropic', call('bash', { command: 'sleep 37.5' })),
    async run(session) {
      const run = await session.promptThenCancel('Wait a while', () => sleeping('37.5'));
      assert.ok(run.ok, `ended ${run.ended}`);
      await until(() => !sleeping('37.5'), 'the command to stop', 5_000);
    },
  },
  {
    name: "a long command's output shows while it runs, the API key redacted from it",
    // The command waits for a file that is written only once its first line was shown, so that line came while it ran.
    // What it prints (live-42) is not in the command line the door also shows; the file it shows first holds the key.
    setup: ({ llm, root }) => {
      writeFileSync(join(root, 'leak.txt'), `key=${PARITY_KEY}\n`);
      llm.enqueue('anthropic', call('bash', { command: 'cat leak.txt; echo live-$((6 * 7)); while [ ! -e gate ]; do sleep 0.05; done; echo last-$((6 * 7))', timeout_ms: 20_000 }), text('Done.'));
    },
    async run(session, { root }) {
      const gate = until(() => session.shown().includes('live-42'), 'the first line to show while the command runs', 20_000).then(() =>
        writeFileSync(join(root, 'gate'), ''),
      );
      const run = await session.prompt('Run the slow check');
      await gate;
      assert.ok(run.ok, run.ended);
      assert.match(session.shown(), /last-42/);
      assert.match(session.shown(), /key=\[REDACTED\]/);
      assert.ok(!session.shown().includes(PARITY_KEY), 'the key never reached the door');
    },
  },
  {
    name: 'an output too long for the model is saved whole in the session, and the model is told where',
    setup: ({ llm }) => llm.enqueue('anthropic', call('bash', { command: 'seq 1 50000' }), text('Read it.')),
    async run(session, { llm, home }) {
      assert.ok((await session.prompt('Count a lot')).ok);
      const told = lastUserText(llm.requestsFor('anthropic')[1]!.body);
      const saved = /is saved at (\S+?\.txt)/.exec(told)?.[1];
      assert.ok(saved, told.slice(-300));
      assert.ok(saved.startsWith(join(home, 'data', 'crow-agent', 'sessions')), `${saved} is in the session's folder`);
      assert.equal(readFileSync(saved, 'utf8'), `${Array.from({ length: 50_000 }, (_, i) => i + 1).join('\n')}\n`);
    },
  },
  {
    name: 'a pre_tool_use hook denies a command: it does not run, the model reads why, the door shows it',
    setup: ({ llm, root, home, config }) => {
      mkdirSync(join(root, 'build'));
      writeFileSync(join(root, 'build', 'keep.txt'), 'kept\n');
      writeFileSync(join(home, 'guard.sh'), 'cat > /dev/null\necho "rm -rf is not allowed here" >&2\nexit 2\n');
      config(`[[hooks]]\nevent = "pre_tool_use"\nmatcher = "bash"\ncommand = "sh ${join(home, 'guard.sh')}"\n`);
      llm.enqueue('anthropic', call('bash', { command: 'rm -rf build' }), text('I left build alone.'));
    },
    async run(session, { llm, root }) {
      assert.ok((await session.prompt('Clean up')).ok);
      assert.equal(readFileSync(join(root, 'build', 'keep.txt'), 'utf8'), 'kept\n', 'the command did not run');
      assert.match(lastUserText(llm.requestsFor('anthropic')[1]!.body), /Not run: the pre_tool_use hook .* denied it: rm -rf is not allowed here/);
      assert.match(session.shown(), /denied it: rm -rf is not allowed here/);
    },
  },
  {
    name: 'a pre_tool_use hook rewrites a command: the rewritten one runs, the door shows it and says a hook changed it',
    setup: ({ llm, home, config }) => {
      const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'echo rewritten-by-hook > out.txt' } } };
      writeFileSync(join(home, 'rewrite.sh'), `cat > /dev/null\nprintf '%s' '${JSON.stringify(answer)}'\n`);
      config(`[[hooks]]\nevent = "pre_tool_use"\nmatcher = "bash"\ncommand = "sh ${join(home, 'rewrite.sh')}"\n`);
      llm.enqueue('anthropic', call('bash', { command: 'echo as-the-model-wrote > out.txt' }), text('Written.'));
    },
    async run(session, { llm, root }) {
      assert.ok((await session.prompt('Write out.txt')).ok);
      assert.equal(readFileSync(join(root, 'out.txt'), 'utf8'), 'rewritten-by-hook\n');
      assert.match(lastUserText(llm.requestsFor('anthropic')[1]!.body), /changed this call's arguments to \{\\"command\\":\\"echo rewritten-by-hook > out\.txt\\"\}/);
      const shown = session.shown();
      assert.match(shown, /changed the arguments of the bash call/, 'the person is told');
      // The call's line, card or title (a JSON event, an ACP tool call, a chat card) is the rewritten call, never the model's.
      assert.match(shown, /"(summary|title)":"(Running |Ran )?echo rewritten-by-hook > out\.txt"/, 'the rewritten call is shown');
      assert.doesNotMatch(shown, /"(summary|title)":"(Running |Ran )?echo as-the-model-wrote/);
    },
  },
  {
    name: "a prompt's spans reach the OTLP endpoint of config.toml",
    setup: ({ llm, config, otlpEndpoint }) => {
      config(`[telemetry]\notlp_endpoint = "${otlpEndpoint}"\n`);
      llm.enqueue('anthropic', text('Traced.'));
    },
    async run(session, world) {
      assert.ok((await session.prompt('Say something')).ok);
      await session.close();
      await until(() => /"name":"prompt build"/.test(world.exported()), 'the prompt span at the receiver', 10_000);
      assert.match(world.exported(), /"name":"chat claude-sonnet-4-6"/);
    },
  },
];

describe('front-door parity: every capability through crow run, crow acp and the VS Code chat', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let receiver: Server;
  let received: string[];
  let otlpEndpoint: string;

  before(async () => {
    llm = await FakeLlmServer.start();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(body);
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    otlpEndpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  });
  after(async () => {
    await llm.close();
    await new Promise((done) => receiver.close(done));
  });

  for (const scenario of SCENARIOS) {
    for (const door of DOORS) {
      it(`${scenario.name} — ${door.name}`, async () => {
        llm.reset();
        received = [];
        const home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-parity-home-')));
        const root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-parity-ws-')));
        mkdirSync(userConfigDir(home), { recursive: true });
        let toml = '';
        const world: World = {
          llm,
          root,
          home,
          otlpEndpoint,
          config: (more) => {
            toml += more;
            writeFileSync(join(userConfigDir(home), 'config.toml'), toml);
          },
          exported: () => received.join('\n'),
        };
        scenario.setup?.(world);
        const session = await door.open(root, home, { ANTHROPIC_API_KEY: PARITY_KEY, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
        try {
          await scenario.run(session, world);
        } finally {
          await session.close().catch(() => undefined);
          rmSync(home, { recursive: true, force: true });
          rmSync(root, { recursive: true, force: true });
        }
      });
    }
  }
});
