import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { name, version } from '../../package.json';
import { authProblem, classify, closeOutcome, entryProblems, iconProblems, npmSpec, supported } from '../support/acp-registry';

const ENTRY = resolve(__dirname, '../../registry/crow-agent');
const entry = JSON.parse(readFileSync(join(ENTRY, 'agent.json'), 'utf8')) as Record<string, unknown> & { distribution: { npx: { package: string; args: string[] } } };
const icon = readFileSync(join(ENTRY, 'icon.svg'), 'utf8');

describe('the ACP registry entry (registry/crow-agent)', () => {
  it('passes the registry build checks: schema, id, version, distribution', () => {
    assert.deepEqual(entryProblems(entry, 'crow-agent'), []);
  });

  it('runs this version of the npm package: npx crow-agent@VERSION acp', () => {
    assert.equal(entry.version, version, 'bump registry/crow-agent/agent.json with package.json');
    assert.deepEqual(npmSpec(entry.distribution.npx.package), { name, version });
    assert.deepEqual(entry.distribution.npx.args, ['acp']);
  });

  it('has a 16x16 icon in currentColor only', () => {
    assert.deepEqual(iconProblems(icon), []);
  });
});

describe('the registry checks refuse what the registry refuses', () => {
  const good = { id: 'x-agent', name: 'X', version: '1.2.3', description: 'd', distribution: { npx: { package: 'x-agent@1.2.3', args: ['acp'] } } };
  const refused: [string, unknown, RegExp][] = [
    ['an id with capitals', { ...good, id: 'X-agent' }, /schema: id/],
    ['an id that is not the folder', { ...good, id: 'y-agent' }, /must match the folder/],
    ['a missing description', { ...good, description: undefined }, /schema: description/],
    ['an unknown distribution', { ...good, distribution: { docker: { image: 'x' } } }, /schema: distribution/],
    ['an unknown key in npx', { ...good, distribution: { npx: { package: 'x-agent@1.2.3', command: 'x' } } }, /schema: distribution/],
    ['@latest', { ...good, distribution: { npx: { package: 'x-agent@latest' } } }, /@latest/],
    ['a package of another version', { ...good, distribution: { npx: { package: 'x-agent@1.2.4' } } }, /\(1\.2\.4\) differs/],
    ['a scoped package of another version', { ...good, distribution: { npx: { package: '@x/agent@2.0.0' } } }, /\(2\.0\.0\) differs/],
    ['binaries for one system only', { ...good, distribution: { binary: { 'linux-x86_64': { archive: 'https://example.com/x-1.2.3.tgz', cmd: './x' } } } }, /darwin, windows/],
  ];
  for (const [what, bad, problem] of refused) {
    it(`refuses an entry with ${what}`, () => assert.match(entryProblems(bad, 'x-agent').join('\n'), problem));
  }

  const svg = (attributes: string, body = '<path fill="currentColor" d="M0 0h1v1z"/>') => `<svg xmlns="http://www.w3.org/2000/svg" ${attributes}>${body}</svg>`;
  const icons: [string, string, RegExp][] = [
    ['24x24', svg('width="24" height="24"'), /not 16x16/],
    ['not square', svg('width="16" height="12"'), /not square/],
    ['no size at all', svg(''), /no width\/height/],
    ['a hardcoded fill', svg('width="16" height="16"', '<path fill="#f00" d="M0 0"/><path fill="currentColor" d="M0 0"/>'), /fill="#f00"/],
    ['a hardcoded stroke in a style', svg('width="16" height="16"', '<path style="stroke: red" fill="currentColor" d="M0 0"/>'), /style stroke: red/],
    ['no currentColor', svg('width="16" height="16"', '<path d="M0 0"/>'), /currentColor is not used/],
  ];
  for (const [what, bad, problem] of icons) {
    it(`refuses an icon ${what}`, () => assert.match(iconProblems(bad).join('\n'), problem));
  }
  it('takes a 16x16 icon sized by its viewBox alone', () => assert.deepEqual(iconProblems(svg('viewBox="0 0 16 16"')), []));

  it('wants an auth method of type agent or terminal', () => {
    assert.equal(authProblem(undefined), 'No authMethods in response');
    assert.equal(authProblem([]), 'No authMethods in response');
    assert.match(authProblem([{ id: 'key', name: 'Key', type: 'env_var' }]) ?? '', /Found types: env_var/);
    assert.equal(authProblem([{ id: 'login', name: 'Log in', _meta: { 'terminal-auth': { command: 'crow', args: ['login'] } } }]), undefined);
    assert.equal(authProblem([{ id: 'login', name: 'Log in', type: 'terminal', args: ['login'] }]), undefined);
    // A method with neither type nor _meta counts as `agent`: the registry's default for older agents.
    assert.equal(authProblem([{ id: 'env:KEY', name: 'KEY' }]), undefined);
  });

  it('files probe answers as the protocol matrix does', () => {
    assert.equal(classify({ result: {} }), 'success');
    assert.equal(classify({ error: { code: -32601, message: 'Method not found' } }), 'method_not_found');
    assert.equal(classify({ error: { code: -32602, message: 'Invalid params' } }), 'invalid_params');
    assert.equal(classify({ error: { code: -32603, message: 'Authentication needed' } }), 'auth_required');
    assert.equal(classify({ error: { code: -32002, message: 'Session not found' } }), 'resource_not_found');
    assert.equal(classify({ error: { code: -32603, message: 'boom' } }), 'error');
    assert.equal(closeOutcome({ result: null }), 'invalid_response');
    assert.equal(closeOutcome({ result: { _meta: 'x' } }), 'invalid_response');
    assert.equal(closeOutcome({ result: {} }), 'success');
    assert.equal(supported('session/close', 'invalid_params'), false);
    assert.equal(supported('session/fork', 'invalid_params'), true);
  });
});
