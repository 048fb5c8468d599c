/** What the model reads of a call's output: capped, with notes of what it should know last. */
import { type KeptOutput, savedNote } from './call-output';

/** Keeps the head and tail of an over-long output with a note of what was cut. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[… ${omitted} characters omitted …]\n\n${text.slice(text.length - tail)}`;
}

/** The output with, last, where its whole is saved (or why it could not be). */
export function withNote(output: string, kept: KeptOutput): string {
  const note = kept.saved ? savedNote(kept.saved) : kept.error !== undefined ? `[The whole output could not be saved: ${kept.error}]` : '';
  if (note === '') return output;
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

/**
 * The output of a call a person edited, ending with what the model must
 * know: it ran, but not as sent. Last, so that doors summing a result up by
 * its first line still show the tool's own words.
 */
export function withEditedNote(output: string, edited: Record<string, unknown> | undefined): string {
  if (!edited) return output;
  const note = `[The user edited this call's arguments before allowing it. It ran with: ${JSON.stringify(edited, shortStrings)}]`;
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

/** Longer strings of edited arguments (a whole file's content) are not repeated to the model in full. */
const NOTED_CHARS = 2_000;

function shortStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > NOTED_CHARS ? `${value.slice(0, NOTED_CHARS)}[… ${value.length - NOTED_CHARS} more characters the user wrote, not repeated here]` : value;
}
