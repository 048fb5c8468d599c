import { resolve } from 'node:path';
import * as vscode from 'vscode';
import { t } from './l10n';
import type { Actor, TranscriptEvent } from '../../../webview/chat/protocol';
import type { AskFn, PermissionAnswer, PermissionReply, PermissionRequest } from '../../tools/permissions';
import type { ChatSession } from './chat/chat-session';
import { participantRequest } from './participant-request';

export const PARTICIPANT_ID = 'crow.agent';

/** What the participant needs from the extension; the engine loads on the first request. */
export interface ParticipantDeps {
  root(): string | undefined;
  /** A new session on `agent` (the settings' default when absent), asking approvals with `ask`. */
  startSession(ask: AskFn, agent?: string): Promise<ChatSession>;
  /** The agents a person can pick, for `/agent` commands. */
  agentNames(): Promise<string[]>;
  iconPath: vscode.Uri;
}

/**
 * `@crow` in VS Code's own chat. Each conversation is a Crow session (a new
 * one when the chat's history is empty, else the conversation's own);
 * `/NAME` runs an agent (autonomy level) or one of Crow's slash commands:
 * the slash list offers the few a person uses, any other agent is reached
 * by typing its name (see participant-request.ts).
 * Answers stream as markdown, steps as progress, changed files as
 * references, and each answer ends with a button that opens its trace.
 */
export function registerParticipant(deps: ParticipantDeps): vscode.Disposable {
  const conversations = new Conversations();
  const handler: vscode.ChatRequestHandler = async (request, context, stream, token) => {
    const root = deps.root();
    if (root === undefined) {
      stream.markdown(t('Open a folder first: Crow works on the files of a workspace folder.'));
      return {};
    }
    const agents = await deps.agentNames();
    const { agent, text } = participantRequest(request.command, request.prompt, agents);
    const chat = await conversations.sessionFor(context, () => deps.startSession(modalAsk, agent));
    if (agent !== undefined && chat.session.agentName !== agent) await chat.setAgent(agent);
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort());
    const render = new StreamRenderer(stream, root);
    try {
      await chat.prompt(text, { onEvent: (event) => render.event(event), onMeter: () => undefined }, controller.signal);
    } catch (err) {
      stream.markdown(`\n\n**Crow could not run this prompt:** ${err instanceof Error ? err.message : String(err)}`);
    }
    // A quiet link, not a primary button under every answer.
    const trace = new vscode.MarkdownString(`\n\n[Show trace](command:crow.showTrace?${encodeURIComponent(JSON.stringify([chat.id]))} "Everything the agents did for this answer")`);
    trace.isTrusted = { enabledCommands: ['crow.showTrace'] };
    stream.markdown(trace);
    return { metadata: { crowSession: chat.id } };
  };
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = deps.iconPath;
  return vscode.Disposable.from(participant, { dispose: () => void conversations.closeAll() });
}

/** The Crow session of each chat conversation, found through the session id an earlier answer carried. */
class Conversations {
  private readonly sessions = new Map<string, ChatSession>();

  async sessionFor(context: vscode.ChatContext, start: () => Promise<ChatSession>): Promise<ChatSession> {
    for (const turn of [...context.history].reverse()) {
      const id = turn instanceof vscode.ChatResponseTurn ? (turn.result.metadata as { crowSession?: unknown } | undefined)?.crowSession : undefined;
      const known = typeof id === 'string' ? this.sessions.get(id) : undefined;
      if (known) return known;
    }
    const chat = await start();
    this.sessions.set(chat.id, chat);
    return chat;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((chat) => chat.close()));
    this.sessions.clear();
  }
}

/**
 * Native chat has no inline buttons for a running request: approvals are a
 * modal question. "Edit…" (where the call can be edited) opens its
 * arguments as JSON in an input box that checks them as they are typed
 * (seed 002's Modify); an agent's own question offers Approve and Deny.
 */
const modalAsk: AskFn = async (request) => {
  const editLabel = t('Edit…');
  const edit = request.editable ? [editLabel] : [];
  const deny = t('Deny');
  if (request.question) {
    const detail = request.question.details ?? '';
    const approve = t('Approve');
    const choice = await vscode.window.showWarningMessage(t`${request.agent} asks for your approval: ${request.title}`, { modal: true, detail }, approve, ...edit, deny);
    if (choice === editLabel) return editedReply(request);
    return choice === approve ? 'allow_once' : 'reject_once';
  }
  const detail = [request.command ?? request.paths.join(', '), t`"Always" allows ${request.alwaysScope} for this session.`].filter(Boolean).join('\n\n');
  const once = t('Allow once');
  const always = t('Always allow');
  const choice = await vscode.window.showWarningMessage(t`Crow asks: ${request.title}`, { modal: true, detail }, once, always, ...edit, deny);
  if (choice === editLabel) return editedReply(request);
  const answers: Record<string, PermissionAnswer> = { [once]: 'allow_once', [always]: 'allow_always' };
  return (choice !== undefined ? answers[choice] : undefined) ?? 'reject_once';
};

