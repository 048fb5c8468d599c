import { count } from '../telemetry/readable';
import { errorText } from '../vocabulary/text';
import type { OutputSpool, SavedOutput } from './saved-outputs';
import type { ToolContext, ToolOutput, ToolProgress } from './tool';

/** What became of a call's whole output. */
export interface KeptOutput {
  saved?: SavedOutput;
  /** Why the whole output could not be saved. */
  error?: string;
}

/**
 * defineTool's part in a call's progress and output: the call's work starts
 * once it is approved, what the tool streams goes on to the engine and into
 * a spool, and output the model gets only part of is saved whole (see
 * SavedOutputs), so the model can be told where to read the rest.
 */
export class CallOutput {
  private spool: OutputSpool | undefined;

  constructor(
    private readonly ctx: ToolContext,
    private readonly tool: string,
  ) {}

  /** Marks the start of the call's work; the context its logic runs with, whose progress is relayed and spooled. */
  begin(): ToolContext {
    const { progress, outputs } = this.ctx;
    progress?.start();
    if (!progress && !outputs) return this.ctx;
    const relay: ToolProgress = {
      start: () => undefined,
      output: (chunk) => {
        progress?.output(chunk);
        if (outputs) (this.spool ??= outputs.spool(this.tool)).push(chunk);
      },
      step: (step) => progress?.step(step),
    };
    return { ...this.ctx, progress: relay };
  }

  /**
   * Saves the whole output when the model gets less than all of it: what the
   * tool streamed when it says it clipped its output, else an output longer
   * than `maxChars`. Pass no output when the call failed without one.
   */
  async keep(out: ToolOutput | undefined, maxChars: number): Promise<KeptOutput> {
    const { outputs } = this.ctx;
    try {
      if (out?.clipped && this.spool && !this.spool.empty) return { saved: await this.spool.keep() };
      await this.spool?.discard();
      if (outputs && out && out.output.length > maxChars) return { saved: await outputs.save(this.tool, out.output) };
      return {};
    } catch (err) {
      return { error: errorText(err) };
    }
  }
}

/** The line the model reads last when part of an output is left out: where the whole is, and how to read it. */
export function savedNote(saved: SavedOutput): string {
  const size = saved.bytes >= 1024 * 1024 ? `${(saved.bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(saved.bytes / 1024))} KB`;
  return `[The whole output (${count(saved.lines)} lines, ${size}) is saved at ${saved.path}: read_file it with offset and limit to see any part.]`;
}
