/**
 * The chat view's controls are @vscode-elements components (Lit web
 * components in VS Code's look), and they must work under the webview's
 * strict CSP: no inline styles, stylesheets and fonts only from the
 * webview's own origin. Headless Chromium, the page the host serves
 * (webviewPage). The suite's afterEach fails a test on any CSP violation the
 * page reported; these tests also check the components really are styled
 * (a refused stylesheet leaves them bare) and that the codicons inside them
 * render from the page's own codicon.css.
 */
import assert from 'node:assert/strict';
import { type ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { INIT } from '../fixtures/chat-webview/session';

describe('chat view controls drawn by @vscode-elements, under the webview CSP (headless Chromium)', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;

  beforeEach(() => (view = suite.view()));
  const page = () => view.page;

  it('styles the pickers and buttons in VS Code\'s look through their shadow roots, with no CSP violation', async () => {
    const looks = await page().evaluate(`(() => {
      const agent = document.querySelector('#agent');
      const face = agent.shadowRoot.querySelector('.select-face');
      const send = document.querySelector('#send');
      const base = send.shadowRoot.querySelector('.base') || send.shadowRoot.firstElementChild;
      const theme = getComputedStyle(document.body);
      return {
        tags: [agent.tagName, send.tagName],
        sheets: agent.shadowRoot.adoptedStyleSheets.length + send.shadowRoot.adoptedStyleSheets.length,
        faceBorder: getComputedStyle(face).borderTopStyle,
        faceRadius: getComputedStyle(face).borderTopLeftRadius,
        sendBackground: getComputedStyle(base).backgroundColor,
        buttonBackground: theme.getPropertyValue('--vscode-button-background').trim(),
        violations: window.__violations,
      };
    })()`) as Record<string, unknown>;
    assert.deepEqual(looks['tags'], ['VSCODE-SINGLE-SELECT', 'VSCODE-BUTTON']);
    assert.ok((looks['sheets'] as number) > 0, 'the components carry their own (constructed) stylesheets');
    assert.equal(looks['faceBorder'], 'solid', 'the dropdown is drawn with its border');
    assert.equal(looks['faceRadius'], '4px');
    assert.equal(looks['sendBackground'], hexToRgb(looks['buttonBackground'] as string), 'Send is in the theme\'s button colour');
    assert.deepEqual(looks['violations'], []);
  });

  it('renders the codicons inside the components from the page\'s own codicon.css', async () => {
    await page().evaluate('document.fonts.ready');
    const icon = await page().evaluate(`(async () => {
      const link = document.getElementById('vscode-codicon-stylesheet');
      const vsIcon = document.querySelector('#send').shadowRoot.querySelector('vscode-icon');
      const inner = vsIcon.shadowRoot;
      const linked = inner.querySelector('link[rel="stylesheet"]');
      const glyph = inner.querySelector('.codicon');
      await document.fonts.load('16px codicon');
      return {
        pageLink: link && new URL(link.href).origin === location.origin,
        shadowLink: linked ? linked.getAttribute('href') : null,
        glyphClass: glyph ? glyph.className : '',
        glyphFont: glyph ? getComputedStyle(glyph).fontFamily : '',
        glyphContent: glyph ? getComputedStyle(glyph, '::before').content : '',
        // (fonts.check is true for a family no @font-face declares: look for the face itself.)
        fontLoaded: [...document.fonts].some((face) => face.family.replace(/["']/g, '') === 'codicon' && face.status === 'loaded'),
      };
    })()`) as Record<string, unknown>;
    assert.equal(icon['pageLink'], true, 'codicon.css is linked as #vscode-codicon-stylesheet from the webview\'s origin');
    assert.match(String(icon['shadowLink']), /\/codicon\.css$/, 'the icon component links the same stylesheet inside its shadow root');
    assert.match(String(icon['glyphClass']), /codicon-send/);
    assert.match(String(icon['glyphFont']), /codicon/);
    assert.notEqual(icon['glyphContent'], 'none', 'the send glyph has its character');
    assert.equal(icon['fontLoaded'], true, 'the codicon font loaded (font-src allows the webview origin)');
  });

  it('hides a hidden component (its own display rule does not win over the hidden attribute)', async () => {
    await view.send({ type: 'setup', need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' } });
    assert.equal(await page().locator('#setup-key').isVisible(), true);
    assert.equal(await page().locator('.setup-use').isVisible(), false, 'Use this server waits for a tested server');
    assert.equal(await page().locator('#setup-model').isVisible(), false);
  });
});

describe('the provider set-up in a short side bar (headless Chromium)', function () {
  // Nine sessions in an open list, as the workbench's first-run check finds them.
  const nine = Array.from({ length: 9 }, (_, index) => ({ id: `s-${index}`, title: `Session number ${index + 1}`, agent: 'build', updatedAt: '2026-01-02T09:00:00.000Z' }));

  this.timeout(60_000);
  const suite = chatViewSuite(INIT);

  it('scrolls within itself, keeping the prompt box and Send in sight', async () => {
    const page = suite.view().page;
    await page.setViewportSize({ width: 300, height: 480 });
    // The sessions list open too, as in the workbench's first-run check: little room is left.
    await suite.view().send({ type: 'sessions', sessions: nine, current: 's-0' });
    await page.locator('#sessions summary').click();
    await suite.view().send({ type: 'setup', need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' } });
    await suite.view().frames();
    const send = await page.locator('#send').boundingBox();
    assert.ok(send, 'Send is shown');
    assert.ok(send.y + send.height <= 480, `Send is inside the view (its bottom at ${send.y + send.height} of 480)`);
    await page.locator('.setup-save').scrollIntoViewIfNeeded();
    assert.equal(await page.locator('.setup-save').isVisible(), true, 'Save key is reached, scrolling the set-up where the view is this short');
  });

  it('shows the whole set-up without scrolling inside it at a side bar of 300 by 700 px, a tested server\'s models and "Use this" too', async () => {
    const page = suite.view().page;
    await page.setViewportSize({ width: 300, height: 700 });
    await suite.view().send({ type: 'setup', need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' } });
    const setup = page.locator('section.setup');
    await setup.locator('.setup-choice[data-choice="server"]').click();
    await suite.view().send({ type: 'server_test', url: 'http://localhost:11434/v1', ok: true, message: 'Connected: http://localhost:11434/v1 serves 2 models.', models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });
    await suite.view().frames();
    assert.equal(await setup.evaluate((element) => element.scrollHeight <= element.clientHeight + 1), true, 'the set-up does not scroll inside itself');
    for (const selector of ['.setup-result', '#setup-model', '.setup-use', '#send']) {
      const box = await page.locator(selector).boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= 700 && box.x + box.width <= 300, `${selector} is in sight: ${JSON.stringify(box)}`);
    }
  });
});

function hexToRgb(hex: string): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  assert.ok(match, `a #rrggbb colour: ${hex}`);
  return `rgb(${parseInt(match[1]!, 16)}, ${parseInt(match[2]!, 16)}, ${parseInt(match[3]!, 16)})`;
}
