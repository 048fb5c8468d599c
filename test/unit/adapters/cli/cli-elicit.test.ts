import assert from 'node:assert/strict';
import { terminalQuestions } from '../../../../src/adapters/cli/cli-elicit';
import { styleFor } from '../../../../src/adapters/cli/terminal-style';
import { elicitForm } from '../../../../src/mcp/elicitation-form';
import { fakeIO } from '../../../support/fake-io';

const form = (server: string) => elicitForm(server, { message: `${server} asks`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });

describe('MCP questions on the terminal', () => {
  it('asks two servers\' forms one after the other, never interleaving their lines', async () => {
    const io = fakeIO({ answers: ['y', 'first', 'y', 'second'] });
    const { elicit } = terminalQuestions(io, styleFor(io.stderr, io.env));
    const signal = new AbortController().signal;
    const answers = await Promise.all([elicit(form('one'), signal), elicit(form('two'), signal)]);
    assert.deepEqual(answers, [
      { action: 'accept', content: { name: 'first' } },
      { action: 'accept', content: { name: 'second' } },
    ]);
    assert.ok(io.err().indexOf('MCP server "two"') > io.err().indexOf('answered'), io.err());
  });

  it('cancels a waiting question whose request was cancelled, without asking it', async () => {
    const io = fakeIO({ answers: ['n'] });
    const { elicit } = terminalQuestions(io, styleFor(io.stderr, io.env));
    const cancelled = new AbortController();
    const first = elicit(form('one'), new AbortController().signal);
    const second = elicit(form('two'), cancelled.signal);
    cancelled.abort();
    assert.deepEqual(await Promise.all([first, second]), [{ action: 'decline' }, { action: 'cancel' }]);
    assert.doesNotMatch(io.err(), /MCP server "two"/);
  });
});
