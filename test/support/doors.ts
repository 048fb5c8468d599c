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
import type { ChatHost } from '../../src/adapters/vscode/chat/chat-session';
import { readConfiguration } from '../../src/adapters/vscode/configuration';
import { dataHome } from '../../src/config/paths';
import { SessionStore } from '../../src/session/session-store';
import { NodeWorkspace } from '../../src/tools/node-workspace';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { type CrowProcess, runCrow, startAcp, startCrow, until } from './crow-binary';
import { isolatedEnv } from './isolated-env';

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
    const { sessionId } = await agent.client.newSession(root);
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
    const host: ChatHost = {
      root,
      dataHome: dataHome(env),
      store: new SessionStore({ dataHome: dataHome(env) }),
      env: async () => env,
      configuration: () => readConfiguration(() => undefined),
      workspace: () => new NodeWorkspace(root),
    };
    let controller: ChatController;
    const post = (message: HostMessage): void => {
      posted.push(structuredClone(message));
      if (message.type === 'approval') void controller.handle({ type: 'approve', id: message.request.id, decision: 'allow_once' });
    };
    controller = new Controller(host, post, {
      openDiff: async () => undefined,
      openFile: async () => undefined,
      showTrace: async () => undefined,
      sessionsChanged: () => undefined,
      previewChange: async () => undefined,
      openSettings: async () => undefined,
      showLog: () => undefined,
    });
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
