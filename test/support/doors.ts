/**
 * The three front doors, each driven as its user drives it, behind one small
 * interface, so one table of scenarios can run through all of them: the real
 * `crow` binary, the real `crow acp` binary with the SDK's client, and the
 * VS Code chat controller (the chat view's host side, plain Node).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { ChatController as Controller } from '../../src/adapters/vscode/chat/chat-controller';
import { dataHome } from '../../src/config/paths';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { CROW, type CrowProcess, runCrow, startAcp, startCrow, until } from './crow-binary';
import { Terminal } from './terminal';
import { isolatedEnv } from './isolated-env';
import { quietViewActions } from './view-actions';
import { folderChatHost } from './chat-host';

/** How a prompt ended, as the door says it, and the answer text it showed. */
export interface DoorRun {
  ok: boolean;
  /** The door's own word for how it ended (an exit status, a stop reason, the chat's prompt end). */
  ended: string;
  text: string;
}

export interface DoorSession {
  prompt(text: string, options?: { agent?: string }): Promise<DoorRun>;
  /** Sends `text` and cancels it once `started()` holds. */
  promptThenCancel(text: string, started: () => boolean): Promise<DoorRun>;
  /** Undoes this session's last prompt, the door's own way. */
  undo(): Promise<DoorRun>;
  /** Rewinds the session to its checkpoint `number` (as crow sessions checkpoints numbers them), the door's own way. */
  rewind(number: number, mode: 'both' | 'files' | 'conversation'): Promise<DoorRun>;
  /** Branches a new session at checkpoint `number` (of a prompt) and sends `text` there; later prompts go to the branch. */
  forkAndPrompt(number: number, text: string): Promise<DoorRun>;
  /** Sends `text`, then `line` as a person types while it works, once `started()` holds; how the prompt ended. */
  promptThenSteer(text: string, line: string, started: () => boolean): Promise<DoorRun>;
  /** Everything the door has shown so far, as text (JSON lines, session updates, view messages): what a prompt showed while it ran. */
  shown(): string;
  close(): Promise<void>;
}

export interface Door {
  name: string;
  /** A session in `root` for a user whose config, data and state live under `home`, with `env` besides. */
  open(root: string, home: string, env: Record<string, string>): Promise<DoorSession>;
}

