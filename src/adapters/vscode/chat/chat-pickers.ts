/**
 * The chat's agent, model and thinking pickers, in the view and from the
 * Pick Agent and Pick Model commands: what the open session offers (VS
 * Code's own models among them), a pick applied to the session, and the
 * view told what is now chosen.
 */
import type { CompositionRole, RoleModels } from '../../../agents/role-models';
import type { HostMessage, RoleModelChoice, WebviewMessage } from '../../../../webview/chat/protocol';
import { VSCODE_PROVIDER } from '../configuration';
import type { ViewActions } from './chat-actions';
import type { ChatHost, ChatSession } from './chat-session';
import { pickerChoices, vscodePick } from './model-choices';

type PickMessage = Extract<WebviewMessage, { type: 'pick_agent' | 'pick_model' | 'pick_thinking' }>;

export interface PickersParts {
  host: ChatHost;
  post: (message: HostMessage) => void;
  actions: ViewActions;
  /** The session on screen, if one is open yet. */
  current: () => ChatSession | undefined;
  /** The session on screen, opened (or waited for) if need be. */
  session: () => Promise<ChatSession>;
}

export class ChatPickers {
  constructor(private readonly parts: PickersParts) {}

  /** A pick made in the view or by a command; the view is told what is chosen now. */
  async handle(message: PickMessage): Promise<void> {
    const chat = await this.parts.session();
    if (message.type === 'pick_agent') await chat.setAgent(message.agent);
    else if (message.type === 'pick_thinking') await chat.setThinking(message.level);
    else {
      const vscodeModel = vscodePick(message.model);
      if (vscodeModel !== undefined) await this.parts.actions.useRoleProvider(message.role, VSCODE_PROVIDER);
      await chat.setModel(message.role, vscodeModel ?? message.model);
    }
    await this.announce();
  }

  /** The agents offered and the open session's, for the Pick Agent command. */
  async agentChoices(): Promise<{ agents: { name: string; description: string }[]; current: string }> {
    const chat = await this.parts.session();
    return { agents: (await chat.choices()).agents, current: chat.session.agentName };
  }

  async modelChoicesNow(): Promise<RoleModelChoice[]> {
    return this.choices((await (await this.parts.session()).choices()).models);
  }

  /** Each role's models as the pickers list them: VS Code's own beside the provider's. */
  choices(models: RoleModels[]): RoleModelChoice[] {
    return pickerChoices(models, this.parts.host.configuration().vscodeModels ?? []);
  }

  /** Tells the view what the open session offers and has chosen. */
  async announce(): Promise<void> {
    // A reset announces the session it has just opened (asking for the session would wait for that reset).
    const chat = this.parts.current() ?? (await this.parts.session());
    const { agents, models, thinking, welcome } = await chat.choices();
    this.parts.post({ type: 'agents', agents, agent: chat.session.agentName, models: this.choices(models), ...(thinking ? { thinking } : {}), welcome });
  }
}

/** A pick to make, as the Pick Agent and Pick Model commands give it. */
export type Pick = { agent: string } | { role: CompositionRole; model: string };
