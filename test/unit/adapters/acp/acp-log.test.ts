import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createAcpLogger } from '../../../../src/adapters/acp/acp-log';
import { Redactor } from '../../../../src/telemetry/redact';

describe('crow acp logs', () => {
  it('never hold a key: secret-looking variables at once, a folder’s own key variables once its sessions open', async () => {
    const state = mkdtempSync(join(tmpdir(), 'crow-log-'));
    const env = { XDG_STATE_HOME: state, ANTHROPIC_API_KEY: 'sk-ant-logged-key-0001', CORP_LLM_CRED: 'corp-cred-value-0002' };
    const stderr = new PassThrough();
    let printed = '';
    stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const logger = createAcpLogger(env, stderr);
    logger.log('warn', 'provider said: invalid x-api-key sk-ant-logged-key-0001');
    logger.knowSecrets?.(new Redactor(env, ['CORP_LLM_CRED']));
    logger.log('warn', 'provider said: bad credential corp-cred-value-0002', { echoed: 'corp-cred-value-0002' });
    await logger.close();
    const files = readdirSync(join(state, 'crow-agent', 'logs')).map((name) => readFileSync(join(state, 'crow-agent', 'logs', name), 'utf8')).join('');
    for (const text of [printed, files]) {
      assert.ok(!text.includes('sk-ant-logged-key-0001') && !text.includes('corp-cred-value-0002'), text);
      assert.equal(text.match(/\[REDACTED\]/g)?.length, 3);
    }
    rmSync(state, { recursive: true, force: true });
  });
});
