// @ts-check
/**
 * Test-only extension (loaded by the VS Code harness next to Crow): a
 * language-model chat provider, vendor "crow-test", that plays the answers
 * a test scripts (text, tool calls) and refuses requests the way VS Code's
 * model vendors (Copilot's models, Anthropic's and OpenAI's APIs behind
 * them) refuse them. Every rule cites where it comes from. A test reaches
 * it through the API `activate` returns:
 *   vscode.extensions.getExtension('crow-agent.crow-lm-fixture').activate()
 * and the harness's UI checks, which cannot call into the extension host,
 * through a file in the workspace: SCRIPT_FILE, a JSON array of replies,
 * played once the API's queue is empty.
 */
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const VENDOR = 'crow-test';

/** Replies a UI check scripts (see the header); each is taken out of the file as it is played. */
const SCRIPT_FILE = '.crow-test-lm.json';

/** LanguageModelChatMessageRole (vscode.d.ts). */
const USER = 1;
const ASSISTANT = 2;

/**
 * Function names: "Must be a-z, A-Z, 0-9, or contain underscores and dashes,
 * with a maximum length of 64" (OpenAI Chat Completions API reference,
 * tools[].function.name); Anthropic's Messages API checks tools[].name
 * against ^[a-zA-Z0-9_-]{1,64}$. Copilot's models are served through both.
 */
const TOOL_NAME = /^[\w-]{1,64}$/;

/** @type {vscode.LanguageModelChatInformation[]} */
const MODELS = [
  {
    id: 'scripted-tools',
    name: 'Scripted (tools)',
    family: 'scripted',
    version: '1',
    maxInputTokens: 100_000,
    maxOutputTokens: 4_096,
    capabilities: { toolCalling: true, imageInput: false },
  },
  {
    id: 'tiny-window',
    name: 'Scripted (tiny window)',
    family: 'scripted',
    version: '1',
    maxInputTokens: 60,
    maxOutputTokens: 100,
    capabilities: { toolCalling: true, imageInput: false },
  },
];

/**
 * @typedef {{ text?: string[]; toolCalls?: { name: string; input: object; callId?: string }[]; hang?: boolean }} Reply
 * @typedef {{ model: string; messages: { role: string; parts: unknown[] }[]; tools: string[]; justification?: string }} Recorded
 */

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  /** @type {Reply[]} */
  const replies = [];
  /** @type {Recorded[]} */
  const requests = [];
  /** @type {string[]} */
  const refusals = [];
  let calls = 0;
  let counted = 0;

  /** @type {vscode.LanguageModelChatProvider} */
  const provider = {
    provideLanguageModelChatInformation: async () => MODELS,
    provideLanguageModelChatResponse: async (model, messages, options, progress, token) => {
      requests.push(record(model, messages, options));
      try {
        refuse(model, messages, options, token);
      } catch (error) {
        refusals.push(String(/** @type {Error} */ (error).message));
        throw error;
      }
      const reply = replies.shift() ?? replyFromWorkspace();
      if (!reply) throw new Error(`${VENDOR}: no scripted reply left for request ${requests.length} (the test scripted too few answers)`);
      for (const chunk of reply.text ?? []) progress.report(new vscode.LanguageModelTextPart(chunk));
      for (const call of reply.toolCalls ?? []) {
        if (!(options.tools ?? []).some((tool) => tool.name === call.name)) throw new Error(`${VENDOR}: the script calls "${call.name}", which the request did not offer`);
        progress.report(new vscode.LanguageModelToolCallPart(call.callId ?? `call_${++calls}`, call.name, call.input));
      }
      if (reply.hang) {
        await new Promise((resolve) => token.onCancellationRequested(resolve));
        throw new vscode.CancellationError();
      }
    },
    provideTokenCount: async (_model, text) => {
      counted++;
      return Math.ceil(textOf(text).length / 4);
    },
  };
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider(VENDOR, provider));

  return {
    vendor: VENDOR,
    /** @param {Reply[]} more */
    enqueue: (...more) => void replies.push(...more),
    pending: () => replies.length,
    requests,
    refusals,
    /** How many times a caller asked the models to count tokens. */
    counted: () => counted,
    reset: () => {
      replies.length = 0;
      requests.length = 0;
      refusals.length = 0;
      counted = 0;
    },
  };
}

/** @returns {Reply | undefined} the next reply of the workspace's SCRIPT_FILE, taken out of it. */
function replyFromWorkspace() {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  const file = path.join(folder.uri.fsPath, SCRIPT_FILE);
  if (!fs.existsSync(file)) return undefined;
  /** @type {Reply[]} */
  const script = JSON.parse(fs.readFileSync(file, 'utf8'));
  const next = script.shift();
  if (script.length > 0) fs.writeFileSync(file, JSON.stringify(script));
  else fs.rmSync(file);
  return next;
}

/**
 * Throws as the vendors do for a request they refuse.
 * @param {vscode.LanguageModelChatInformation} model
 * @param {readonly vscode.LanguageModelChatRequestMessage[]} messages
 * @param {vscode.ProvideLanguageModelChatResponseOptions} options
 * @param {vscode.CancellationToken} token
 */
