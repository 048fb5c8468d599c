/**
 * The list over the prompt box (headless Chromium, the page the host
 * serves): `/` at the start and `@` before a word ask the host once the
 * typing pauses, its answer shows only while that word is still typed, the
 * keys move and pick without sending the prompt, and Escape closes only the
 * list.
 */
import assert from 'node:assert/strict';
import type { Suggestion, WebviewMessage } from '../../webview/chat/protocol';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { INIT } from '../fixtures/chat-webview/session';

const RESOURCES: Suggestion[] = [
  { label: 'note 1', insert: '@fx:fx://notes/1 ', detail: 'fx · fx://notes/1' },
  { label: 'note 2', insert: '@fx:fx://notes/2 ', detail: 'fx · fx://notes/2' },
];

describe('chat view: suggestions over the prompt box (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;

  beforeEach(() => (view = suite.view()));
  const page = () => view.page;
  const prompt = () => page().locator('textarea#prompt');
  const asked = async (): Promise<Extract<WebviewMessage, { type: 'suggest' }>[]> => {
    await page().waitForTimeout(250);
    return (await view.takePosted()).flatMap((message) => (message.type === 'suggest' ? [message] : []));
  };
  /**
   * What the view asked while a word was typed key by key, checked: the last
   * question is for the word as typed. A loaded machine may leave a pause
   * between two keys, so a question for the word part-typed before it is
   * fair; it is then for a start of the same word.
   */
  const askedWhileTyping = async (final: { trigger: string; query: string }): Promise<number> => {
    const questions = await asked();
    assert.deepEqual(questions.at(-1), { type: 'suggest', ...final }, `the last question is for the word typed: ${JSON.stringify(questions)}`);
    for (const early of questions.slice(0, -1)) assert.ok(early.trigger === final.trigger && final.query.startsWith(early.query), `an earlier question is for a start of the word: ${JSON.stringify(early)}`);
    return questions.length;
  };

  it('asks once the typing pauses, shows the answer for the word typed, and picks with the keys without sending', async () => {
    await view.takePosted();
    await prompt().focus();
    await prompt().pressSequentially('Read @no', { delay: 10 });
    assert.ok((await askedWhileTyping({ trigger: '@', query: 'no' })) < 3, 'a question after the pause, not one per key');
    await view.send({ type: 'suggestions', trigger: '@', query: 'no', items: RESOURCES });
    const list = page().locator('#suggestions');
    assert.equal(await list.isVisible(), true);
    assert.equal(await prompt().getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await list.locator('[role="option"] .suggestion-label').allInnerTexts(), ['note 1', 'note 2']);
    await prompt().press('ArrowDown');
    assert.equal(await prompt().getAttribute('aria-activedescendant'), 'suggestion-1');
    await prompt().press('Enter');
    assert.equal(await prompt().inputValue(), 'Read @fx:fx://notes/2 ');
    assert.equal(await list.isVisible(), false);
    assert.equal((await view.takePosted()).some((message) => message.type === 'send'), false, 'Enter picked; it did not send');
  });

  it('ignores an answer for a word no longer typed, and Escape closes the list without cancelling', async () => {
    await prompt().focus();
    await prompt().pressSequentially('/sp', { delay: 10 });
    await askedWhileTyping({ trigger: '/', query: 'sp' });
    await prompt().pressSequentially('e', { delay: 10 });
    await view.send({ type: 'suggestions', trigger: '/', query: 'sp', items: [{ label: '/speckit.plan', insert: '/speckit.plan ' }] });
    assert.equal(await page().locator('#suggestions').isVisible(), false, 'the answer to "sp" is stale once "spe" is typed');
    await view.send({ type: 'suggestions', trigger: '/', query: 'spe', items: [{ label: '/speckit.plan', insert: '/speckit.plan ' }] });
    assert.equal(await page().locator('#suggestions').isVisible(), true);
    await view.takePosted();
    await prompt().press('Escape');
    assert.equal(await page().locator('#suggestions').isVisible(), false);
    assert.deepEqual((await view.takePosted()).filter((message) => message.type === 'cancel'), []);
    assert.equal(await prompt().inputValue(), '/spe');
  });

  it('asks nothing for a slash inside the text or an @ inside a word; a click on a choice picks it', async () => {
    await prompt().focus();
    await prompt().pressSequentially('see a/b and me@home', { delay: 5 });
    assert.deepEqual(await asked(), []);
    await prompt().fill('');
    await prompt().pressSequentially('@', { delay: 5 });
    assert.deepEqual(await asked(), [{ type: 'suggest', trigger: '@', query: '' }]);
    await view.send({ type: 'suggestions', trigger: '@', query: '', items: RESOURCES });
    await page().locator('#suggestion-0').click();
    assert.equal(await prompt().inputValue(), '@fx:fx://notes/1 ');
    assert.equal(await prompt().evaluate((element) => element === document.activeElement), true, 'the focus stays in the prompt box');
  });

  it("asks about the argument being typed after a command, and puts the value in place of that word", async () => {
    await prompt().focus();
    await prompt().pressSequentially('/mcp__fx__review py', { delay: 5 });
    await askedWhileTyping({ trigger: '/', query: 'mcp__fx__review py' });
    await view.send({ type: 'suggestions', trigger: '/', query: 'mcp__fx__review py', items: [{ label: 'python', insert: 'python ' }] });
    await prompt().press('Tab');
    assert.equal(await prompt().inputValue(), '/mcp__fx__review python ');
    assert.deepEqual(await asked(), [{ type: 'suggest', trigger: '/', query: 'mcp__fx__review python ' }], 'a picked value ends its word, then the next argument is asked about');
  });

  it('asks again at once when a pick leaves the word open (a template up to its variable), and never for an overlong line', async () => {
    await prompt().focus();
    await prompt().pressSequentially('@gui', { delay: 5 });
    await asked();
    await view.send({ type: 'suggestions', trigger: '@', query: 'gui', items: [{ label: 'a guide', insert: '@docs:doc://guides/' }] });
    await prompt().press('Enter');
    assert.equal(await prompt().inputValue(), '@docs:doc://guides/');
    assert.deepEqual(await asked(), [{ type: 'suggest', trigger: '@', query: 'docs:doc://guides/' }]);
    await prompt().fill('');
    const overlong = `mcp__fx__review ${'x'.repeat(200)}`;
    await prompt().pressSequentially(`/${overlong}`, { delay: 0 });
    // Asked part-way (a loaded machine's pause) is fair while the word was short enough; never past 200 characters.
    const questions = await asked();
    assert.ok(questions.every((question) => question.query.length <= 200 && overlong.startsWith(question.query)), JSON.stringify(questions.map((question) => question.query.length)));
  });
});
