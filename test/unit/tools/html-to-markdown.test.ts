import assert from 'node:assert/strict';
import { convertHtml, decodeEntities } from '../../../src/tools/html-to-markdown';

const BASE = 'https://docs.example.com/guide/intro.html';
const markdown = (html: string): string => convertHtml(html, { baseUrl: BASE }).text;

const ARTICLE_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Getting started &mdash; Example Docs</title>
  <script>window.dataLayer = []; document.write("<p>injected</p>");</script>
  <style>body { font: 14px sans-serif } p > a { color: red }</style>
</head>
<body>
  <nav class="top"><a href="/">Home</a> | <a href="/blog">Blog</a></nav>
  <div class="sidebar"><ul><li><a href="/a">Sidebar link</a></li></ul></div>
  <main id="content">
    <h1>Getting   started</h1>
    <p>Install the <strong>CLI</strong> with <code>npm i -g example</code>, then read
       the <a href="../reference/api.html#setup">API reference</a> or the
       <a href="https://other.org/page?x=1&amp;y=2">other site</a>.</p>
    <h2>Steps</h2>
    <ol>
      <li>Create a project
        <ul>
          <li>pick a <em>name</em></li>
          <li>pick a folder</li>
        </ul>
      </li>
      <li>Run it</li>
    </ol>
    <pre><code class="language-js">const x = a &lt; b &amp;&amp; c;
if (x) {
  console.log("ok");
}</code></pre>
    <blockquote><p>Note: quotes work.</p><p>Twice.</p></blockquote>
    <table>
      <thead><tr><th>Option</th><th>Default</th></tr></thead>
      <tbody>
        <tr><td><code>--fast</code></td><td>off</td></tr>
        <tr><td>--path</td><td>a|b</td></tr>
      </tbody>
    </table>
    <noscript><p>Enable JavaScript</p></noscript>
    <svg><text>chart label</text></svg>
  </main>
  <footer>&copy; 2024 Example</footer>