function refuse(model, messages, options, token) {
  // VS Code drops every part a provider reports once the request is cancelled
  // (extHostLanguageModels: "CANNOT send progress because the REQUEST IS CANCELLED"); Copilot's endpoint does not start one.
  if (token.isCancellationRequested) throw new vscode.CancellationError();
  // OpenAI: "Invalid 'messages': empty array. Expected an array with minimum length 1".
  if (messages.length === 0) throw new Error('messages: at least one message is required');
  // Anthropic Messages API: "messages: first message must use the \"user\" role".
  if (messages[0]?.role !== USER) throw new Error('messages: first message must use the "user" role');
  checkTools(options.tools ?? []);
  messages.forEach((message, index) => checkMessage(model, message, index, messages[index - 1], messages[index + 1]));
}

/** @param {readonly vscode.LanguageModelChatTool[]} tools */
function checkTools(tools) {
  const seen = new Set();
  for (const [index, tool] of tools.entries()) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`tools.${index}.name: "${tool.name}" must match ^[a-zA-Z0-9_-]{1,64}$`);
    // Anthropic: "tools: Tool names must be unique."
    if (seen.has(tool.name)) throw new Error(`tools: Tool names must be unique ("${tool.name}")`);
    seen.add(tool.name);
  }
}

/**
 * @param {vscode.LanguageModelChatInformation} model
 * @param {vscode.LanguageModelChatRequestMessage} message
 * @param {number} index
 * @param {vscode.LanguageModelChatRequestMessage | undefined} previous
 * @param {vscode.LanguageModelChatRequestMessage | undefined} next
 */
function checkMessage(model, message, index, previous, next) {
  const where = `messages.${index}`;
  // Anthropic: "messages.N: all messages must have non-empty content" and "text content blocks must be non-empty".
  if (message.content.length === 0) throw new Error(`${where}: all messages must have non-empty content`);
  for (const part of message.content) {
    if (part instanceof vscode.LanguageModelTextPart && part.value.trim() === '') throw new Error(`${where}: text content blocks must be non-empty`);
    // vscode.d.ts: a tool call part goes in an Assistant message, a tool result part "can only be included in the content of a User message".
    if (part instanceof vscode.LanguageModelToolCallPart && message.role !== ASSISTANT) throw new Error(`${where}: a tool call can only be in an assistant message`);
    if (part instanceof vscode.LanguageModelToolResultPart && message.role !== USER) throw new Error(`${where}: a tool result can only be in a user message`);
    // A model whose capabilities say no imageInput: Copilot refuses images to it rather than drop them.
    if (part instanceof vscode.LanguageModelDataPart && part.mimeType.startsWith('image/') && !model.capabilities.imageInput) {
      throw new Error(`${where}: model ${model.id} does not accept images`);
    }
  }
  const results = message.content.filter((part) => part instanceof vscode.LanguageModelToolResultPart);
  const asked = new Set((previous?.content ?? []).flatMap((part) => (part instanceof vscode.LanguageModelToolCallPart ? [part.callId] : [])));
  for (const result of results) {
    // OpenAI: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'";
    // Anthropic: "unexpected tool_use_id found in tool_result blocks ... must have a corresponding tool_use block in the previous message".
    if (!asked.has(result.callId)) throw new Error(`${where}: unexpected tool_use_id found in tool_result blocks: ${result.callId}`);
  }
  const calls = message.content.flatMap((part) => (part instanceof vscode.LanguageModelToolCallPart ? [part.callId] : []));
  const answered = new Set((next?.content ?? []).flatMap((part) => (part instanceof vscode.LanguageModelToolResultPart ? [part.callId] : [])));
  for (const callId of calls) {
    // Anthropic: "tool_use ids were found without tool_result blocks immediately after"; OpenAI: "An assistant message with
    // 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'". The last message may end in calls only if nothing follows.
    if (next !== undefined && !answered.has(callId)) throw new Error(`${where}: tool_use ids were found without tool_result blocks immediately after: ${callId}`);
  }
}

/**
 * What a test reads back: each message's role and parts as plain data.
 * @param {vscode.LanguageModelChatInformation} model
 * @param {readonly vscode.LanguageModelChatRequestMessage[]} messages
 * @param {vscode.ProvideLanguageModelChatResponseOptions} options
 * @returns {Recorded}
 */
function record(model, messages, options) {
  return {
    model: model.id,
    messages: messages.map((message) => ({ role: message.role === USER ? 'user' : message.role === ASSISTANT ? 'assistant' : String(message.role), parts: message.content.map(partData) })),
    tools: (options.tools ?? []).map((tool) => tool.name),
  };
}

/** @param {unknown} part */
function partData(part) {
  if (part instanceof vscode.LanguageModelTextPart) return { kind: 'text', text: part.value };
  if (part instanceof vscode.LanguageModelToolCallPart) return { kind: 'tool_call', callId: part.callId, name: part.name, input: part.input };
  if (part instanceof vscode.LanguageModelToolResultPart) return { kind: 'tool_result', callId: part.callId, content: part.content.map(partData) };
  if (part instanceof vscode.LanguageModelDataPart) return { kind: 'data', mimeType: part.mimeType };
  return { kind: 'unknown' };
}

/** @param {string | vscode.LanguageModelChatRequestMessage} input */
function textOf(input) {
  if (typeof input === 'string') return input;
  return input.content.map((part) => JSON.stringify(partData(part))).join('');
}

module.exports = { activate };
