import assert from 'node:assert/strict';
import { credentialsIn, hiddenVariablesOf, isSecretValue, isSecretVariable, withoutSecrets } from '../../../src/config/secret-variables';

describe('credentials by name and by value', () => {
  it('knows the database, cache, CI and cloud names, and leaves the sockets, paths and folders builds need', () => {
    const secret = [
      'PGPASSWORD', 'MYSQL_PWD', 'DB_PWD', 'REDISCLI_AUTH', 'COMPOSER_AUTH', 'AZURE_DEVOPS_EXT_PAT', 'GITHUB_PAT', 'CI_JOB_JWT', 'CI_JOB_JWT_V2',
      'SENTRY_DSN', 'DATABASE_DSN', 'SLACK_WEBHOOK_URL', 'GOOGLE_GHA_CREDS_PATH', 'DOCKER_AUTH_CONFIG', 'TWINE_PASSWORD', 'npm_config__auth',
    ];
    const ordinary = [
      'PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'XAUTHORITY', 'GPG_AGENT_INFO', 'KRB5CCNAME', 'DBUS_SESSION_BUS_ADDRESS', 'KUBECONFIG',
      'GIT_ASKPASS', 'SSH_ASKPASS', 'PATH', 'NODE_PATH', 'PAT', 'AUTH', 'PGUSER', 'PGHOST', 'DATABASE_URL', 'TOKENIZERS_PARALLELISM',
    ];
    assert.deepEqual(secret.filter((name) => !isSecretVariable(name)), []);
    assert.deepEqual(ordinary.filter(isSecretVariable), []);
  });

  it('finds credentials inside values: a URL\'s password, a connection string\'s key, a token in its vendor\'s form', () => {
    assert.deepEqual(credentialsIn('postgres://app:s3cret-pass@db:5432/app'), ['s3cret-pass']);
    assert.deepEqual(credentialsIn('redis://:cache-pass@cache:6379/0'), ['cache-pass']);
    assert.deepEqual(credentialsIn('https://a.example/simple https://user:idx-pass@b.example/simple'), ['idx-pass'], 'a list of URLs');
    assert.deepEqual(credentialsIn('Server=db;User Id=app;Password=conn-pass;'), ['conn-pass']);
    assert.deepEqual(credentialsIn('DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc/def+ghi==;EndpointSuffix=core.windows.net'), ['abc/def+ghi==']);
    for (const token of ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'sk-ant-api03-abcdefghijklmnopqrstuvwx', 'glpat-abcdefghijklmnopqrst', 'AKIAABCDEFGHIJKLMNOP', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.sig']) {
      assert.deepEqual(credentialsIn(token), [token], token);
    }
    for (const value of ['https://example.com/path', 'ssh://git@github.com/a/b.git', 'https://user@example.com/', '/usr/lib/postgresql/bin:/usr/bin', 'rs=0:di=01;34', '--max-old-space-size=4096', 'sk-short', 'C.UTF-8']) {
      assert.equal(isSecretValue(value), false, value);
    }
  });

  it('hides a variable holding a known key under another name, but never an ordinary one for sharing a short password', () => {
    const env = {
      ANTHROPIC_API_KEY: 'corp-provider-key-0123456789',
      MY_ALIAS: 'corp-provider-key-0123456789',
      AUTH_HEADER: 'Bearer corp-provider-key-0123456789',
      CORP_LLM: 'settings-named-key-0123456789',
      COPY_OF_CORP: 'settings-named-key-0123456789',
      PGPASSWORD: 'postgres',
      PGUSER: 'postgres',
      PATH: '/usr/lib/postgresql/bin:/usr/bin',
      HOME: '/home/me',
    };
    assert.deepEqual(hiddenVariablesOf(env, ['CORP_LLM']), ['ANTHROPIC_API_KEY', 'AUTH_HEADER', 'COPY_OF_CORP', 'CORP_LLM', 'MY_ALIAS', 'PGPASSWORD']);
    assert.deepEqual(Object.keys(withoutSecrets(env, ['CORP_LLM'])).sort(), ['HOME', 'PATH', 'PGUSER']);
  });
});
