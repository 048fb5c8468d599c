/**
 * What a person's clicks put back in one session, as the chat's buttons ask
 * it (Undo, Restore, per-file and per-hunk Keep/Undo): the views of the
 * journal those buttons read, and the restores they apply. No question goes
 * through the permission gate: the click was the answer. Everything is
 * refused while a prompt runs, so a restore never races the agents.
 */
import type { SessionUndo } from '../journal/session-undo';
import type { PromptHunk } from '../journal/hunk-restore';
import type { ACPSession } from '../session/acp-session';
import { restoredNote, tellAgents } from '../session/agent-notes';
import type { ChangedFile } from '../vocabulary/changed-file';
import { errorText } from '../vocabulary/text';
import { HostError } from './host-error';
import { type PlannedRestore, planRestore, type RestoreRequest } from './restore-commands';
import type { HostSessionOptions } from './session-options';

/** What the restores need of their session. */
export interface RestoreOwner {
  readonly session: ACPSession;
  readonly options: HostSessionOptions;
  /** The session's undo recording; undefined when undo is off. */
  readonly undo: SessionUndo | undefined;
  /** Whether a prompt runs (see HostSession.busy), asked at each call. */
  busy(): boolean;
  /** Stores the session (after a rewound conversation). */
  save(): void;
}

export class SessionRestores {
  constructor(private readonly owner: RestoreOwner) {}

  /** What the session's last prompt changed, from its journal (see journal/prompt-changes.ts); undefined without undo or before a prompt. */
  async promptChanges(signal: AbortSignal): Promise<ChangedFile[] | undefined> {
    if (this.owner.busy()) return undefined;
    return this.owner.undo?.promptChanges(signal);
  }

  /** The hunks of what the last prompt changed in `path`, from its journal; [] without undo, while a prompt runs, or for a file it did not change. */
  async promptHunks(path: string, signal: AbortSignal): Promise<PromptHunk[]> {
    if (this.owner.busy() || !this.owner.undo) return [];
    return this.owner.undo.promptHunks(path, signal);
  }

  /**
   * Puts back one hunk of what the last prompt changed in `path` (a
   * person's click): says what was done, or why nothing was.
   */
  async undoHunk(path: string, id: string, signal: AbortSignal): Promise<{ restored: boolean; message: string }> {
    const { undo, session } = this.owner;
    if (this.owner.busy()) return { restored: false, message: 'Crow is still working: stop the running prompt first, then undo.' };
    if (!undo) return { restored: false, message: 'Undo is off for this session, so there is nothing recorded to put back.' };
    try {
      const plan = await undo.planHunkUndo(path, id, signal);
      const applied = await plan.apply(signal);
      if (applied.length > 0) tellAgents(session, restoredNote(`undid one change of the last prompt to ${path}`, [path]));
      return { restored: true, message: `Undone: that change to ${path} is back as it was.` };
    } catch (err) {
      return { restored: false, message: `Nothing was put back: ${errorText(err)}.` };
    }
  }

  /**
   * Plans a restore a person asked for by a click (the chat's Undo and
   * Restore). Refused (HostError) while a prompt runs or without undo
   * recording; the plan's apply stores the session (a rewound
   * conversation) once it is done.
   */
  async planRestore(request: RestoreRequest, signal: AbortSignal): Promise<PlannedRestore> {
    const { options, undo, session } = this.owner;
    if (this.owner.busy()) throw new HostError('busy', 'Crow is still working: stop the running prompt first, then undo or restore.');
    if (!options.undo) throw new HostError('usage', 'Undo is off for this session, so there is nothing recorded to put back.');
    const scope = { session, workspaceRoot: options.workspace.root, dataHome: options.undo.dataHome, env: options.env, ...(undo ? { undo } : {}) };
    const planned = await planRestore(scope, request, signal);
    return {
      ...planned,
      apply: async (applySignal) => {
        if (this.owner.busy()) throw new HostError('busy', 'A prompt started meanwhile: nothing was restored; stop it first.');
        const outcome = await planned.apply(applySignal);
        this.owner.save();
        return outcome;
      },
    };
  }
}
