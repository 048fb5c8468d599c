/**
 * The Apply button of an answer's code block, on the host side: the block
 * becomes a proposed write of the file its fence names (or of a file the
 * person picks), asked and judged by the session's permission gate like an
 * agent's write (src/host/apply-code.ts). What happened is told in the
 * transcript as a notice.
 */
import type { TranscriptEvent } from '../../../../webview/chat/protocol';
import type { ChatSession } from './chat-session';
import { notice } from './transcript-translator';

/** What Apply asks of VS Code itself. */
export interface ApplyActions {
  /** Asks which workspace file a code block is for (open editors first); undefined when the person dismisses the question. */
  pickFileForCode(): Promise<string | undefined>;
}

export async function applyCodeBlock(
  chat: ChatSession,
  actions: ApplyActions,
  block: { text: string; path?: string },
  show: (event: TranscriptEvent) => void,
): Promise<void> {
  if (chat.busy) throw new Error('Crow is still working: apply the code once the run ends, or cancel it first.');
  const path = block.path ?? (await actions.pickFileForCode());
  if (path === undefined) return;
  const result = await chat.applyCode(path, block.text, new AbortController().signal);
  if (result.status === 'success') show(notice('info', `Applied: ${result.output}`));
  else show(notice(result.metadata.extra['permission'] === 'denied' ? 'info' : 'error', `Not applied to ${path}: ${result.error ?? 'the write failed'}`));
}