</body>
</html>`;

describe('html-to-markdown', () => {
  it('keeps the main content of a realistic page as markdown', () => {
    const { title, text } = convertHtml(ARTICLE_PAGE, { baseUrl: BASE });
    assert.equal(title, 'Getting started — Example Docs');
    assert.equal(
      text,
      [
        '# Getting started',
        '',
        'Install the **CLI** with `npm i -g example`, then read the ' +
          '[API reference](https://docs.example.com/reference/api.html#setup) or the ' +
          '[other site](https://other.org/page?x=1&y=2).',
        '',
        '## Steps',
        '',
        '1. Create a project',
        '   - pick a *name*',
        '   - pick a folder',
        '2. Run it',
        '',
        '```js',
        'const x = a < b && c;',
        'if (x) {',
        '  console.log("ok");',
        '}',
        '```',
        '',
        '> Note: quotes work.',
        '>',
        '> Twice.',
        '',
        '| Option | Default |',
        '| --- | --- |',
        '| `--fast` | off |',
        '| --path | a\\|b |',
      ].join('\n'),
    );
  });

  it('drops scripts, styles, navigation, footers and hidden elements', () => {
    const text = markdown(
      '<body><nav>Menu</nav><script>alert("x")</script><style>.a{}</style><p>Kept</p>' +
        '<div hidden>hidden</div><span aria-hidden="true">icon</span><p style="display: none">gone</p>' +
        '<template><p>template</p></template><footer>Footer</footer></body>',
    );
    assert.equal(text, 'Kept');
  });

  it('renders the whole body when there is no main, and a single article when there is one', () => {
    assert.equal(markdown('<body><header><h1>Site</h1></header><p>Body text</p></body>'), '# Site\n\nBody text');
    assert.equal(markdown('<body><div>Chrome</div><article><p>Story</p></article></body>'), 'Story');
    assert.equal(markdown('<article><p>One</p></article><article><p>Two</p></article>'), 'One\n\nTwo');
    assert.equal(markdown('<div role="main"><p>Role main</p></div><p>Other</p>'), 'Role main');
  });

  it('falls back to the whole page when <main> is empty', () => {
    assert.equal(markdown('<main></main><p>Rendered elsewhere</p>'), 'Rendered elsewhere');
  });

  it('resolves links and images, honouring <base href>, and drops fragment and script links', () => {
    assert.equal(markdown('<a href="/x">abs</a> <a href="y">rel</a>'), '[abs](https://docs.example.com/x) [rel](https://docs.example.com/guide/y)');
    assert.equal(markdown('<head><base href="https://cdn.example.net/v2/"></head><a href="z">based</a>'), '[based](https://cdn.example.net/v2/z)');
    assert.equal(markdown('<a href="#top">Top</a> <a href="javascript:void(0)">Click</a> <a href="/e"></a>'), 'Top Click');
    assert.equal(
      markdown('<img src="/logo.png" alt="Logo"> <img src="data:image/png;base64,AAA" alt="Inline"> <img src="/px.gif">'),
      '![Logo](https://docs.example.com/logo.png) Inline',
    );
  });

  it('keeps nested lists, list numbering and stray nested lists', () => {
    assert.equal(
      markdown('<ul><li>a<ul><li>b<ol start="7"><li>c</li><li>d</li></ol></li></ul></li><li>e</li></ul>'),
      '- a\n  - b\n    7. c\n    8. d\n- e',
    );
    assert.equal(markdown('<ul><li>a</li><ul><li>inner</li></ul><li>b</li></ul>'), '- a\n  - inner\n- b');
    assert.equal(markdown('<ul><li>one<li>two</ul>'), '- one\n- two');
  });

  it('fences code with a longer fence when the code holds backticks, and keeps highlighted lines', () => {
    assert.equal(markdown('<pre>use ```md``` here</pre>'), '````\nuse ```md``` here\n````');
    assert.equal(markdown('<p>Run <code>a`b</code></p>'), 'Run `` a`b ``');
    const highlighted = '<pre class="lang-py"><div class="line"><span>def</span> f():</div><div class="line">    return 1</div></pre>';
    assert.equal(markdown(highlighted), '```py\ndef f():\n    return 1\n```');
  });

  it('renders layout tables as flowing text and pads ragged data tables', () => {
    const nestedTables = '<table><tr><td><table><tr><td>inner</td><td>cell</td></tr></table></td></tr></table>';
    assert.equal(markdown(nestedTables), '| inner | cell |\n| --- | --- |');
    assert.equal(markdown('<table><tr><td><p>Only column</p></td></tr><tr><td>Second</td></tr></table>'), 'Only column\n\nSecond');
    const ragged = '<table><caption>Sizes</caption><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr></table>';
    assert.equal(markdown(ragged), 'Sizes\n\n| a | b |\n| --- | --- |\n| 1 |  |');
  });

  it('decodes named and numeric entities and leaves unknown ones', () => {
    assert.equal(
      decodeEntities('&lt;a&gt; &amp;amp; &quot;q&quot; &#39;s&#39; &#x1F600; &hellip; &unknown; &#0; AT&T'),
      `<a> &amp; "q" 's' 😀 … &unknown; \ufffd AT&T`,
    );
    assert.equal(markdown('<p>a&nbsp;&nbsp;b &copy;</p>'), 'a b ©');
  });

  it('collapses whitespace but keeps line breaks', () => {
    assert.equal(markdown('<p>  one\n\t two  <br>  three <br><br><br><br> four</p>'), 'one two\nthree\n\nfour');
  });

  it('renders plain text without markdown syntax', () => {
    const { text } = convertHtml(ARTICLE_PAGE, { baseUrl: BASE, format: 'text' });
    assert.match(text, /^Getting started\n\nInstall the CLI with npm i -g example, then read the API reference or the other site\./);
    assert.match(text, /\nconst x = a < b && c;\n/);
    assert.match(text, /\n\| Option \| Default \|\n\| `?--fast`? \| off \|/);
    assert.doesNotMatch(text, /```|\*\*|\]\(/);
  });

  it('survives malformed markup without throwing', () => {
    const broken = [
      '<div><p>unclosed <b>bold <i>both</div> after',
      '<<<>>> < 3 and 4 > 2 <a href=">x',
      '</div></p>stray closers</span>',
      '<!-- never closed <p>hidden',
      '<script>never closed',
      '<table><tr><td>a<td>b<tr><td>c',
      '<p title="a>b">quoted bracket</p>',
      '<head><title>T</title><p>content without body',
      '<<p>>>&&&#;&#x;&#99999999;',
      '',
    ];
    const results = broken.map((html) => markdown(html));
    assert.equal(results[0], 'unclosed **bold *both***\n\nafter');
    assert.ok(results[1]!.startsWith('<<<>>> < 3 and 4 > 2 '));
    assert.equal(results[2], 'stray closers');
    assert.equal(results[3], '');
    assert.equal(results[4], '');
    assert.equal(results[5], '| a | b |\n| --- | --- |\n| c |  |');
    assert.equal(results[6], 'quoted bracket');
    assert.equal(results[7], 'content without body');
    assert.equal(results[8], '<\n\n>>&&&#;&#x;\ufffd');
    assert.equal(results[9], '');
  });

  it('stays linear on large and pathological input (a quadratic pass would take hours on these)', function () {
    this.timeout(120_000);
    const section =
      '<section><h2>Part</h2>' +
      '<p>Lorem <a href="/x">ipsum</a> dolor &amp; sit <b>amet</b>, consectetur adipiscing elit.</p>'.repeat(20) +
      '<ul><li>a</li><li>b</li></ul><table><tr><td>1</td><td>2</td></tr></table><pre><code>x = 1\n</code></pre></section>';
    const inputs = [
      `<html><body><main>${section.repeat(1_000)}</main></body></html>`,
      `${'<div>'.repeat(50_000)}deep${'</div>'.repeat(50_000)}`,
      `${'<blockquote><ul><li>'.repeat(5_000)}${'x'.repeat(100_000)}`,
      '<'.repeat(500_000),
      '<a x="'.repeat(100_000),
    ];
    for (const html of inputs) {
      const started = Date.now();
      convertHtml(html, { baseUrl: BASE });
      // A bound far from the linear cost (tens of ms) and far below a quadratic one: no loaded machine crosses it by chance.
      assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms on ${html.slice(0, 30)}…`);
    }
    assert.match(markdown(inputs[1]!), /^deep$/);
  });
});
