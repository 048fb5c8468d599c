/**
 * The UI phase's checks of MCP servers in the chat view, in the real
 * workbench, with the workspace's `crow.mcpServers` naming the tests' real
 * servers over stdio (test/fixtures/mcp-ask-server.ts as "ask",
 * test/fixtures/mcp-server.ts as "fx"):
 * - the scripted model calls ask's `ask` tool, and the server's form
 *   appears as a card, is filled in and sent, and its answer reaches the
 *   server and, through the tool's result, the model; axe-core looks at the
 *   view while the card is open;
 * - typing `/` lists the servers' prompts, and `@` their resources: one is
 *   picked with the keyboard and the prompt sent attaches it;
 * - a remote server behind OAuth (test/support/oauth-mcp-server.ts, with its
 *   strict authorization server): the chat's notice offers "Sign in…", the
 *   page opens in the browser through VS Code, the consent is given there,
 *   and the next prompt's model calls the server's tool with the token kept
 *   in VS Code's secret storage.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeFindings, seriousViolations } from '../../test/support/axe';
import { ASK_FIXTURE_ARGS } from '../../test/support/mcp-ask-harness';
import { TSX_FIXTURE } from '../../test/support/mcp-fixture';
import { OAuthMcpServer } from '../../test/support/oauth-mcp-server';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR } from './paths';
import { chatFrame, newSession, say, sendPrompt, toolCall, type UiCheck, type UiContext } from './ui-checks';
import { waitForNotification } from './workbench-ui';

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

const ATTACH = { typed: 'Summarise @notes/7', sent: 'Summarise @fx:fx://notes/7 please', read: 'note number 7', done: 'Note 7 says its number.' };

export const MCP_CHECKS: UiCheck[] = [
  {
    slug: 'mcp-question',
    name: "an MCP server's form (elicitation) is a card in the chat view; an answer that does not fit is said there, one that fits reaches the server (screenshot ui-mcp-question.png)",
    timeoutMs: 90_000,
    run: (context, timeoutMs) => withServers(context, () => serverQuestion(context, timeoutMs)),
  },
  {
    slug: 'mcp-suggestions',
    name: "typing / lists the MCP servers' prompts (and the server completes their arguments) and @ their resources; a resource picked with the keys is attached to the prompt (screenshot ui-mcp-suggestions.png)",
    timeoutMs: 90_000,
    run: (context, timeoutMs) => withServers(context, () => suggestions(context, timeoutMs)),
  },
  {
    slug: 'mcp-sampling',
    name: "an MCP server's request for the model (sampling) is an approval card naming the server, the model and the cap; allowed, the model's answer goes back to the server",
    timeoutMs: 60_000,
    run: (context, timeoutMs) => withServers(context, () => sampling(context, timeoutMs)),
  },
  {
    slug: 'mcp-sign-in',
    name: 'a remote MCP server that asks for a sign-in: the notice\'s Sign in… opens its authorization page through VS Code, and after the consent the next prompt uses its tool (screenshot ui-mcp-sign-in.png)',
    timeoutMs: 90_000,
    run: signIn,
  },
];

/**
 * A remote server that asks for a sign-in: the first prompt runs without
 * its tools and its notice offers "Sign in…"; VS Code opens the
 * authorization page (its own question about an outside link answered
 * Open, where it asks), the consent is given in that tab, the loopback
 * redirect brings the code back to the extension, and the next prompt's
 * tool call reaches the server with a token.
 */
async function signIn(context: UiContext, timeoutMs: number): Promise<void> {
  const server = await OAuthMcpServer.start();
  const file = join(context.workspace, '.vscode', 'settings.json');
  const original = readFileSync(file, 'utf8');
  const settings = JSON.parse(original) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...settings, 'crow.mcpServers': { docs: { url: server.url, permission: 'read' } } }, null, 2));
  try {
    const { page } = context;
    const chat = chatFrame(context);
    await page.waitForTimeout(1_500);
    await newSession(chat, timeoutMs);
    context.fake.enqueue('openai', say('The docs need a sign-in first.'));
    await sendPrompt(chat, 'Look up the release process in the docs.', timeoutMs);
    const offer = chat.locator('button.notice-action', { hasText: 'Sign in…' });
    await offer.waitFor({ state: 'visible', timeout: timeoutMs });
    const asked: string[] = [];
    page.context().on('request', (request) => void (request.url().startsWith(server.authorization.issuer) && asked.push(request.url())));
    const opened = page.context().waitForEvent('page', { timeout: timeoutMs });
    await offer.click({ timeout: timeoutMs });
    // VS Code may first ask about the outside link; its dialog's Open lets it go.
    const dialogOpen = page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Open$/ });
    const consent = await Promise.race([opened, dialogOpen.waitFor({ state: 'visible', timeout: timeoutMs }).then(async () => (await dialogOpen.click(), opened))]);
    await consent.waitForLoadState('domcontentloaded', { timeout: timeoutMs });
    if (!consent.url().startsWith(server.authorization.issuer)) throw new HarnessError(`the page opened is not the authorization server's: ${consent.url()} (asked: ${asked.join(' ')}; the authorization server: ${server.authorization.log.join('; ')})`);
    await consent.locator('#approve').click({ timeout: timeoutMs });
    await waitForNotification(page, 'signed in to MCP server "docs"', timeoutMs);
    await consent.close().catch(() => undefined);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-mcp-sign-in.png') });
    context.fake.enqueue('openai', toolCall('mcp__docs__lookup', { topic: 'release' }), say('The docs say how to release.'));
    await sendPrompt(chat, 'Now look it up.', timeoutMs);
    await chat.locator('.msg-assistant', { hasText: 'The docs say how to release.' }).waitFor({ state: 'visible', timeout: timeoutMs });
    if (!server.log.some((line) => line.startsWith('call lookup'))) throw new HarnessError(`the tool call did not reach the server with a token: ${server.log.join('; ')}`);
  } finally {
    writeFileSync(file, original);
    await server.close();
  }
}

