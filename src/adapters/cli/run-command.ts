import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildAgent } from '../../agents/build-agent';
import { parseCategories, policyFromConfig, withAllowed } from '../../config/permission-config';
import { resolveConfig } from '../../config/provider-config';
import type { TurnStopReason } from '../../engine/events';
import { createProvider } from '../../llm';
import { InternalSession } from '../../session/internal-session';
import { NodeWorkspace } from '../../tools/node-workspace';
import { PermissionGate } from '../../tools/permissions';
import { builtinTools } from '../../tools/registry';
import { TodoStore } from '../../tools/todos';
import { terminalAsk } from './cli-approval';
import { prepareUndo } from './undo-setup';
import { RunRenderer } from './run-renderer';
import { styleFor } from './terminal-style';
import { UsageError, type CliIO } from './cli-io';

export const RUN_HELP = `Usage: crow run [options] "<prompt>"

Runs one agent turn on the prompt in a workspace and streams it: the answer
on stdout; thinking, tool calls, retries and usage on stderr.
The prompt may also come on stdin: echo "..." | crow run -

Options:
  --cwd DIR            workspace root (default: the current folder)
  --provider NAME      anthropic | openai (default: $CROW_PROVIDER, config, anthropic)
  --model NAME         model id (default: $CROW_MODEL, config, provider default)
  --base-url URL       API base URL, e.g. http://localhost:11434/v1 for Ollama
  --max-iterations N   model calls allowed in the turn (default 50)
  --allow LIST         allow without asking: read,write,execute,network or all
                       (default: reads allowed; writes, commands and network
                       ask on a terminal and are denied when nobody can answer)
  --json               print events as JSON lines on stdout instead
  --no-undo            do not record the workspace for \`crow undo\`
  -h, --help           show this help

Keys come from ANTHROPIC_API_KEY / OPENAI_API_KEY (never from flags).
Exit codes: 0 done, 1 error, 2 bad usage or configuration,
3 stopped by a limit (iterations, doom loop, output tokens), 130 cancelled.`;

const EXIT_CODES: Record<TurnStopReason, number> = {
  answered: 0,
  task_complete: 0,
  error: 1,
  max_iterations: 3,
  doom_loop: 3,
  max_tokens: 3,
  cancelled: 130,
};

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      'max-iterations': { type: 'string' },
      allow: { type: 'string' },
      'no-undo': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  const prompt = await readPrompt(positionals, io);
  const root = workspaceRoot(values.cwd ?? io.cwd);
  const config = resolveConfig(
    root,
    {
      ...(values.provider !== undefined ? { provider: values.provider } : {}),
      ...(values.model !== undefined ? { model: values.model } : {}),
      ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    },
    io.env,
  );
  if (values['max-iterations'] !== undefined) config.maxIterations = positiveInteger('--max-iterations', values['max-iterations']);

  let policy = policyFromConfig(config.permissions);
  if (values.allow !== undefined) policy = withAllowed(policy, parseCategories(values.allow, '--allow'));
  const interactive = io.stdinIsTTY && io.stderr.isTTY === true && !values.json;
  const permissions = new PermissionGate(
    policy,
    interactive ? terminalAsk(io, styleFor(io.stderr, io.env)) : undefined,
    (category) => `pass --allow ${category} (or set "permissions": { "${category}": "allow" } in .crow/config.json)`,
  );

  const workspace = new NodeWorkspace(root);
  const agent = buildAgent({ name: 'crow', provider: createProvider(config), tools: builtinTools(), workspace, config });
  const session = new InternalSession(agent.name);
  session.addUserMessage(prompt);

  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => {
    io.stderr.write('\nCancelling… (press Ctrl-C again to quit at once)\n');
    controller.abort();
  });
  try {
    const snapshots = values['no-undo'] ? undefined : await prepareUndo(root, session.id, prompt, io, controller.signal);
    const stream = agent.executeTurn(session, {
      signal: controller.signal,
      permissions,
      todos: new TodoStore(),
      ...(snapshots ? { snapshots } : {}),
    });
    const renderer = new RunRenderer({
      out: io.stdout,
      err: io.stderr,
      outStyle: styleFor(io.stdout, io.env),
      errStyle: styleFor(io.stderr, io.env),
    });
    for await (const event of stream) {
      if (values.json) io.stdout.write(`${JSON.stringify(event)}\n`);
      else renderer.render(event);
    }
    const result = await stream.result;
    if (!values.json) renderer.finish(result);
    return EXIT_CODES[result.stopReason];
  } finally {
    stopListening();
  }
}

async function readPrompt(positionals: string[], io: CliIO): Promise<string> {
  if (positionals.length > 1) {
    throw new UsageError(`crow run takes one prompt; quote it: crow run "${positionals.join(' ')}"`);
  }
  const given = positionals[0];
  const prompt = given === '-' || (given === undefined && !io.stdinIsTTY) ? await io.readStdin() : given;
  if (prompt === undefined || prompt.trim() === '') {
    throw new UsageError('crow run needs a prompt: crow run "Fix the failing test" (see crow run --help)');
  }
  return prompt;
}

function workspaceRoot(dir: string): string {
  const root = resolve(dir);
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new UsageError(`--cwd ${dir}: no such folder. Pass an existing project folder.`);
  return root;
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}
