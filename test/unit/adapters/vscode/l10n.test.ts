import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import * as l10n from '@vscode/l10n';
import { adapterSources, BUNDLE, bundleText, CHAT_WEBVIEW, EVAL_REPORT, extract, parse, SHARED_WORDING, TRACE_VIEWER, where } from '../../../../scripts/l10n-strings';
import { welcomeText } from '../../../../src/adapters/vscode/chat/transcript-translator';
import { policyFromConfig } from '../../../../src/config/permission-config';

const ROOT = join(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { l10n?: string; contributes: Record<string, unknown> };
const nls = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;

/** Every string value in package.json, with its path (contributes.commands.3.title). */
function strings(value: unknown, path: string[] = []): { path: string[]; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => strings(item, [...path, String(index)]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => strings(item, [...path, key]));
  return [];
}

/** VS Code replaces a whole-string "%key%" by the key's text (its manifest translator's pattern). */
const NLS_KEY = /^%([\w.-]+)%$/;

/**
 * Words VS Code shows from package.json: these fields wherever they occur,
 * and the extension's display name and description. Names that are
 * identifiers (`name` of a chat participant, slash commands) stay literal.
 */
const SHOWN_FIELDS = new Set(['title', 'description', 'markdownDescription', 'enumDescriptions', 'enumItemLabels', 'contents', 'fullName', 'displayName', 'altText', 'category']);

function shown(entry: { path: string[] }): boolean {
  const [top, section] = entry.path;
  if (entry.path.length === 1) return top === 'displayName' || top === 'description';
  if (top !== 'contributes' && top !== 'capabilities') return false;
  const field = entry.path.filter((part) => !/^\d+$/.test(part)).at(-1)!;
  // A view's `name` is its title; a chat participant's `name` is what people type after @.
  return SHOWN_FIELDS.has(field) || (section === 'views' && field === 'name');
}

describe('the extension speaks through translatable strings', () => {
  describe('package.json and package.nls.json', () => {
    const all = strings(manifest);
    const used = all.flatMap((entry) => NLS_KEY.exec(entry.text)?.[1] ?? []);

    it('every %key% package.json uses has its English text in package.nls.json', () => {
      assert.deepEqual(used.filter((key) => nls[key] === undefined), []);
    });

    it('every key of package.nls.json is used (no stale text left for translators)', () => {
      assert.deepEqual(Object.keys(nls).filter((key) => !used.includes(key)), []);
    });

    it('every title, description, setting text, view name and walkthrough text is a %key%, not a literal', () => {
      const literal = all.filter((entry) => shown(entry) && !NLS_KEY.test(entry.text)).map((entry) => `${entry.path.join('.')}: ${entry.text}`);
      assert.deepEqual(literal, []);
    });

    it('a translator finds no empty text and no %key% inside a text', () => {
      for (const [key, text] of Object.entries(nls)) {
        assert.ok(text.trim() !== '', key);
        assert.doesNotMatch(text, NLS_KEY, key);
      }
    });
  });

  describe("the adapter's messages (src/adapters/vscode/)", () => {
    it('l10n/bundle.l10n.json is what the sources say (npx tsx scripts/l10n-export.ts writes it)', () => {
      const { found, problems } = extract();
      assert.deepEqual(problems, []);
      assert.ok(found.length > 150, `only ${found.length} messages found: is the export reading the sources?`);
      assert.equal(readFileSync(BUNDLE, 'utf8'), bundleText(found));
      assert.equal(manifest.l10n, './l10n', 'package.json names the folder VS Code loads bundle.l10n.<locale>.json from');
    });

    it('no message, notification, picker, input box, progress or status bar text bypasses t()', () => {
      assert.deepEqual(adapterSources().flatMap(untranslated), []);
    });

    it("no text the chat view draws (labels, buttons, titles, aria-labels, placeholders) bypasses t()", () => {
      assert.deepEqual(adapterSources(CHAT_WEBVIEW).flatMap(undrawn), []);
    });

    it('no text the trace viewer draws (toolbar, rows, story, details, notices, labels) bypasses t()', () => {
      // http-transport.ts runs only in a browser on crow trace --serve, which never has a bundle: its notices stay English.
      const files = adapterSources(TRACE_VIEWER).filter((file) => !file.endsWith('http-transport.ts'));
      assert.deepEqual(files.flatMap((file) => traceUndrawn(parse(file))), []);
    });

    it("no word the eval report shows in VS Code (its page's headings and notes, its script's tables, charts and lines) bypasses t()", () => {
      assert.deepEqual(adapterSources(EVAL_REPORT).flatMap((file) => traceUndrawn(parse(file), EVAL_DRAWING)), []);
      const source = readFileSync(join(ROOT, 'src', 'eval', 'eval-report.ts'), 'utf8');
      const page = source.slice(source.indexOf('export function htmlReport'), source.indexOf('export function reportScript'));
      // Text between tags in the page's HTML: every word comes as ${text(t('…'))}.
      assert.deepEqual([...page.matchAll(/>([^<>${}`\n]*\p{L}[^<>${}`\n]*)</gu)].map((match) => match[1]), []);
    });

    it("no word of a tool card's head (doing, done, ask, target, outcome) bypasses t() in the shared tool-story.ts", () => {
      assert.deepEqual(SHARED_WORDING.flatMap((file) => toolUnworded(parse(file))), []);
    });

    it('the trace viewer and tool-word scans find a literal that bypasses t(), and pass one that does not', () => {
      // Named story.ts: the story's returns are words too.
      const scan = (code: string): ts.SourceFile => ts.createSourceFile('story.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const viewer = traceUndrawn(scan(`
        this.toolbar.tell(\`Skipped \${n} lines\`, true);
        panel.replaceChildren(paragraph('Select a span.'));
        const fields: Field[] = [['duration', took], [t('name'), span.name]];
        const figures = [['gen_ai.usage.input_tokens', (figure) => t\`\${figure} in\`]];
        menu.items = [{ id: 'copy', label: 'Copy JSON' }, { id: 'x', label: t('Copy OTLP JSON') }];
        function said(): string { return arg('command') ? \`ran \${arg('command')}\` : t('ran a command'); }
        parts.push(\`exit \${code}\`, t\`ttft \${ms}\`);
        if (kind === 'llm_call') element.className = 'row';
        return { actor: 'you', text: t('asked') };
      `)).map((found) => found.replace(/^[^:]+:\d+: /, ''));
      assert.deepEqual(viewer, ['Skipped ', ' lines', 'Select a span.', 'duration', 'Copy JSON', 'ran ', 'exit ', 'you']);
      const tools = toolUnworded(scan(`
        const verbs = { read_file: { doing: 'Reading', done: t('Read'), ask: t('read') } };
        function callOutcome(): string | undefined { if (x === 'grep') return files === 0 ? 'no matches' : t('{0} files', files); return undefined; }
      `)).map((found) => found.replace(/^[^:]+:\d+: /, ''));
      assert.deepEqual(tools, ['Reading', 'no matches']);
    });

    it('the scan finds a literal that bypasses t(), and passes one that does not', () => {
      const found = untranslatedIn(`
        vscode.window.showInformationMessage('Crow: nothing to do.');
        vscode.window.showWarningMessage(\`Undo \${x}?\`, { modal: true, detail: 'gone for good' }, 'Restore');
        vscode.window.showQuickPick(items.map((item) => ({ label: item, description: 'current' })), { title: 'Pick one' });
        vscode.window.showInformationMessage(t('Crow: nothing to do.'), t\`Show \${x}\`);
        vscode.window.showQuickPick(items, { title: t('Pick one'), matchOnDescription: true });
        item.text = \`$(bell-dot) \${t('waiting')}\`;
        item.tooltip = 'Crow waits';
      `);
      assert.deepEqual(found, ['Crow: nothing to do.', 'Undo ', 'gone for good', 'Restore', 'current', 'Pick one', 'Crow waits']);
    });

    it('with a bundle for the display language, the chat speaks it; without one, English', () => {
      const policy = policyFromConfig(undefined, false);
      const english = welcomeText(policy, false);
      const key = 'Ask Crow to read, change or explain the code of this workspace. It {0} and {1}.';
      try {
        l10n.config({ contents: { [key]: 'Bitte Crow, den Code zu lesen oder zu ändern. Es {0} und {1}.', 'asks before changing files': 'fragt vor dem Ändern von Dateien' } });
        assert.equal(welcomeText(policy, false), 'Bitte Crow, den Code zu lesen oder zu ändern. Es fragt vor dem Ändern von Dateien und asks before running commands.');
      } finally {
        l10n.config({ contents: {} });
      }
      assert.equal(welcomeText(policy, false), english);
      assert.match(english, /^Ask Crow to read/);
    });
  });
});

/** The VS Code calls whose string arguments a person reads. */
const SHOWING_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'showQuickPick', 'createQuickPick', 'showInputBox', 'withProgress', 'setStatusBarMessage', 'showSaveDialog', 'showOpenDialog']);
/** Options of those calls that are no words: where a file goes, which extensions a dialog filters on, what a click runs. */
const NOT_SHOWN = new Set(['defaultUri', 'filters', 'command', 'arguments']);
/** Calls whose string arguments are keys into data (the trace viewer's story and details). */
const KEY_CALLS = new Set(['arg', 'num', 'number']);
/** Properties a person reads wherever they are set (status bar items, tree items, code lenses). */
const SHOWING_PROPERTIES = new Set(['tooltip', 'text', 'name']);

