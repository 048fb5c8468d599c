import { GitSnapshotManager } from '../../src/journal/git-snapshots';

/** A snapshot manager whose whole-workspace tracks wait until the test opens the gate: a repository too large to record in time, on demand. */
export class GatedSnapshots extends GitSnapshotManager {
  open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  override async track(signal?: AbortSignal): Promise<string> {
    await this.gate;
    return super.track(signal);
  }
}
