/**
 * An MCP server's question in the chat view (headless Chromium, the page
 * the host serves): a form's fields drawn by kind with their labels, its
 * answers posted with the right types, a problem the host found said on
 * the card with the answers kept, a page to open shown by its domain first,
 * the server's text shown as text. (axe checks the card in the real
 * workbench: scripts/vscode-e2e/ui-checks-a11y.ts.)
 */
import assert from 'node:assert/strict';
import type { ServerQuestion, WebviewMessage } from '../../webview/chat/protocol';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { INIT } from '../fixtures/chat-webview/session';

const FORM: ServerQuestion = {
  id: 'q-1',
  server: 'deploy',
  message: 'Where should it go?',
  fields: [
    { name: 'name', title: 'Release name', description: 'Shown in the changelog', required: true, kind: 'text' },
    { name: 'email', title: 'Contact', required: false, kind: 'text', format: 'email' },
    { name: 'replicas', title: 'Replicas', required: true, kind: 'number', integer: true, minimum: 1, maximum: 9, default: 2 },
    { name: 'canary', title: 'Canary first', required: false, kind: 'boolean', default: true },
    { name: 'region', title: 'Region', required: true, kind: 'choice', options: [{ value: 'eu', label: 'Europe' }, { value: 'us', label: 'Americas' }] },
    { name: 'checks', title: 'Checks', required: false, kind: 'choices', options: [{ value: 'lint', label: 'Lint' }, { value: 'e2e', label: 'End to end' }], default: ['lint'] },
  ],
};

const PAGE: ServerQuestion = { id: 'q-page', server: 'billing', message: 'Confirm the payment', page: { url: 'https://pay.example.com/confirm?order=7', domain: 'pay.example.com' } };

describe('chat view: an MCP server asks a question (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;

  beforeEach(() => (view = suite.view()));
  const page = () => view.page;
  const answers = async (): Promise<Extract<WebviewMessage, { type: 'answer_question' }>[]> =>
    (await view.takePosted()).flatMap((message) => (message.type === 'answer_question' ? [message] : []));

  it('draws each question by its kind, labelled, with its defaults', async () => {
    await view.send({ type: 'question', question: FORM });
    const card = page().locator('.question[data-id="q-1"]');
    assert.match(await card.locator('.question-head').innerText(), /MCP server "deploy"/);
    assert.equal(await card.locator('.question-message').innerText(), 'Where should it go?');
    assert.equal(await card.getByLabel('Release name').getAttribute('type'), 'text');
    assert.equal(await card.getByLabel('Contact').getAttribute('type'), 'email');
    assert.equal(await card.getByLabel('Replicas').inputValue(), '2');
    assert.equal(await card.getByLabel('Canary first').isChecked(), true);
    assert.deepEqual(await card.getByLabel('Region').locator('option').allInnerTexts(), ['Choose…', 'Europe', 'Americas']);
    assert.equal(await card.getByLabel('Lint').isChecked(), true);
    assert.equal(await card.getByLabel('End to end').isChecked(), false);
    assert.match(await card.locator('.question-field').first().innerText(), /Shown in the changelog/);
    assert.match(await card.locator('.field-text').nth(1).innerText(), /\(optional\)/);
    assert.deepEqual(await card.locator('button[data-action]').allInnerTexts(), ['Send', 'Decline', 'Dismiss']);
  });

  it('Send posts the answers with their types, leaving out what was left empty; Enter in a text box sends once', async () => {
    await view.send({ type: 'question', question: FORM });
    await view.takePosted();
    const card = page().locator('.question[data-id="q-1"]');
    await card.getByLabel('Release name').fill('v2.1');
    await card.getByLabel('Replicas').fill('3');
    await card.getByLabel('Canary first').uncheck();
    await card.getByLabel('Region').selectOption('us');
    await card.getByLabel('End to end').check();
    await card.getByLabel('Release name').press('Enter');
    await view.frames();
    assert.deepEqual(await answers(), [
      { type: 'answer_question', id: 'q-1', action: 'accept', content: { name: 'v2.1', replicas: 3, canary: false, region: 'us', checks: ['lint', 'e2e'] } },
    ]);
    assert.equal(await card.locator('button[data-action="accept"]').isDisabled(), true, 'a second Send cannot answer twice');
  });

  it('says what the host found wrong on the card, keeps the answers, and takes another Send', async () => {
    await view.send({ type: 'question', question: FORM });
    const card = page().locator('.question[data-id="q-1"]');
    await card.getByLabel('Release name').fill('v2.1');
    await card.getByLabel('Region').selectOption('eu');
    await card.getByLabel('Replicas').fill('12');
    await card.locator('button[data-action="accept"]').click();
    await view.send({ type: 'question_invalid', id: 'q-1', problem: 'Replicas: at most 9' });
    assert.equal(await card.locator('.question-problem').innerText(), 'Replicas: at most 9');
    assert.equal(await card.getByLabel('Release name').inputValue(), 'v2.1');
    assert.equal(await card.locator('button[data-action="accept"]').isDisabled(), false);
    await view.takePosted();
    await card.getByLabel('Replicas').fill('9');
    await card.locator('button[data-action="accept"]').click();
    assert.deepEqual((await answers()).map((answer) => answer.content?.['replicas']), [9]);
    await view.send({ type: 'question_done', id: 'q-1', outcome: 'accept' });
    assert.equal(await card.locator('.question-outcome').innerText(), 'Answered');
    assert.equal(await card.locator('form, button[data-action]').count(), 0, 'the form and its buttons go once answered');
  });

  it('a page to open shows its domain first and the whole address; Open page posts accept, and the card says it opened', async () => {
    await view.send({ type: 'question', question: PAGE });
    await view.takePosted();
    const card = page().locator('.question[data-id="q-page"]');
    assert.equal(await card.locator('.question-domain').innerText(), 'Opens a page on pay.example.com');
    assert.equal(await card.locator('.question-url').innerText(), 'https://pay.example.com/confirm?order=7');
    assert.equal(await card.locator('a').count(), 0, 'the address is text, not a link that opens without the card');
    await card.locator('button[data-action="accept"]').click();
    assert.deepEqual(await answers(), [{ type: 'answer_question', id: 'q-page', action: 'accept' }]);
    await view.send({ type: 'question_done', id: 'q-page', outcome: 'accept' });
    assert.equal(await card.locator('.question-outcome').innerText(), 'Opened in the browser');
  });

  it("shows a server's markup as text, and a withdrawn question says so", async () => {
    const hostile: ServerQuestion = {
      id: 'q-x',
      server: 'evil<b>',
      message: '<img src=x onerror="window.__pwned=1">Click <a href="https://evil.example">here</a>',
      fields: [{ name: 'x', title: '<script>window.__pwned=2</script>', required: false, kind: 'text' }],
    };
    await view.send({ type: 'question', question: hostile });
    const card = page().locator('.question[data-id="q-x"]');
    assert.match(await card.locator('.question-message').innerText(), /<img src=x onerror=/);
    assert.equal(await card.locator('img, a, script').count(), 0);
    assert.equal(await page().evaluate('window.__pwned'), undefined);
    await view.send({ type: 'question_done', id: 'q-x', outcome: 'withdrawn' });
    assert.equal(await card.locator('.question-outcome').innerText(), 'No longer asked');
  });
});
