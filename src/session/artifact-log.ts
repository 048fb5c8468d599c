/** What a command wrote into the workspace, for the session's record (e.g. /speckit.plan writing plan.md). */
export interface ArtifactRecord {
  /** The command, without the slash: "speckit.plan". */
  command: string;
  /** The folder it worked on, workspace-relative: "specs/003-photo-albums". */
  folder?: string;
  /** Workspace-relative paths it created or changed, in path order. */
  files: string[];
  at: number;
}

/**
 * The artifacts a session's commands wrote, and the spec-driven feature the
 * session works on. Stored with the session; listeners hear of each change.
 */
export class ArtifactLog {
  private records: ArtifactRecord[];
  private currentFeature: string | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(initial: { records?: readonly ArtifactRecord[]; feature?: string } = {}) {
    this.records = (initial.records ?? []).map((record) => ({ ...record, files: [...record.files] }));
    this.currentFeature = initial.feature;
  }

  /** The feature folder the session works on (workspace-relative), once a command chose one. */
  get feature(): string | undefined {
    return this.currentFeature;
  }

  list(): ArtifactRecord[] {
    return this.records.map((record) => ({ ...record, files: [...record.files] }));
  }

  /** Records a command's writes; a record with a folder makes that folder the session's feature. */
  add(record: ArtifactRecord): void {
    this.records.push({ ...record, files: [...record.files] });
    if (record.folder !== undefined) this.currentFeature = record.folder;
    this.changed();
  }

  /** Makes `folder` the session's feature without a record (a command that wrote nothing). */
  setFeature(folder: string): void {
    if (this.currentFeature === folder) return;
    this.currentFeature = folder;
    this.changed();
  }

  /** Called after every change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