/** `crow run` per prompt (continuing the folder's session), `crow undo --yes`, Ctrl-C to cancel. */
export const cliDoor: Door = {
  name: 'crow run',
  async open(root, home, extra) {
    const env = isolatedEnv(home, extra);
    let started = false;
    const args = (text: string, agent?: string): string[] => [
      'run',
      text,
      '--json',
      '--allow',
      'all',
      ...(started ? ['--continue'] : []),
      ...(agent ? ['--agent', agent] : []),
    ];
    const outcome = (code: number | null, stdout: string): DoorRun => {
      started = true;
      const events = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; delta?: string });
      const text = events.flatMap((event) => (event.type === 'text_delta' ? [event.delta ?? ''] : [])).join('');
      return { ok: code === 0, ended: `exit ${code}`, text };
    };
    const runs: CrowProcess[] = [];
    const start = (argv: string[]): CrowProcess => {
      const crow = startCrow(argv, env, root);
      runs.push(crow);
      return crow;
    };
    return {
      async prompt(text, options = {}) {
        const crow = start(args(text, options.agent));
        crow.child.stdin.end();
        const { code } = await crow.exited;
        return outcome(code, crow.stdout());
      },
      async promptThenCancel(text, isStarted) {
        const crow = start(args(text));
        await until(isStarted, 'the command to start', 20_000);
        crow.child.kill('SIGINT');
        const { code } = await crow.exited;
        // Cancelled by Ctrl-C is exit 130, as the README says.
        return { ...outcome(code, crow.stdout()), ok: code === 130 };
      },
      async undo() {
        const run = await runCrow(['undo', '--yes', '--cwd', root], env, root);
        return { ok: run.code === 0, ended: `exit ${run.code}`, text: run.stdout };
      },
      async rewind(number, mode) {
        const only = mode === 'both' ? [] : [`--${mode}-only`];
        const run = await runCrow(['undo', '--to', String(number), ...only, '--yes', '--cwd', root], env, root);
        return { ok: run.code === 0, ended: `exit ${run.code}`, text: run.stdout };
      },
      async forkAndPrompt(number, text) {
        const listed = await runCrow(['sessions', 'list', '--cwd', root], env, root);
        const id = /^(\S+)/.exec(listed.stdout.trim())![1]!;
        const forked = await runCrow(['sessions', 'fork', id, '--at', String(number)], env, root);
        if (forked.code !== 0) return { ok: false, ended: `exit ${forked.code}`, text: forked.stderr };
        // The branch is the folder's newest session now: --continue goes on with it afterwards.
        const crow = start(['run', text, '--json', '--allow', 'all', '--session', forked.stdout.trim()]);
        crow.child.stdin.end();
        const { code } = await crow.exited;
        return outcome(code, crow.stdout());
      },
      async promptThenSteer(text, line, isStarted) {
        // A person types on a terminal: a real one, so crow reads the line as it does for them.
        const terminal = Terminal.start([process.execPath, CROW, 'run', text, '--allow', 'all', ...(started ? ['--continue'] : [])], { cwd: root, env });
        try {
          await until(isStarted, 'the command to start', 20_000);
          terminal.typeLine(line);
          await until(() => terminal.exitStatus() !== undefined, 'crow run to end', 30_000);
          started = true;
          const code = terminal.exitStatus()!;
          return { ok: code === 0, ended: `exit ${code}`, text: terminal.screen() };
        } finally {
          terminal.close();
        }
      },
      shown: () => runs.map((crow) => crow.stdout()).join(''),
      close: async () => undefined,
    };
  },
};

/** `crow acp` with the SDK client: one session, approvals allowed, session/cancel, `/undo` as a prompt. */
export const acpDoor: Door = {
  name: 'crow acp',
  async open(root, home, env) {
    const agent = startAcp(root, home, env, { permission: () => 'allow_once' });
    await agent.client.initialize();
    let { sessionId } = await agent.client.newSession(root);
    const said = (): string => agent.client.said(sessionId);
    const send = async (text: string): Promise<DoorRun> => {
      const before = said().length;
      const answer = await agent.client.prompt(sessionId, text);
      return { ok: answer.stopReason === 'end_turn', ended: answer.stopReason, text: said().slice(before) };
    };
    return {
      async prompt(text, options = {}) {
        if (options.agent) await agent.client.agent.request('session/set_mode', { sessionId, modeId: options.agent });
        return send(text);
      },
      async promptThenCancel(text, isStarted) {
        const before = said().length;
        const answer = agent.client.prompt(sessionId, text);
        await until(isStarted, 'the command to start', 20_000);
        await agent.client.cancel(sessionId);
        const { stopReason } = await answer;
        return { ok: stopReason === 'cancelled', ended: stopReason, text: said().slice(before) };
      },
      undo: () => send('/undo'),
      rewind: (number, mode) => send(`/rewind ${number} ${mode}`),
      async forkAndPrompt(number, text) {
        const forked = await agent.client.agent.request<{ sessionId: string }>('session/fork', { sessionId, cwd: root, mcpServers: [], _meta: { 'crow/checkpoint': number } });
        sessionId = forked.sessionId;
        return send(text);
      },
      async promptThenSteer(text, line, isStarted) {
        const before = said().length;
        const first = agent.client.prompt(sessionId, text);
        await until(isStarted, 'the command to start', 20_000);
        // A second session/prompt while the first runs: queued for its next step, answered when that run ends.
        const second = await agent.client.prompt(sessionId, line);
        const { stopReason } = await first;
        return { ok: stopReason === 'end_turn' && second.stopReason === 'end_turn', ended: stopReason, text: said().slice(before) };
      },
      shown: () => JSON.stringify(agent.client.notifications),
      close: async () => void (await agent.stop()),
    };
  },
};

