import { promptTokensRead, underReports } from '../llm/token-estimate';
import type { Usage } from '../llm/types';
import type { Emit } from './model-call';

/**
 * How much of an agent's context window each call filled: the server's
 * count of the prompt, cross-checked against Crow's estimate of the request
 * it sent. A server that reports far fewer tokens than were sent (one that
 * counts only what it had not cached, or a proxy that counts nothing) would
 * show a window that never fills; its count is replaced by the estimate,
 * and the person is told once. Compaction goes by the estimate, so the
 * conversation is compacted in time all the same.
 */
export class ContextGauge {
  private told = false;

  /**
   * The tokens a call filled (its prompt and its answer), by the server's
   * count of the prompt unless it under-reports a request estimated at
   * `estimate`; undefined when the server reported no usage at all. The
   * notice goes to `emit` as `agent`'s.
   */
  read(estimate: number, usage: Usage, { agent, emit }: { agent: string; emit: Emit }): number | undefined {
    const reported = promptTokensRead(usage);
    if (reported + usage.output === 0) return undefined;
    if (!underReports(reported, estimate)) return reported + usage.output;
    if (!this.told) {
      this.told = true;
      emit({ type: 'notice', agent, level: 'warning', title: 'Context window', message: underReportNotice(reported, estimate) });
    }
    return estimate + usage.output;
  }
}

function underReportNotice(reported: number, estimate: number): string {
  const count = (n: number): string => n.toLocaleString('en-US');
  return `The server reports ${count(reported)} input tokens for a request of about ${count(estimate)}; Crow uses its own count so the conversation is compacted in time.`;
}
