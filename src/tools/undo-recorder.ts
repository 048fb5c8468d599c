/**
 * Undo support as tools see it: before a state-changing call, the recorder
 * keeps what the call may change, so the prompt can be undone. File tools
 * name their files and only those are kept (cheap whatever the size of the
 * repository); commands, and tools whose effects are not known in advance,
 * are watched over the whole workspace.
 */

export interface FileChange {
  /** Workspace-relative, forward slashes. */
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

export interface UndoRecorder {
  /** Before a call changes exactly these files (workspace-relative): keeps them as they are. */
  beforeFileChanges(paths: readonly string[], signal: AbortSignal): Promise<void>;
  /** Before a command, or any call whose changes are not known in advance; the watch, after it, says what changed. */
  beforeCommand(signal: AbortSignal): Promise<CommandWatch>;
  /** A command is about to be asked for (its call is still streaming from the model): work for beforeCommand may start now. */
  expectCommand?(): void;
  /**
   * The model is being asked, and may answer with a command: the prompt's
   * record of the tree may start now, beside the model's answer, so the
   * first command of the prompt finds it made (only the first ask of a
   * prompt starts it).
   */
  beforeModelCall?(): void;
  /** A checkpoint here, before the next change: its id, by which the workspace can be restored to this moment; undefined when nothing records. */
  checkpoint?(): string | undefined;
}

export interface CommandWatch {
  /** The files that changed since beforeCommand(); empty when the workspace could not be watched (undo then says so). Asked again, gives the same answer. */
  changedFiles(signal: AbortSignal): Promise<string[]>;
}
