import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { version } from '../../package.json';

const CROW = resolve(__dirname, '../../dist/crow.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built binary with a clean, isolated environment. */
function crow(
  args: string[],
  env: Record<string, string> = {},
  onStarted?: (child: ReturnType<typeof spawn>, output: { stderr: string }) => void,
  sharedHome?: string,
): Promise<Run> {
  const home = sharedHome ?? mkdtempSync(join(tmpdir(), 'crow-home-'));
  const child = spawn(process.execPath, [CROW, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH!, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  onStarted?.(child, output);
  return new Promise((done) =>
    child.on('close', (code) => {
      if (!sharedHome) rmSync(home, { recursive: true, force: true });
      done({ code, ...output });
    }),
  );
}

describe('crow binary', () => {
  let server: FakeLlmServer;
  let workspace: string;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-ws-'));
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('prints help and version', async () => {
    const help = await crow(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /crow run "<prompt>"/);
    const ver = await crow(['--version']);
    assert.equal(ver.stdout.trim(), version);
    const runHelp = await crow(['run', '--help']);
    assert.match(runHelp.stdout, /--cwd DIR/);
  });

  it('rejects unknown commands and flags with a clear message', async () => {
    const unknown = await crow(['fly']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown command "fly"/);
    const badFlag = await crow(['run', '--wat', 'hi']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /--wat/);
    const noPrompt = await crow(['run', '--cwd', workspace]);
    assert.equal(noPrompt.code, 2);
    assert.match(noPrompt.stderr, /needs a prompt/);
  });

  it('names the missing API key variable', async () => {
    const run = await crow(['run', 'hi', '--cwd', workspace, '--provider', 'anthropic']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /ANTHROPIC_API_KEY/);
    const typo = await crow(['run', 'hi', '--cwd', workspace, '--provider', 'antropic']);
    assert.match(typo.stderr, /Did you mean "anthropic"/);
  });

  it('runs a multi-step task over the Anthropic API: answer on stdout, work on stderr', async () => {
    writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    server.enqueue(
      'anthropic',
      {
        blocks: [
          { type: 'thinking', text: 'Read it first.' },
          { type: 'tool_call', name: 'read_file', arguments: { path: 'notes.txt' } },
        ],
        usage: { input: 100, output: 20, cacheWrite: 50 },
      },
      {
        blocks: [
          { type: 'tool_call', name: 'write_file', arguments: { path: 'out/summary.txt', content: 'two lines\n' } },
          { type: 'tool_call', name: 'bash', arguments: { command: 'cat out/summary.txt' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'The file has two lines: alpha and beta.' }], usage: { input: 10, output: 12, cacheRead: 50 } },
    );
    const run = await crow(['run', 'Summarise notes.txt', '--cwd', workspace, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'write,execute'], {
      ANTHROPIC_API_KEY: 'test-key-123',
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    });

    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'The file has two lines: alpha and beta.');
    assert.match(run.stderr, /Read it first\./);
    assert.match(run.stderr, /● Reading notes\.txt/);
    assert.match(run.stderr, /● Writing/);
    assert.match(run.stderr, /● Running cat out\/summary\.txt/);
    assert.match(run.stderr, /✓/);
    assert.match(run.stderr, /3 tool calls/);
    assert.doesNotMatch(run.stdout + run.stderr, /test-key-123/, 'the key is never printed');
    assert.equal(readFileSync(join(workspace, 'out/summary.txt'), 'utf8'), 'two lines\n');

    const requests = server.requestsFor('anthropic');
    assert.equal(requests.length, 3);
    assert.equal(requests[0]!.body.model, 'claude-test');
    assert.match(JSON.stringify(requests[1]!.body.messages), /alpha/, 'the real file content went back to the model');
  });

  it('runs over the OpenAI API and prints events as JSON lines with --json', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Hi from the fake model.' }] });
    const run = await crow(['run', 'Say hi', '--cwd', workspace, '--json'], {
      CROW_PROVIDER: 'openai',
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: server.openaiBaseUrl,
    });
    assert.equal(run.code, 0, run.stderr);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(events[0].type, 'session_start');
    assert.deepEqual(events[1], { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Say hi' }] });
    assert.equal(events[2].type, 'checkpoint', 'a checkpoint before the prompt reaches the agents');
    assert.equal(events[2].checkpoint.kind, 'prompt');
    assert.equal(events[3].type, 'turn_start');
    assert.deepEqual(events.at(-1), {
      type: 'run_complete',
      agent: 'build',
      status: 'needs_input',
      message: 'builder finished its turn; your move.',
      sessionId: events[0].sessionId,
    });
    assert.ok(events.some((e) => e.type === 'turn_complete' && e.agent === 'builder' && e.reason === 'answered'));
    assert.equal(events.find((e) => e.type === 'text_complete').text, 'Hi from the fake model.');
  });

  it('exits 1 with a clear message when the provider fails', async () => {
    server.enqueue('openai', { kind: 'http_error', status: 401, message: 'invalid key' });
    const run = await crow(['run', 'Hi', '--cwd', workspace], {
      CROW_PROVIDER: 'openai',
      OPENAI_API_KEY: 'wrong',
      OPENAI_BASE_URL: server.openaiBaseUrl,
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /OPENAI_API_KEY/);
  });

  it('says why an answer stopped short: the model refused, or hit its output limit', async () => {
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'I cannot' }], stopReason: 'refusal' });
    const refused = await crow(['run', 'Do the questionable thing', '--cwd', workspace], env);
    assert.equal(refused.code, 0, 'the person has the turn');
    assert.match(refused.stderr, /⚠ builder: The model declined to continue .* rephrase the request, or start a new session/);

    const home = mkdtempSync(join(tmpdir(), 'crow-home-'));
    try {
      mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), 'max_output_tokens = 5\n');
      server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'A very long answer that goes on and on' }], chunkSize: 1 });
      const capped = await crow(['run', 'Explain everything', '--cwd', workspace], env, undefined, home);
      assert.equal(capped.code, 0);
      assert.equal(capped.stdout.trim(), 'A ver', 'the server stopped at the cap');
      assert.match(capped.stderr, /⚠ builder: The model reached its output token limit before finishing its answer\./);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('cancels cleanly on Ctrl-C (SIGINT) while the model streams', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Starting a long answer...' }], fault: { kind: 'stall_after', events: 4 } });
    const run = await crow(
      ['run', 'Talk', '--cwd', workspace, '--provider', 'anthropic'],
      { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl },
      (child) => {
        const poll = setInterval(() => {
          if (server.requestsFor('anthropic').length > 0) {
            clearInterval(poll);
            setTimeout(() => child.kill('SIGINT'), 200);
          }
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    );
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /Cancelling/);
    assert.equal(run.stderr.match(/⚠ Cancelled while builder was working\. All work so far is kept/g)?.length, 1, `one line tells the cancel:\n${run.stderr}`);
    assert.doesNotMatch(run.stderr, /Work done so far is kept/, 'not told twice');
  });

  it('denies writes and commands when nobody can approve them, saying how to allow them', async () => {
    server.enqueue(
      'anthropic',
      {
        blocks: [
          { type: 'tool_call', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
          { type: 'tool_call', name: 'bash', arguments: { command: 'touch y.txt' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'I was not allowed.' }] },
    );
    // Commands ask only when execute says so: in the sandbox they would run without asking.
    const config = mkdtempSync(join(tmpdir(), 'crow-config-'));
    mkdirSync(join(config, 'crow-agent'));
    writeFileSync(join(config, 'crow-agent/config.toml'), '[permissions]\nexecute = "ask"\n');
    const run = await crow(['run', 'Make files', '--cwd', workspace, '--provider', 'anthropic'], {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      XDG_CONFIG_HOME: config,
    });
    rmSync(config, { recursive: true, force: true });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /non-interactive run\. To allow it, pass --allow write/);
    assert.match(run.stderr, /pass --allow execute/);
    assert.match(
      run.stderr,
      /⊘ Not allowed: run touch y\.txt · Permission needed for Run: touch y\.txt, and nobody can be asked in this non-interactive run\. To allow it, pass --allow execute \(or set permissions\.execute = "allow" in \.crow\/config\.toml\)\.[^…\n]* \S+\n/,
      'the hint is whole, not cut mid-sentence',
    );
    assert.deepEqual(readdirSync(workspace), [], 'nothing was written or run');
    const toolResults = JSON.stringify(server.requestsFor('anthropic')[1]!.body.messages);
    assert.match(toolResults, /Permission needed/, 'the model is told why');
  });

  it('runs commands the config allow-lists without asking', async () => {
    mkdirSync(join(workspace, '.crow'));
    writeFileSync(join(workspace, '.crow/config.toml'), '[permissions]\nexecute = "ask"\nallow_commands = ["echo"]\n');
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo allowed' } }] },
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo sneaky; touch z.txt' } }] },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const home = mkdtempSync(join(tmpdir(), 'crow-home-'));
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    // The project's allow-list widens what the agent may do: it counts once the folder is trusted.
    const trust = await crow(['trust', '--cwd', workspace, '--yes'], env, undefined, home);
    assert.equal(trust.code, 0, trust.stderr);
    assert.match(trust.stdout, /permissions\.allow_commands: runs these commands without asking: "echo"/);
    const run = await crow(['run', 'Echo', '--cwd', workspace, '--provider', 'anthropic'], env, undefined, home);
    rmSync(home, { recursive: true, force: true });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /✓ Ran echo allowed \S+ · allowed/);
    assert.match(run.stderr, /Permission needed for Run: echo sneaky; touch z\.txt/);
    assert.ok(!existsSync(join(workspace, 'z.txt')), 'a chained command is not covered by the prefix');
  });

  it('undoes what the last prompt changed, after showing what will change', async () => {
    writeFileSync(join(workspace, 'keep.txt'), 'original\n');
    server.enqueue(
      'anthropic',
      {
        blocks: [
          { type: 'tool_call', name: 'write_file', arguments: { path: 'keep.txt', content: 'changed by the agent\n' } },
          { type: 'tool_call', name: 'write_file', arguments: { path: 'new.txt', content: 'new\n' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'Changed.' }] },
    );
    const home = mkdtempSync(join(tmpdir(), 'crow-home-'));
    try {
      const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
      const run = await crow(['run', 'Change things', '--cwd', workspace, '--provider', 'anthropic', '--allow', 'write'], env, undefined, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(readFileSync(join(workspace, 'keep.txt'), 'utf8'), 'changed by the agent\n');

      const preview = await crow(['undo', '--cwd', workspace], {}, undefined, home);
      assert.equal(preview.code, 2, 'without a terminal it only previews');
      assert.match(preview.stdout, /keep\.txt/);
      assert.match(preview.stdout, /new\.txt/);
      assert.match(preview.stderr, /--yes/);
      assert.equal(readFileSync(join(workspace, 'keep.txt'), 'utf8'), 'changed by the agent\n', 'a preview changes nothing');

      const undo = await crow(['undo', '--cwd', workspace, '--yes'], {}, undefined, home);
      assert.equal(undo.code, 0, undo.stderr);
      assert.equal(readFileSync(join(workspace, 'keep.txt'), 'utf8'), 'original\n');
      assert.ok(!existsSync(join(workspace, 'new.txt')));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('runs a reviewed agent and continues the same session with --continue', async () => {
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'x.txt', content: 'x\n' } }] },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Wrote x.txt.' } }] },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'x.txt is there: approved.' } }] },
      { blocks: [{ type: 'text', text: 'It contains x.' }] },
    );
    const home = mkdtempSync(join(tmpdir(), 'crow-home-'));
    try {
      const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
      const first = await crow(['run', 'Write x.txt', '--cwd', workspace, '--agent', 'pair', '--allow', 'write', '--no-undo'], env, undefined, home);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /⇄ First review: the reviewer checks the work/);
      assert.match(first.stderr, /✓ Reviewer approved/);
      assert.match(first.stderr, /✔ Task complete: x\.txt is there: approved\./);
      const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1];
      assert.ok(id, 'the session id is shown');

      const second = await crow(['run', 'What does it contain?', '--cwd', workspace, '--continue', '--agent', 'build', '--no-undo'], env, undefined, home);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout.trim(), 'It contains x.');
      assert.match(second.stderr, new RegExp(`session ${id}`), 'the same session continued');
      const fourth = server.requestsFor('anthropic')[3]!.body;
      assert.match(JSON.stringify(fourth.messages), /Write x\.txt.*What does it contain\?/, 'the builder sees its earlier history');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('exports the trace over OTLP/HTTP when an endpoint is set', async () => {
    const bodies: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', ready));
    try {
      const { port } = receiver.address() as AddressInfo;
      server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Traced.' }], usage: { input: 5, output: 2 } });
      const run = await crow(['run', 'Hi', '--cwd', workspace, '--provider', 'anthropic', '--no-undo'], {
        ANTHROPIC_API_KEY: 'secret-key-value-123',
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
      assert.equal(run.code, 0, run.stderr);
      const exported = bodies.join('\n');
      assert.match(exported, /"name":"prompt build"/);
      assert.match(exported, /"name":"chat claude-sonnet-4-6"/);
      assert.match(exported, /gen_ai\.usage\.output_tokens/);
      assert.doesNotMatch(exported, /secret-key-value-123/);
    } finally {
      receiver.close();
    }
  });
});
