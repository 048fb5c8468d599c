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

describe('credentials found by value are redacted too', () => {
  const redactor = new Redactor({
    PGPASSWORD: 'pg-password-0123',
    MYSQL_PWD: 'mysql-pwd-0123',
    REDISCLI_AUTH: 'redis-auth-0123',
    AZURE_DEVOPS_EXT_PAT: 'azure-pat-0123456',
    CI_JOB_JWT: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.signature',
    DATABASE_URL: 'postgres://app:db-url-password@db/app',
    STORAGE: 'AccountName=a;AccountKey=account-key-0123456789;',
    MY_ALIAS: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  });

  it('redacts the values of the database, CI and cloud variables, the passwords and keys inside values, and tokens in their vendor\'s form', () => {
    const text = [
      'pg-password-0123', 'mysql-pwd-0123', 'redis-auth-0123', 'azure-pat-0123456', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.signature',
      'db-url-password', 'account-key-0123456789', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    ].join(' ');
    assert.equal(redactor.text(text), Array(8).fill(REDACTED).join(' '));
  });

  it("redacts a URL's password wherever it appears, however short", () => {
    assert.equal(new Redactor({}).text('psql "postgresql://app:pw@db/app" and redis://:x@cache'), `psql "postgresql://app:${REDACTED}@db/app" and redis://:${REDACTED}@cache`);
    assert.equal(new Redactor({}).text('see https://example.com/a@b and git@github.com:a/b'), 'see https://example.com/a@b and git@github.com:a/b');
  });
});