function untranslated(file: string): string[] {
  const source = parse(file);
  return literalsOutsideT(source).map(({ node, text }) => `${where(source, node)}: ${text}`);
}

function untranslatedIn(code: string): string[] {
  const source = ts.createSourceFile('scan.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  return literalsOutsideT(source).map(({ text }) => text);
}

/**
 * String literals and template texts with words in them (a codicon's
 * `$(name)` is no word) passed to a showing call, or assigned to a showing
 * property of a vscode object, that are not inside a t() or t`…`.
 */
function literalsOutsideT(source: ts.SourceFile, calls: string[] = []): { node: ts.Node; text: string }[] {
  const found: { node: ts.Node; text: string }[] = [];
  const collect = (node: ts.Node): void => {
    if (isT(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return add(node, node.text);
    if (ts.isTemplateExpression(node)) {
      add(node, node.head.text);
      for (const span of node.templateSpans) {
        collect(span.expression);
        add(span.literal, span.literal.text);
      }
      return;
    }
    // A property's name is no text; comparisons and lookups (`=== 'json'`) are not shown.
    if (ts.isPropertyAssignment(node)) return NOT_SHOWN.has(node.name.getText()) ? undefined : collect(node.initializer);
    if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)) return;
    // arg('path'), num(span, 'crow.cost_usd'): a key picks a value, it is not shown.
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && KEY_CALLS.has(node.expression.text)) return node.arguments.forEach((argument) => ts.isStringLiteral(argument) || collect(argument));
    if (ts.isElementAccessExpression(node) || (ts.isCallExpression(node) && !isShowing(node) && ts.isPropertyAccessExpression(node.expression) && ['join', 'split', 'replace', 'test', 'padStart'].includes(node.expression.name.text))) return;
    ts.forEachChild(node, collect);
  };
  const add = (node: ts.Node, text: string): void => {
    // A codicon's `$(name)` and an example address are no words.
    if (/\p{L}/u.test(text.replace(/\$\([\w-]+\)/g, '').replace(/\bhttps?:\/\/\S*/g, ''))) found.push({ node, text });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && (isShowing(node) || (ts.isIdentifier(node.expression) && calls.includes(node.expression.text)))) {
      node.arguments.forEach(collect);
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      SHOWING_PROPERTIES.has(node.left.name.text) &&
      // item.text = …, this.item.tooltip = …: the objects VS Code draws.
      /\bitem\b/i.test(node.left.expression.getText(source))
    ) {
      collect(node.right);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The chat webview's drawing helpers and which argument is text
 * (webview/chat/elements.ts, its VS Code elements), the attributes a person
 * reads or hears, and the properties that set shown text.
 */
const DRAWING_ARGUMENT: Record<string, number> = { el: 2, button: 0, vsButton: 0, labelled: 0, label: 0, details: 1, option: 1, vsTextfield: 2, setLabel: 1 };
const SHOWN_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder']);
const SHOWN_PROPERTIES = new Set(['title', 'textContent', 'placeholder', 'label']);

function undrawn(file: string): string[] {
  const source = parse(file);
  const found: string[] = [];
  const check = (node: ts.Node | undefined): void => {
    if (!node) return;
    for (const text of literalsOutsideT(ts.createSourceFile('x.ts', `show(${node.getText(source)})`, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS), ['show'])) {
      found.push(`${where(source, node)}: ${text.text}`);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = ts.isIdentifier(node.expression) ? node.expression.text : ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : '';
      if (name in DRAWING_ARGUMENT && ts.isIdentifier(node.expression)) check(node.arguments[DRAWING_ARGUMENT[name]!]);
      const [attribute, value] = node.arguments;
      if (name === 'setAttribute' && attribute && ts.isStringLiteral(attribute) && SHOWN_ATTRIBUTES.has(attribute.text)) check(value);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && SHOWN_PROPERTIES.has(node.left.name.text)) {
      check(node.right);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The trace viewer's sinks for words (webview/trace-viewer/): its helpers
 * and which argument is text, the toolbar's notices (`tell`), the details'
 * [label, value] fields, menu items' and story labels' text, a row's
 * summary parts, and every string story.ts returns (the story's wording);
 * plus the attributes and properties the chat's scan reads.
 */
const TRACE_DRAWING: Record<string, number> = { paragraph: 0, table: 0, button: 1, labelled: 0, select: 1, option: 1, tell: 0 };
/** The eval report script's helper: table(into, titles, rows). */
const EVAL_DRAWING: Record<string, number> = { table: 1 };
const TRACE_TEXT_PROPERTIES = new Set(['label', 'text', 'actor']);

function traceUndrawn(source: ts.SourceFile, drawing = TRACE_DRAWING): string[] {
  const found: string[] = [];
  const check = (node: ts.Node | undefined): void => {
    if (node) found.push(...literalsIn(source, node));
  };
  const story = source.fileName.endsWith('story.ts');
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = ts.isIdentifier(node.expression) ? node.expression.text : ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : '';
      if (name in drawing) check(node.arguments[drawing[name]!]);
      if (name === 'push' && ts.isPropertyAccessExpression(node.expression) && /parts$/.test(node.expression.expression.getText(source))) node.arguments.forEach(check);
      const [attribute, value] = node.arguments;
      if (name === 'setAttribute' && attribute && ts.isStringLiteral(attribute) && SHOWN_ATTRIBUTES.has(attribute.text)) check(value);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && SHOWN_PROPERTIES.has(node.left.name.text)) {
      check(node.right);
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && TRACE_TEXT_PROPERTIES.has(node.name.text)) {
      check(node.initializer);
    } else if (ts.isArrayLiteralExpression(node) && node.elements.length >= 2 && ts.isStringLiteral(node.elements[0]!) && ts.isArrayLiteralExpression(node.parent)) {
      // A row of labelled values ([label, value], a table row): the label is shown (an attribute's key, gen_ai.usage.input_tokens, is not).
      if (!/^[\w-]+(\.[\w-]+)+$/.test(node.elements[0].text)) check(node.elements[0]);
    } else if (story && ts.isReturnStatement(node) && node.expression && !ts.isObjectLiteralExpression(node.expression)) {
      check(node.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** tool-story.ts: the verbs (doing, done, ask, target) and what callOutcome and folder return. */
function toolUnworded(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && ['doing', 'done', 'ask', 'target'].includes(node.name.text)) {
      found.push(...literalsIn(source, node.initializer));
    } else if (ts.isReturnStatement(node) && node.expression) {
      const fn = ts.findAncestor(node, ts.isFunctionDeclaration);
      if (fn?.name && ['callOutcome', 'folder'].includes(fn.name.text)) found.push(...literalsIn(source, node.expression));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The word-bearing literals of `node` outside t(), as file:line: text. */
function literalsIn(source: ts.SourceFile, node: ts.Node): string[] {
  const wrapped = ts.createSourceFile('x.ts', `show(${node.getText(source)})`, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  return literalsOutsideT(wrapped, ['show']).map((literal) => `${where(source, node)}: ${literal.text}`);
}

function isShowing(node: ts.CallExpression): boolean {
  return ts.isPropertyAccessExpression(node.expression) && SHOWING_CALLS.has(node.expression.name.text);
}

function isT(node: ts.Node): boolean {
  if (ts.isTaggedTemplateExpression(node)) return ts.isIdentifier(node.tag) && node.tag.text === 't';
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 't';
}

describe('the walkthrough', () => {
  const walkthroughs = manifest.contributes['walkthroughs'] as { id: string; steps: { id: string; description: string; media: { markdown?: string; image?: string; altText?: string }; completionEvents?: string[] }[] }[];
  const commands = new Set((manifest.contributes['commands'] as { command: string }[]).map((entry) => entry.command));
  const views = Object.values(manifest.contributes['views'] as Record<string, { id: string }[]>).flat().map((view) => view.id);
  /** VS Code's own commands a step may use (built-ins, and the focus command every view gets). */
  const builtIn = new Set(['workbench.action.openSettings', ...views.map((view) => `${view}.focus`)]);

  it('walks through connecting a model, a first prompt, reviewing a change and the trace, in that order', () => {
    assert.equal(walkthroughs.length, 1);
    assert.deepEqual(walkthroughs[0]!.steps.map((step) => step.id), ['connect', 'prompt', 'review', 'trace']);
  });

  it("each step has a page in the package and a button that runs one of the extension's commands", () => {
    for (const step of walkthroughs[0]!.steps) {
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media && existsSync(join(ROOT, media)), `${step.id}: its media ${media} exists`);
      const description = nls[NLS_KEY.exec(step.description)![1]!]!;
      const links = [...description.matchAll(/\]\(command:([\w.-]+)/g)].map((match) => match[1]!);
      assert.ok(links.length > 0, `${step.id} has a command button`);
      for (const id of links) assert.ok(commands.has(id) || builtIn.has(id), `${step.id}: command:${id} is contributed or built in`);
      for (const event of step.completionEvents ?? []) {
        const [kind, target] = event.split(':');
        if (kind === 'onCommand') assert.ok(commands.has(target!), `${step.id}: ${event}`);
        if (kind === 'onSettingChanged') assert.ok(target! in (manifest.contributes['configuration'] as { properties: object }).properties, `${step.id}: ${event}`);
        if (kind === 'onView') assert.ok(views.includes(target!), `${step.id}: ${event}`);
      }
    }
  });

  it("names in its pages only Crow's settings that exist", () => {
    const settings = Object.keys((manifest.contributes['configuration'] as { properties: object }).properties);
    for (const step of walkthroughs[0]!.steps) {
      const page = readFileSync(join(ROOT, step.media.markdown!), 'utf8');
      for (const [name] of page.matchAll(/crow\.[\w.]+[A-Za-z]/g)) assert.ok(settings.includes(name), `${step.id}: ${name}`);
    }
  });
});
