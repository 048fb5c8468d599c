/**
 * The small interactive model behind `npm run fake-model`: it reads the last
 * message of each request (Anthropic Messages or Chat Completions) and
 * answers from it alone, so that a person can try every front door with no
 * key and no network. It echoes what it is told, calls a tool when asked in
 * so many words, and reports what the tool returned:
 *
 *   run COMMAND     a bash call         read PATH     a read_file call
 *   list [PATH]     list_directory      write PATH TEXT   a write_file call
 *   think ...       a thinking block, then the echo
 *   done            task_complete (ends the task in the looping flows)
 *
 * Anything else is echoed back with this list. It keeps no state.
 */
import type { Responder, ScriptedBlock, ScriptedResponse } from './fake-llm-server';

export const FAKE_MODEL_HELP =
  'Ask me to `run COMMAND`, `read PATH`, `list [PATH]`, `write PATH TEXT`, `think ...` or say `done`; anything else I echo.';

/** What the request's last message is: the person's (or an agent's) text, or a tool's result. */
type LastMessage = { kind: 'text'; text: string } | { kind: 'tool_result'; output: string };

/** The responder for both routes of the fake LLM server. */
export function fakeModelResponder(api: 'anthropic' | 'openai'): Responder {
  return (body) => {
    const last = api === 'anthropic' ? lastAnthropic(body) : lastOpenAi(body);
    const reply = last.kind === 'tool_result' ? afterTool(last.output) : answer(last.text.trim());
    return { ...reply, chunkSize: 6, latencyMs: 15 };
  };
}

function answer(text: string): ScriptedResponse {
  const [word = '', ...rest] = text.split(/\s+/);
  const argument = rest.join(' ');
  switch (word.toLowerCase()) {
    case 'run':
      if (argument) return tool(`Running \`${argument}\`.`, 'bash', { command: argument });
      break;
    case 'read':
      if (argument) return tool(`Reading ${argument}.`, 'read_file', { path: argument });
      break;
    case 'list':
      return tool(`Listing ${argument || 'the workspace'}.`, 'list_directory', { path: argument || '.' });
    case 'write': {
      const [path, ...content] = rest;
      if (path && content.length > 0) return tool(`Writing ${path}.`, 'write_file', { path, content: `${content.join(' ')}\n` });
      break;
    }
    case 'think':
      return {
        blocks: [
          { type: 'thinking', text: `The person asked me to think about: ${argument || 'nothing in particular'}. I am a scripted fake, so I only pretend to.` },
          { type: 'text', text: `I thought about it. You said: ${argument}` },
        ],
      };
    case 'done':
      return tool('Calling it done.', 'task_complete', { summary: argument || 'Done, as you asked.' });
  }
  return { blocks: [{ type: 'text', text: `You said: ${text || '(nothing)'}\n\n${FAKE_MODEL_HELP}` }] };
}

function afterTool(output: string): ScriptedResponse {
  const lines = output.trimEnd().split('\n');
  const shown = lines.slice(0, 20).join('\n') + (lines.length > 20 ? `\n… (${lines.length - 20} more lines)` : '');
  return { blocks: [{ type: 'text', text: `The tool returned:\n\n\`\`\`\n${shown}\n\`\`\`` }] };
}

function tool(text: string, name: string, args: Record<string, unknown>): ScriptedResponse {
  const blocks: ScriptedBlock[] = [
    { type: 'text', text },
    { type: 'tool_call', name, arguments: args },
  ];
  return { blocks };
}

type Block = { type: string; text?: string; content?: string | { type: string; text?: string }[] };

function lastAnthropic(body: Record<string, unknown>): LastMessage {
  const message = ((body.messages ?? []) as { content: string | Block[] }[]).at(-1);
  if (!message) return { kind: 'text', text: '' };
  if (typeof message.content === 'string') return { kind: 'text', text: message.content };
  const result = message.content.find((block) => block.type === 'tool_result');
  if (result) {
    const content = result.content ?? '';
    return { kind: 'tool_result', output: typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('') };
  }
  return { kind: 'text', text: lastText(message.content) };
}

function lastOpenAi(body: Record<string, unknown>): LastMessage {
  const message = ((body.messages ?? []) as { role: string; content: string | Block[] | null }[]).at(-1);
  if (!message) return { kind: 'text', text: '' };
  const content = message.content ?? '';
  const text = typeof content === 'string' ? content : lastText(content);
  return message.role === 'tool' ? { kind: 'tool_result', output: text } : { kind: 'text', text };
}

/** The last text block: what was typed, after any context the engine put before it. */
function lastText(blocks: Block[]): string {
  return blocks.filter((block) => block.type === 'text').at(-1)?.text ?? '';
}
