/**
 * Edit on an earlier message: the edited text goes to a new session that
 * branches from just before the message. The branch is of the
 * conversation only: the files stay as they are, unless the person asked
 * for them back too, which is the Restore of files to that message's
 * checkpoint (with its one question when a file the chat did not show
 * would change). Either way the new branch says what became of the files.
 */
import type { RestoredMessage } from './chat-restore';
import { t } from '../l10n';

/** What the new branch says of the files, and whether to branch at all (not when the files' restore was declined or failed). */
export interface BranchFiles {
  branch: boolean;
  /** Shown where the edit happened (no branch) or at the head of the new branch. */
  note: RestoredMessage;
}

/** The note at the head of a branch whose files were left as they are. */
export function filesKept(): string {
  return t('Branched from before the edited message. The files were left as they are now: Restore on a message puts them back.');
}

/**
 * Puts the files back first when `restoreFiles` is given (the person ticked
 * "also put the files back"); the branch goes ahead unless that was
 * declined or failed, in which case nothing is branched and the note says why.
 */
export async function filesForBranch(checkpoint: string, restoreFiles: (() => Promise<RestoredMessage>) | undefined): Promise<BranchFiles> {
  const target = { kind: 'rewind', checkpoint, mode: 'files' } as const;
  if (!restoreFiles) return { branch: true, note: { type: 'restored', target, outcome: 'nothing', message: filesKept() } };
  const done = await restoreFiles();
  if (done.outcome === 'declined' || done.outcome === 'failed') {
    return { branch: false, note: { ...done, message: t`Not branched. ${done.message}` } };
  }
  const files = done.outcome === 'restored' ? done.message : t('The files had not changed since.');
  return { branch: true, note: { ...done, message: t`Branched from before the edited message. ${files}` } };
}