async function sampling(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const params = { systemPrompt: 'You summarise.', maxTokens: 64, messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the notes.' } }] };
  context.fake.enqueue('openai', toolCall('mcp__ask__sample', { params: JSON.stringify(params) }), say('Two fixes.'), say('The server summarised the notes.'));
  await sendPrompt(chat, 'Have the server summarise the notes.', timeoutMs);
  const card = chat.locator('.approval:not([data-decision])');
  await card.waitFor({ state: 'visible', timeout: timeoutMs });
  const text = await card.innerText();
  for (const expected of ['MCP server "ask"', 'run a model request on openai fake-model, at most 64 output tokens', 'User: Summarise the notes.']) {
    if (!text.includes(expected)) throw new HarnessError(`the sampling approval does not say ${JSON.stringify(expected)}: ${JSON.stringify(text)}`);
  }
  await card.locator('button[data-decision="allow_once"]').click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: 'The server summarised the notes.' }).waitFor({ state: 'visible', timeout: timeoutMs });
  const sampled = context.fake.requestsFor('openai').some((request) => JSON.stringify(request.body).includes('sampled: ') && JSON.stringify(request.body).includes('Two fixes.'));
  if (!sampled) throw new HarnessError("the model's answer to the server's request did not come back through the tool's result");
}

/** Runs `check` with both test servers in the workspace's settings, and a new session that reads them; the settings are put back afterwards. */
async function withServers(context: UiContext, check: () => Promise<void>): Promise<void> {
  const file = join(context.workspace, '.vscode', 'settings.json');
  const original = readFileSync(file, 'utf8');
  const settings = JSON.parse(original) as Record<string, unknown>;
  // The harness's own Node runs the servers (the extension host's is code-server's); their tools are reads, so nothing else is asked.
  const servers = {
    ask: { command: process.execPath, args: ASK_FIXTURE_ARGS, permission: 'read' },
    fx: { command: process.execPath, args: TSX_FIXTURE, permission: 'read' },
  };
  writeFileSync(file, JSON.stringify({ ...settings, 'crow.mcpServers': servers }, null, 2));
  try {
    // VS Code reads the changed file a moment later; a session reads the settings at each prompt.
    await context.page.waitForTimeout(1_500);
    await newSession(chatFrame(context), 30_000);
    await check();
  } finally {
    writeFileSync(file, original);
  }
}

async function suggestions(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  const prompt = chat.locator('textarea#prompt');
  const list = chat.locator('#suggestions');
  await prompt.focus();
  await prompt.pressSequentially('/mcp__fx', { delay: 20 });
  await list.locator('[role="option"]', { hasText: '/mcp__fx__greet' }).waitFor({ state: 'visible', timeout: timeoutMs });
  await prompt.press('Escape');
  // The server completes the argument being typed (completion/complete).
  await prompt.fill('');
  await prompt.pressSequentially('/mcp__fx__review py', { delay: 20 });
  await list.locator('[role="option"]', { hasText: 'python' }).waitFor({ state: 'visible', timeout: timeoutMs });
  await prompt.press('Enter');
  const completed = await prompt.inputValue();
  if (completed !== '/mcp__fx__review python ') throw new HarnessError(`the completed argument did not replace the typed word: ${JSON.stringify(completed)}`);
  await prompt.press('Escape');
  await prompt.fill('');
  await prompt.pressSequentially(ATTACH.typed, { delay: 20 });
  const option = list.locator('[role="option"]', { hasText: 'note 7' });
  await option.waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await list.locator('[role="option"]').count()) !== 1) throw new HarnessError(`"@notes/7" should list note 7 alone: ${JSON.stringify(await list.innerText())}`);
  await context.page.screenshot({ path: join(ARTIFACTS_DIR, 'ui-mcp-suggestions.png') });
  await prompt.press('Enter');
  await prompt.pressSequentially('please', { delay: 10 });
  const typed = await prompt.inputValue();
  if (typed !== ATTACH.sent) throw new HarnessError(`the picked resource did not replace the typed word: ${JSON.stringify(typed)}`);
  context.fake.enqueue('openai', say(ATTACH.done));
  await chat.locator('#send').click({ timeout: timeoutMs });
  await chat.locator('.msg-assistant', { hasText: ATTACH.done }).waitFor({ state: 'visible', timeout: timeoutMs });
  const attached = context.fake.requestsFor('openai').some((request) => JSON.stringify(request.body).includes(ATTACH.read));
  if (!attached) throw new HarnessError('the prompt was sent, but the resource it mentions was not attached for the model');
}

async function serverQuestion(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
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
  if (!answered) throw new HarnessError('the answer did not reach the server (no tool result carried it to the model)');
}
