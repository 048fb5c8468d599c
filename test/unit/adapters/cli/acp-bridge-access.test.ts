import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { answeringHosts, type BridgeAccess, RefusalBudget, refusal } from '../../../../src/adapters/cli/acp-bridge-access';
import { AgentLines } from '../../../../src/adapters/cli/acp-bridge-lines';

const request = (headers: Record<string, string>, url = '/?token=the-right-token-000'): IncomingMessage =>
  ({ headers, url, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;

describe('who may connect to crow acp-bridge', () => {
  it('answers to loopback names on its own port when it listens on loopback, to any name otherwise', () => {
    assert.deepEqual([...answeringHosts('127.0.0.1', 8765)!].sort(), ['127.0.0.1:8765', '[::1]:8765', 'localhost:8765']);
    assert.ok(answeringHosts('::1', 9)!.has('[::1]:9'));
    assert.ok(answeringHosts('127.0.0.2', 9)!.has('127.0.0.2:9'));
    assert.equal(answeringHosts('0.0.0.0', 9), undefined);
    assert.equal(answeringHosts('192.168.1.5', 9), undefined);
  });

  it('refuses by Host, then Origin, then token, and counts each refusal', () => {
    let now = 0;
    const access: BridgeAccess = { token: 'the-right-token-000', origins: new Set(), hosts: answeringHosts('127.0.0.1', 80), budget: new RefusalBudget(3, 1, () => now) };
    assert.equal(refusal(request({ host: 'localhost:80' }), access), undefined);
    assert.equal(refusal(request({ host: 'evil.example:80' }), access)?.status, 403);
    assert.equal(refusal(request({ host: 'localhost:80', origin: 'http://evil.example' }), access)?.status, 403);
    assert.equal(refusal(request({ host: 'localhost:80' }, '/?token=wrong'), access)?.status, 401);
    const spent = refusal(request({ host: 'localhost:80' }), access);
    assert.equal(spent?.status, 429, 'three refusals spent the budget: even the right token is refused unchecked');
    assert.match(spent!.reason, /every connection is refused for 1 s/);
    now += 999;
    assert.equal(refusal(request({ host: 'localhost:80' }), access)?.status, 429);
    now += 1;
    assert.equal(refusal(request({ host: 'localhost:80' }), access), undefined, 'one attempt a second is checked again');
  });

  it('tells the first refusal of a spell from the next ones, so the log says it once', () => {
    let now = 0;
    const budget = new RefusalBudget(1, 1, () => now);
    assert.equal(budget.open(), true);
    budget.spend();
    assert.equal(budget.open(), false);
    assert.deepEqual([budget.firstOfSpell(), budget.firstOfSpell()], [true, false]);
    now += 1000;
    assert.equal(budget.open(), true);
    budget.spend();
    assert.equal(budget.open(), false);
    assert.equal(budget.firstOfSpell(), true, 'a new spell');
  });
});

describe('the lines an agent writes to the bridge', () => {
  it('splits LF-ended lines, dropping a CR before the LF, whatever the chunks (a character cut in two included)', () => {
    const input = new PassThrough();
    const lines: string[] = [];
    new AgentLines(input, 100).on('line', (line) => lines.push(line));
    const umlaut = Buffer.from('ü');
    for (const piece of ['{"a":1}\r', '\n{"b"', ':2}\n\n{"c":"', umlaut.subarray(0, 1), umlaut.subarray(1), '"}\n']) input.write(piece);
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '', '{"c":"ü"}']);
  });

  it('reports a line over the limit once and reads no more', () => {
    const input = new PassThrough();
    const lines: string[] = [];
    let overflows = 0;
    const reader = new AgentLines(input, 10);
    reader.on('line', (line) => lines.push(line));
    reader.on('overflow', () => overflows++);
    input.write('0123456789\n');
    input.write('01234567');
    input.write('890\nlater\n');
    input.write('more\n');
    reader.resume();
    assert.deepEqual(lines, ['0123456789']);
    assert.equal(overflows, 1);
    assert.equal(input.isPaused(), true, 'the agent\'s output is no longer read');
  });
});