/** The chat view's controller on the node workspace: messages as the webview posts them, approvals allowed. */
export const vscodeDoor: Door = {
  name: 'VS Code chat',
  async open(root, home, extra) {
    const env = isolatedEnv(home, extra);
    mkdirSync(dataHome(env), { recursive: true });
    const posted: HostMessage[] = [];
    const host = folderChatHost(root, env);
    let controller: ChatController;
    const post = (message: HostMessage): void => {
      posted.push(structuredClone(message));
      if (message.type === 'approval') void controller.handle({ type: 'approve', id: message.request.id, decision: 'allow_once' });
    };
    controller = new Controller(host, post, quietViewActions());
    const events = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
    const outcome = (from: number): DoorRun => {
      const shown = events().slice(from);
      const end = shown.filter((event) => event.type === 'prompt_end').at(-1);
      const text = shown.flatMap((event) => (event.type === 'text_delta' && event.actor.role === 'primary' ? [event.delta] : [])).join('');
      const ended = end?.type === 'prompt_end' ? end.status : 'no end';
      return { ok: ended === 'completed' || ended === 'needs_input', ended, text };
    };
    const send = async (text: string): Promise<DoorRun> => {
      const from = events().length;
      await controller.handle({ type: 'send', text });
      return outcome(from);
    };
    /** The id of the session's checkpoint `number`, as the view got them (in order). */
    const checkpointId = (number: number): string => {
      const shown = events().flatMap((event) => (event.type === 'checkpoint' ? [event.id] : []));
      const id = shown[number - 1];
      if (id === undefined) throw new Error(`the view shows ${shown.length} checkpoints, not #${number}`);
      return id;
    };
    return {
      async prompt(text, options = {}) {
        if (options.agent) await controller.pick({ agent: options.agent });
        return send(text);
      },
      async promptThenCancel(text, isStarted) {
        const from = events().length;
        const sent = controller.handle({ type: 'send', text });
        await until(isStarted, 'the command to start', 20_000);
        await controller.handle({ type: 'cancel' });
        await sent;
        const run = outcome(from);
        return { ...run, ok: run.ended === 'cancelled' };
      },
      undo: () => send('/undo'),
      async rewind(number, mode) {
        // The view's Restore acts on the click: no prompt runs, the host answers with how it went.
        await controller.handle({ type: 'restore', checkpoint: checkpointId(number), mode });
        const restored = posted.findLast((message) => message.type === 'restored');
        const ended = restored?.type === 'restored' ? restored.outcome : 'no answer';
        return { ok: ended === 'restored', ended, text: restored?.type === 'restored' ? restored.message : '' };
      },
      async forkAndPrompt(number, text) {
        // Editing a past message: the view's Edit on the message that checkpoint `number` comes before.
        await controller.handle({ type: 'edit_message', checkpoint: checkpointId(number), text });
        return outcome(events().findLastIndex((event) => event.type === 'user_message'));
      },
      async promptThenSteer(text, line, isStarted) {
        const from = events().length;
        const sent = controller.handle({ type: 'send', text });
        await until(isStarted, 'the command to start', 20_000);
        await controller.handle({ type: 'send', text: line });
        await sent;
        await until(() => !controller.busy, 'the queued message to be taken', 20_000);
        return outcome(from);
      },
      shown: () => JSON.stringify(posted),
      close: () => controller.dispose(),
    };
  },
};

export const DOORS: readonly Door[] = [cliDoor, acpDoor, vscodeDoor];

/** Where a door keeps its user's config (crow-agent/ below it). */
export function userConfigDir(home: string): string {
  return join(home, 'config', 'crow-agent');
}
