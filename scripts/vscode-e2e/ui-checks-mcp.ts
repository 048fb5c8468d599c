/**
 * The UI phase's check of an MCP server asking the person something, in
 * the real workbench: the workspace's `crow.mcpServers` names the tests'
 * ask server (test/fixtures/mcp-ask-server.ts, a real MCP server over
 * stdio), the scripted model calls its `ask` tool, and the server's form
 * appears as a card in the chat view, is filled in and sent, and its
 * answer reaches the server and, through the tool's result, the model.
 * axe-core looks at the view while the card is open.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeFindings, seriousViolations } from '../../test/support/axe';
import { ASK_FIXTURE_ARGS } from '../../test/support/mcp-ask-harness';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';

const FORM = {
  prompt: 'Ask me where to deploy.',
  message: 'Where should the release go?',
  schema: {
    type: 'object',
    properties: {
      release: { type: 'string', title: 'Release name' },
      replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 9 },
      region: { type: 'string', title: 'Region', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us', title: 'Americas' }] },
    },
    required: ['release', 'replicas', 'region'],
  },
  done: 'Deploying v3 to the Americas with 4 replicas.',
};

export const MCP_CHECKS: UiCheck[] = [
  {
    slug: 'mcp-question',
    name: "an MCP server's form (elicitation) is a card in the chat view; an answer that does not fit is said there, one that fits reaches the server (screenshot ui-mcp-question.png)",
    timeoutMs: 90_000,
    run: serverQuestion,
  },
];

async function serverQuestion(context: UiContext, timeoutMs: number): Promise<void> {
  const file = join(context.workspace, '.vscode', 'settings.json');
  const original = readFileSync(file, 'utf8');
  const settings = JSON.parse(original) as Record<string, unknown>;
  // The harness's own Node runs the server (the extension host's is code-server's); its tools are reads, so nothing else is asked.
  const servers = { ask: { command: process.execPath, args: ASK_FIXTURE_ARGS, permission: 'read' } };
  writeFileSync(file, JSON.stringify({ ...settings, 'crow.mcpServers': servers }, null, 2));
  try {
    const chat = chatFrame(context);
    // VS Code reads the changed file a moment later; the settings are read again at each prompt.
    await context.page.waitForTimeout(1_500);
    await newSession(chat, timeoutMs);
    context.fake.enqueue('openai', toolCall('mcp__ask__ask', { message: FORM.message, schema: JSON.stringify(FORM.schema) }), say(FORM.done));
    await sendPrompt(chat, FORM.prompt, timeoutMs);
    const card = chat.locator('.question:not([data-outcome])');
    await card.waitFor({ state: 'visible', timeout: timeoutMs });
    const head = await card.locator('.question-head').innerText();
    if (!head.includes('MCP server "ask"')) throw new HarnessError(`the question card does not name its server: ${JSON.stringify(head)}`);
    await card.getByLabel('Release name').fill('v3', { timeout: timeoutMs });
    await card.getByLabel('Replicas').fill('12', { timeout: timeoutMs });
    await card.getByLabel('Region').selectOption('us', { timeout: timeoutMs });
    await card.locator('button[data-action="accept"]').click({ timeout: timeoutMs });
    const problem = card.locator('.question-problem');
    await problem.waitFor({ state: 'visible', timeout: timeoutMs });
    if (!(await problem.innerText()).includes('at most 9')) throw new HarnessError(`the card does not say why 12 replicas do not fit: ${JSON.stringify(await problem.innerText())}`);
    const found = await seriousViolations(chat);
    if (found.length > 0) throw new HarnessError(`axe-core found serious violations with the question card open:\n${describeFindings(found)}`);
    await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-mcp-question.png') });
    await card.getByLabel('Replicas').fill('4', { timeout: timeoutMs });
    await card.locator('button[data-action="accept"]').click({ timeout: timeoutMs });
    await chat.locator('.question[data-outcome="accept"]').waitFor({ state: 'visible', timeout: timeoutMs });
    await chat.locator('.msg-assistant', { hasText: FORM.done }).waitFor({ state: 'visible', timeout: timeoutMs });
    const answered = context.fake
      .requestsFor('openai')
      .some((request) => JSON.stringify(request.body).includes('\\"content\\":{\\"release\\":\\"v3\\",\\"replicas\\":4,\\"region\\":\\"us\\"}'));
    if (!answered) throw new HarnessError("the answer did not reach the server (no tool result carried it to the model)");
  } finally {
    writeFileSync(file, original);
  }
}