/** The arguments as the person edits them in an input box, checked while typed; Escape refuses the call. */
async function editedReply(request: PermissionRequest): Promise<PermissionReply> {
  const editable = request.editable!;
  const problem = (text: string): string | undefined => {
    try {
      return editable.check(JSON.parse(text));
    } catch (err) {
      return t`Not JSON: ${(err as Error).message}`;
    }
  };
  const text = await vscode.window.showInputBox({
    title: t`Edit, then allow: ${request.title}`,
    prompt: t('The arguments as one JSON object; Enter allows the call with them once, Escape denies it.'),
    value: JSON.stringify(editable.arguments),
    ignoreFocusOut: true,
    validateInput: problem,
  });
  if (text === undefined || problem(text) !== undefined) return 'reject_once';
  return { modified: JSON.parse(text) as Record<string, unknown> };
}

/** Writes transcript events into a native chat response. */
class StreamRenderer {
  /** Who spoke last, so another agent's words get a heading. */
  private speaker: string | undefined;
  /** Files the prompt changed, listed as anchors under the answer. */
  private readonly changed = new Set<string>();

  constructor(
    private readonly stream: vscode.ChatResponseStream,
    private readonly root: string,
  ) {}

  event(event: TranscriptEvent): void {
    switch (event.type) {
      case 'text_delta':
        if (event.actor.role !== 'primary' && this.speaker !== event.actor.agent) this.stream.markdown(`\n\n**${speakerName(event.actor)}:**\n\n`);
        if (event.actor.role === 'primary' && this.speaker !== undefined && this.speaker !== event.actor.agent) this.stream.markdown('\n\n');
        this.speaker = event.actor.agent;
        this.stream.markdown(event.delta);
        return;
      case 'thinking_delta':
        return;
      case 'tool_start':
        this.speaker = undefined;
        this.stream.progress(`${event.actor.role === 'primary' ? '' : `${speakerName(event.actor)}: `}${(event.words ? `${event.words.doing} ${event.words.target}` : `${event.tool} ${event.title}`).trim()}`);
        return;
      // Each progress() call adds a line to the native chat: a running call's updates would flood it (the chat view shows them).
      case 'tool_progress':
        return;
      case 'tool_end':
        for (const file of event.files) {
          this.stream.reference(vscode.Uri.file(resolve(this.root, file)));
          this.changed.add(file);
        }
        if (event.denied) this.stream.progress(event.denied === 'person' ? t('Not allowed: you said no.') : t('Not allowed by your settings.'));
        else if (event.status === 'failed') this.stream.progress(t`A step failed: ${firstLine(event.output)}`);
        return;
      case 'plan':
        this.stream.progress(t`Plan: ${event.entries.map((entry) => `${mark(entry.status)} ${entry.content}`).join(' · ')}`);
        return;
      case 'handoff':
        return;
      case 'subagent':
        this.stream.progress(`${event.subagent}: ${firstLine(event.text)}`);
        return;
      case 'review_start':
        this.stream.progress(event.round === 1 ? t('The reviewer checks the work') : t`Review ${event.round}: the reviewer checks the changes`);
        return;
      case 'verdict':
        this.speaker = undefined;
        if (event.verdict === 'feedback') this.stream.markdown(`\n\n**${t('Reviewer asked for changes:')}**\n\n${event.summary}\n\n`);
        if (event.verdict === 'approved') this.stream.markdown(`\n\n**${t('Reviewer approved.')}**${event.summary.trim() ? `\n\n${event.summary}` : ''}\n\n`);
        return;
      case 'notice':
        if (event.level === 'info') this.stream.progress(event.text);
        else this.stream.markdown(`\n\n> **${event.level === 'error' ? 'Error' : 'Warning'}:** ${event.text}\n\n`);
        return;
      case 'prompt_end':
        this.listChanged();
        if (event.status !== 'needs_input' && event.status !== 'completed' && event.message) this.stream.markdown(`\n\n_${event.message}_`);
        if (event.status === 'completed' && event.message) this.stream.markdown(`\n\n✓ ${event.message}`);
        return;
      case 'user_message':
        return;
    }
  }

  private listChanged(): void {
    if (this.changed.size === 0) return;
    this.stream.markdown('\n\nChanged: ');
    [...this.changed].forEach((file, index) => {
      if (index > 0) this.stream.markdown(', ');
      this.stream.anchor(vscode.Uri.file(resolve(this.root, file)), file);
    });
  }
}

/** Who speaks, for a heading: the reviewer by its role, a helper by its name. */
function speakerName(actor: Actor): string {
  return actor.role === 'reviewer' ? 'Reviewer' : actor.agent;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function mark(status: string): string {
  return status === 'completed' ? '✓' : status === 'in_progress' ? '…' : '○';
}
