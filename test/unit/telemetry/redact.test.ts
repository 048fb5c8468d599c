import assert from 'node:assert/strict';
import { REDACTED, Redactor } from '../../../src/telemetry/redact';
import { TraceRecorder } from '../../../src/telemetry/trace-recorder';

describe('secrets never reach spans or exports', () => {
  const env = {
    ANTHROPIC_API_KEY: 'sk-ant-api03-very-secret-value',
    GITHUB_TOKEN: 'ghp_abcdefghijklmnop',
    MY_SECRET: 'hunter2-but-longer',
    SHORT_KEY: 'abc',
    PATH: '/usr/bin:/bin',
  };
  const redactor = new Redactor(env);

  it('replaces values of variables named like KEY, TOKEN or SECRET', () => {
    const text = 'key sk-ant-api03-very-secret-value, token ghp_abcdefghijklmnop, secret hunter2-but-longer, path /usr/bin:/bin, abc';
    assert.equal(redactor.text(text), `key ${REDACTED}, token ${REDACTED}, secret ${REDACTED}, path /usr/bin:/bin, abc`);
  });

  it('replaces credentials in headers wherever they appear', () => {
    assert.equal(redactor.text('Authorization: Bearer abc.def.ghi'), `Authorization: ${REDACTED}`);
    assert.equal(redactor.text('curl -H "x-api-key: zzz123"'), `curl -H "x-api-key: ${REDACTED}"`);
    assert.equal(redactor.text('token=Bearer eyJhbGciOiJIUzI1NiJ9.payload'), `token=Bearer ${REDACTED}`);
  });

  it('redacts span attributes and status messages as they are recorded', () => {
    const recorder = new TraceRecorder([], redactor);
    const span = recorder.startTrace('tool', 'execute_tool bash', {
      attributes: { 'gen_ai.tool.call.arguments': '{"command":"echo sk-ant-api03-very-secret-value"}' },
    });
    span.set({ note: ['ok', 'ghp_abcdefghijklmnop'] });
    span.end('error', 'failed with hunter2-but-longer');
    const [record] = recorder.spans;
    assert.doesNotMatch(JSON.stringify(record), /very-secret|ghp_|hunter2/);
    assert.match(JSON.stringify(record), /\[REDACTED\]/);
  });
});
