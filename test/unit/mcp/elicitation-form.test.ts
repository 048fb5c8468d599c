import assert from 'node:assert/strict';
import { answerProblem, ELICIT_LIMITS, elicitForm, ElicitRefusal, shownText } from '../../../src/mcp/elicitation-form';
import { elicitUrl } from '../../../src/mcp/elicitation-url';

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  elicitForm('srv', { message: 'Tell me', requestedSchema: { type: 'object', properties, ...extra } });
const refused = (properties: Record<string, unknown>, why: RegExp) =>
  assert.throws(() => form(properties), (err: unknown) => err instanceof ElicitRefusal && /MCP server "srv" asked for input Crow cannot ask/.test(err.message) && why.test(err.message));

describe('elicitation forms', () => {
  it('reads the spec\'s plain fields: text with a format, numbers with bounds, yes/no, one choice, several choices', () => {
    const read = form(
      {
        name: { type: 'string', title: 'Name', description: 'Your name', minLength: 2 },
        email: { type: 'string', format: 'email' },
        age: { type: 'integer', minimum: 1, maximum: 120, default: 42 },
        ok: { type: 'boolean', default: true },
        hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }, { const: 'h2', title: 'Batman' }], default: 'h2' },
        size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
        fish: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] }, maxItems: 1 },
        tools: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
      },
      { required: ['name'] },
    );
    assert.deepEqual(
      read.fields.map((field) => [field.name, field.kind, field.required]),
      [['name', 'text', true], ['email', 'text', false], ['age', 'number', false], ['ok', 'boolean', false], ['hero', 'choice', false], ['size', 'choice', false], ['fish', 'choices', false], ['tools', 'choices', false]],
    );
    assert.deepEqual(read.fields[4], { name: 'hero', title: 'hero', required: false, kind: 'choice', options: [{ value: 'h1', label: 'Superman' }, { value: 'h2', label: 'Batman' }], default: 'h2' });
    assert.deepEqual(read.fields[5]!.kind === 'choice' && read.fields[5]!.options, [{ value: 's', label: 'Small' }, { value: 'm', label: 'Medium' }]);
  });

  it('refuses what is not a flat form of plain fields, naming the server and the field', () => {
    refused({ nested: { type: 'object', properties: {} } }, /field "nested": type "object" is not/);
    refused({ list: { type: 'array', items: { type: 'string' } } }, /field "list": a list that is not a list of choices/);
    refused({ any: {} }, /field "any": type missing/);
    refused({ none: { type: 'string', enum: [] } }, /a choice with no options/);
    assert.throws(() => elicitForm('srv', { message: 'x', requestedSchema: { type: 'array' } }), /requestedSchema is not of type "object"/);
    assert.throws(() => elicitForm('srv', { requestedSchema: { type: 'object', properties: {} } }), /sent no message/);
  });

  it('refuses forms over the caps: a huge message, too many questions, options or long titles', () => {
    assert.throws(() => elicitForm('srv', { message: 'x'.repeat(ELICIT_LIMITS.messageChars + 1), requestedSchema: { type: 'object', properties: {} } }), /message is over/);
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, { type: 'string' }]));
    assert.throws(() => form(many), /it asks 10000 questions; at most 30/);
    refused({ pick: { type: 'string', enum: Array.from({ length: 5_000 }, (_, i) => `o${i}`) } }, /over 100 options/);
    refused({ t: { type: 'string', title: 'x'.repeat(10_000) } }, /title or description over 500/);
  });

  it('shows hostile text as text: terminal escapes, carriage returns and bidi overrides become visible marks', () => {
    const read = elicitForm('srv', {
      message: 'Hi\u001b[2J\u001b]8;;http://evil\u0007click\rgone\u202eevil\nsecond line <b>bold</b>',
      requestedSchema: { type: 'object', properties: { x: { type: 'string', title: 'T\u001b[31mred', enum: ['v\u001b'], enumNames: ['L\u0007'] } } },
    });
    assert.equal(read.message, 'Hi\\u001b[2J\\u001b]8;;http://evil\\u0007click\\u000dgone\\u202eevil\nsecond line <b>bold</b>');
    assert.equal(read.fields[0]!.title, 'T\\u001b[31mred');
    assert.deepEqual(read.fields[0]!.kind === 'choice' && read.fields[0]!.options, [{ value: 'v\u001b', label: 'L\\u0007' }]);
    assert.equal(shownText('tab\tkept'), 'tab\tkept');
  });

  it('checks an answer against the form: required, types, bounds, formats, choices, no stray keys', () => {
    const read = form(
      {
        name: { type: 'string', minLength: 2 },
        email: { type: 'string', format: 'email' },
        age: { type: 'integer', minimum: 1, maximum: 120 },
        ok: { type: 'boolean' },
        hero: { type: 'string', enum: ['a', 'b'] },
        tools: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 1 },
      },
      { required: ['name'] },
    );
    assert.equal(answerProblem(read, { name: 'Al', email: 'a@b.co', age: 3, ok: false, hero: 'b', tools: ['a'] }), undefined);
    assert.equal(answerProblem(read, {}), 'name is required');
    assert.equal(answerProblem(read, { name: 'A' }), 'name: at least 2 characters');
    assert.equal(answerProblem(read, { name: 'Al', email: 'nope' }), 'email: not a valid email');
    assert.equal(answerProblem(read, { name: 'Al', age: 2.5 }), 'age: must be a whole number');
    assert.equal(answerProblem(read, { name: 'Al', age: 121 }), 'age: at most 120');
    assert.equal(answerProblem(read, { name: 'Al', ok: 'yes' }), 'ok: must be yes or no');
    assert.equal(answerProblem(read, { name: 'Al', hero: 'c' }), 'hero: not one of the choices');
    assert.equal(answerProblem(read, { name: 'Al', tools: ['a', 'b'] }), 'tools: choose at most 1');
    assert.equal(answerProblem(read, { name: 'Al', extra: 1 }), '"extra" is not one of the questions');
  });

  it('keeps a default only when it fits its field', () => {
    const read = form({ n: { type: 'number', maximum: 5, default: 9 }, s: { type: 'string', enum: ['a'], default: 'a' } });
    assert.equal(read.fields[0]!.default, undefined);
    assert.equal(read.fields[1]!.default, 'a');
  });
});

describe('URL-mode elicitation', () => {
  const url = (value: string) => elicitUrl('srv', { message: 'Sign in', url: value, elicitationId: 'e1' });
  it('shows the URL\'s own host first, international names as punycode', () => {
    assert.deepEqual(url('https://auth.example.com/login?x=1'), { server: 'srv', message: 'Sign in', url: 'https://auth.example.com/login?x=1', domain: 'auth.example.com', elicitationId: 'e1' });
    assert.equal(url('https://exаmple.com/').domain, 'xn--exmple-4nf.com', 'a Cyrillic "а" does not pass as example.com');
    assert.equal(url('http://localhost:8080/cb').domain, 'localhost:8080');
  });
  it('refuses what it will not offer: other schemes, plain http elsewhere, credentials, huge URLs', () => {
    for (const [value, why] of [
      ['javascript:alert(1)', /is javascript, not https/],
      ['file:///etc/passwd', /is file, not https/],
      ['http://example.com/', /is http, not https/],
      ['https://bank.com@evil.example/', /carries a user name or password/],
      [`https://example.com/${'a'.repeat(3_000)}`, /over 2048 characters/],
      ['not a url', /is not one/],
    ] as const) {
      assert.throws(() => url(value), (err: unknown) => err instanceof ElicitRefusal && why.test(err.message), value);
    }
  });
});
