/**
 * Claude on Amazon Bedrock and on Google Vertex AI through the real binary
 * (`crow run` and `crow acp`), against strict fakes of each cloud's door in
 * front of the fake LLM server: Bedrock checks every request's SigV4
 * signature and answers in AWS event-stream framing; Vertex AI takes only
 * access tokens its token endpoint issued for the credentials file the test
 * writes. The credentials never show in output, sessions or traces, and a
 * missing one says what to set. Everything on loopback: the SDKs' other
 * credential sources (instance metadata, gcloud) are switched off.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { FakeBedrock } from '../../testkit/fake-bedrock';
import { FakeVertex } from '../../testkit/fake-vertex';
import { runCrow, startAcp } from '../support/crow-binary';
import { binarySuite, type BinarySuite } from '../support/binary-suite';
import { isolatedEnv } from '../support/isolated-env';

/** Records the files a crow process reads (see read-recorder.cjs). */
const RECORDER = resolve(__dirname, '../support/read-recorder.cjs');
const CLOUD_BUNDLES = { bedrock: resolve(__dirname, '../../dist/bedrock.js'), vertex: resolve(__dirname, '../../dist/vertex.js') };

const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** A tool call, then the answer. */
const WRITE_THEN_ANSWER: ScriptedReply[] = [call('write_file', { path: 'hello.txt', content: 'hello from the cloud\n' }), say('I wrote hello.txt.')];

const AWS = { accessKeyId: 'AKIAFAKECROWTEST0001', secretAccessKey: 'crow-fake-aws-secret-0123456789abcdefghij' };
const AWS_REGION = 'eu-west-3';
const BEDROCK_MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const GCP = { project: 'crow-test-project', region: 'us-east5', subjectToken: 'crow-fake-subject-token-0123456789abcdef' };
const VERTEX_MODEL = 'claude-sonnet-4-5@20250929';

/** What keeps the SDKs off the network beyond loopback when they look for credentials: no instance metadata, no gcloud. */
const NO_CLOUD_METADATA = { AWS_EC2_METADATA_DISABLED: 'true', METADATA_SERVER_DETECTION: 'none' };

interface Cloud {
  name: string;
  start(fx: BinarySuite): Promise<{ requests: { rawUrl: string }[]; takeRefusals(): unknown[]; close(): Promise<void> }>;
  /** The provider entry, for the running fake. */
  config(): string;
  /** The variables holding the credentials (files they name written under `home`). */
  credentials(home: string): Record<string, string>;
  /** What must never be shown or stored. */
  secrets(): string[];
  /** The path of a model request. */
  modelPath: RegExp;
  /** The provider's name in the run's header and telemetry (OpenTelemetry's gen_ai.provider.name). */
  providerName: string;
  /** What the missing-credential error must name. */
  missing: RegExp;
}

let bedrock: FakeBedrock;
let vertex: FakeVertex;

const CLOUDS: Cloud[] = [
  {
    name: 'Amazon Bedrock',
    start: async (fx) => (bedrock = await FakeBedrock.start({ upstream: fx.llm, credentials: AWS, region: AWS_REGION })),
    config: () => `provider = "aws"\n[providers.aws]\ntype = "bedrock"\nregion = "${AWS_REGION}"\nbase_url = "${bedrock.url}"\ndefault_model = "${BEDROCK_MODEL}"\n`,
    credentials: () => ({ AWS_ACCESS_KEY_ID: AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey }),
    secrets: () => [AWS.secretAccessKey],
    providerName: 'aws.bedrock',
    modelPath: /^\/model\/anthropic\.claude-sonnet-4-5-20250929-v1(:|%3A)0\/invoke-with-response-stream$/,
    missing: /No AWS credentials for provider "aws" \(Amazon Bedrock\): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE/,
  },
  {
    name: 'Google Vertex AI',
    start: async (fx) => (vertex = await FakeVertex.start({ upstream: fx.llm, ...GCP })),
    config: () =>
      `provider = "gcp"\n[providers.gcp]\ntype = "vertex"\nregion = "${GCP.region}"\nproject_id = "${GCP.project}"\nbase_url = "${vertex.baseUrl}"\ndefault_model = "${VERTEX_MODEL}"\n`,
    credentials: (home) => ({ GOOGLE_APPLICATION_CREDENTIALS: writeGoogleCredentials(home) }),
    secrets: () => [GCP.subjectToken, ...vertex.issuedTokens],
    providerName: 'gcp.vertex_ai',
    modelPath: /^\/v1\/projects\/crow-test-project\/locations\/us-east5\/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:streamRawPredict$/,
    missing: /No Google credentials for provider "gcp" \(Vertex AI\): set GOOGLE_APPLICATION_CREDENTIALS/,
  },
];

/**
 * A workload identity federation credentials file (type external_account,
 * https://cloud.google.com/iam/docs/workload-identity-federation-with-other-providers#create-cred-config)
 * whose token_url is the fake's token endpoint and whose subject token is
 * read from a file beside it.
 */
function writeGoogleCredentials(home: string): string {
  const dir = join(home, 'gcloud');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'subject-token'), GCP.subjectToken);
  const file = join(dir, 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/123456789/locations/global/workloadIdentityPools/crow-pool/providers/crow-provider',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: vertex.tokenUrl,
      credential_source: { file: join(dir, 'subject-token') },
    }),
  );
  return file;
}

/** Every file under `dir` (sessions, traces, logs) but the credential files the test wrote, as text. */
function storedText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile() && !path.includes(join('home', 'gcloud')) && !path.includes(join('home', '.aws')))
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');
}

for (const cloud of CLOUDS) {
  describe(`Claude on ${cloud.name} through the binary, against a strict fake`, function () {
    this.timeout(60_000);
    const fx = binarySuite('cloud');
    let front: Awaited<ReturnType<Cloud['start']>>;

    before(async () => (front = await cloud.start(fx)));
    after(() => front.close());
    beforeEach(() => {
      front.requests.length = 0;
      mkdirSync(join(fx.home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(join(fx.home, 'config', 'crow-agent', 'config.toml'), `max_retries = 0\n${cloud.config()}`);
    });
    afterEach(() => assert.deepEqual(front.takeRefusals(), [], 'the cloud refused nothing unexpected'));

    it('crow run: a tool call, then the answer; the credentials shown or stored nowhere', async () => {
      fx.llm.enqueue('anthropic', ...WRITE_THEN_ANSWER);
      const run = await runCrow(['run', 'Write hello.txt', '--allow', 'all', '--no-undo'], isolatedEnv(fx.home, { ...NO_CLOUD_METADATA, ...cloud.credentials(fx.home) }), fx.root);

      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /I wrote hello\.txt\./);
      assert.ok(run.stderr.includes(`builder ${cloud.providerName}/`), run.stderr);
      assert.equal(readFileSync(join(fx.root, 'hello.txt'), 'utf8'), 'hello from the cloud\n');
      const modelCalls = front.requests.filter((request) => cloud.modelPath.test(request.rawUrl.split('?')[0]!));
      assert.equal(modelCalls.length, 2, `the model was asked twice: ${front.requests.map((request) => request.rawUrl).join(', ')}`);
      const [first, second] = fx.llm.requestsFor('anthropic');
      assert.equal(first!.body.model, cloud.name === 'Amazon Bedrock' ? BEDROCK_MODEL : VERTEX_MODEL, 'the model came from the path');
      assert.match(JSON.stringify(second!.body.messages), /"type":"tool_result"/, 'the tool result went back');
      const stored = storedText(fx.home);
      assert.match(stored, /I wrote hello\.txt\./, 'the session and trace were stored, and are read here');
      const shown = `${run.stdout}\n${run.stderr}\n${stored}\n${storedText(fx.root)}`;
      for (const secret of cloud.secrets()) assert.ok(!shown.includes(secret), `a credential was shown or stored: ${secret.slice(0, 8)}…`);
    });

    it('crow acp: a prompt answered after a tool call, ending its turn', async () => {
      fx.llm.enqueue('anthropic', ...WRITE_THEN_ANSWER);
      const agent = startAcp(fx.root, fx.home, { ...NO_CLOUD_METADATA, ...cloud.credentials(fx.home) }, { permission: () => 'allow_once' });
      try {
        await agent.client.initialize();
        const { sessionId } = await agent.client.newSession(fx.root);
        const answer = await agent.client.prompt(sessionId, 'Write hello.txt');
        assert.equal(answer.stopReason, 'end_turn', agent.stderr());
        assert.equal(readFileSync(join(fx.root, 'hello.txt'), 'utf8'), 'hello from the cloud\n');
        const said = agent.client.updates(sessionId, 'agent_message_chunk').map((update) => (update.content.type === 'text' ? update.content.text : '')).join('');
        assert.match(said, /I wrote hello\.txt\./);
      } finally {
        assert.equal(await agent.stop(), 0, agent.stderr());
      }
      const shown = `${agent.stderr()}\n${storedText(fx.home)}\n${storedText(fx.root)}`;
      for (const secret of cloud.secrets()) assert.ok(!shown.includes(secret), `a credential was shown or stored: ${secret.slice(0, 8)}…`);
    });

    it('loads its own SDK bundle only: the other cloud\'s stays unread', async () => {
      fx.llm.enqueue('anthropic', say('Hello.'));
      const reads = join(fx.base, 'reads.log');
      const env = { ...NO_CLOUD_METADATA, ...cloud.credentials(fx.home), NODE_OPTIONS: `--require ${RECORDER}`, CROW_TEST_READS: reads };
      const run = await runCrow(['run', 'Hi', '--no-undo'], isolatedEnv(fx.home, env), fx.root);

      assert.equal(run.code, 0, run.stderr);
      const read = readFileSync(reads, 'utf8').split('\n');
      const [own, other] = cloud.name === 'Amazon Bedrock' ? [CLOUD_BUNDLES.bedrock, CLOUD_BUNDLES.vertex] : [CLOUD_BUNDLES.vertex, CLOUD_BUNDLES.bedrock];
      assert.ok(read.includes(own), `${own} was loaded`);
      assert.ok(!read.includes(other), `${other} was not loaded`);
    });

    it('a reviewed agent (pair): the builder fixes, the reviewer checks and approves, nothing refused', async () => {
      writeFileSync(join(fx.root, 'calc.js'), 'exports.add = (a, b) => a - b;\n');
      writeFileSync(join(fx.root, 'test.js'), "const assert = require('assert');\nassert.equal(require('./calc').add(2, 3), 5);\nconsole.log('ok');\n");
      fx.llm.enqueue(
        'anthropic',
        call('write_file', { path: 'calc.js', content: 'exports.add = (a, b) => a + b;\n' }),
        call('bash', { command: 'node test.js' }),
        say('I fixed add() and the test passes.'),
        say('Changed add() in calc.js to return a + b; node test.js prints ok.'),
        call('bash', { command: 'node test.js' }),
        call('task_complete', { summary: 'Verified: node test.js passes.' }),
      );
      const run = await runCrow(['run', 'Fix add() in calc.js', '--agent', 'pair', '--allow', 'all', '--no-undo'], isolatedEnv(fx.home, { ...NO_CLOUD_METADATA, ...cloud.credentials(fx.home) }), fx.root);

      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /approved/);
      assert.equal(fx.llm.pending('anthropic'), 0, 'every scripted reply was asked for');
      assert.equal(front.requests.filter((request) => cloud.modelPath.test(request.rawUrl.split('?')[0]!)).length, 6);
    });

    it('without credentials: no request leaves, and the error says what to set', async () => {
      const run = await runCrow(['run', 'Write hello.txt', '--allow', 'all', '--no-undo'], isolatedEnv(fx.home, NO_CLOUD_METADATA), fx.root);

      assert.notEqual(run.code, 0);
      assert.match(run.stderr, cloud.missing);
      assert.deepEqual(front.requests, [], 'nothing reached the cloud');
      assert.equal(fx.llm.requestsFor('anthropic').length, 0);
    });
  });
}

describe('a run on Anthropic\'s API, through the binary', function () {
  this.timeout(60_000);
  const fx = binarySuite('no-cloud');

  it('reads neither cloud SDK bundle', async () => {
    fx.llm.enqueue('anthropic', say('Hello.'));
    const reads = join(fx.base, 'reads.log');
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fx.llm.anthropicBaseUrl, NODE_OPTIONS: `--require ${RECORDER}`, CROW_TEST_READS: reads };
    const run = await runCrow(['run', 'Hi', '--no-undo'], isolatedEnv(fx.home, env), fx.root);

    assert.equal(run.code, 0, run.stderr);
    const read = readFileSync(reads, 'utf8').split('\n');
    assert.ok(read.some((path) => path.endsWith('crow-cli.js')), 'the recorder sees the bundles Node loads');
    for (const bundle of Object.values(CLOUD_BUNDLES)) assert.ok(!read.includes(bundle), `${bundle} was not loaded`);
  });
});

describe('Claude on Google Vertex AI with credentials Google refuses', function () {
  this.timeout(60_000);
  const fx = binarySuite('cloud-refused');

  it('names the credentials and what Google said, once, without retrying', async () => {
    vertex = await FakeVertex.start({ upstream: fx.llm, ...GCP, subjectToken: 'another-subject-token' });
    try {
      mkdirSync(join(fx.home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(join(fx.home, 'config', 'crow-agent', 'config.toml'), CLOUDS[1]!.config());
      const run = await runCrow(['run', 'Hi', '--no-undo'], isolatedEnv(fx.home, { ...NO_CLOUD_METADATA, ...CLOUDS[1]!.credentials(fx.home) }), fx.root);

      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /Google refused the credentials of provider "gcp" \(Vertex AI\) \(invalid_grant: The provided subject token is invalid\.\): check the file GOOGLE_APPLICATION_CREDENTIALS names/);
      assert.doesNotMatch(run.stderr, /retry/i);
      assert.ok(!run.stderr.includes(GCP.subjectToken));
      // google-auth-library retries a refused exchange itself (gaxios' retry of POST), so there may be more than one; no model request was made.
      const refusals = vertex.takeRefusals();
      assert.ok(refusals.length >= 1 && refusals.every((refusal) => refusal.rule === 'vertex/sts'), JSON.stringify(refusals));
      assert.ok(vertex.requests.every((request) => request.rawUrl === '/sts/v1/token'));
      assert.equal(fx.llm.requests.length, 0);
    } finally {
      await vertex.close();
    }
  });
});

describe('Claude on Amazon Bedrock with the credentials of an AWS profile', function () {
  this.timeout(60_000);
  const fx = binarySuite('cloud-profile');

  it('signs with the profile AWS_PROFILE names in ~/.aws/credentials, as the AWS CLI reads it', async () => {
    bedrock = await FakeBedrock.start({ upstream: fx.llm, credentials: AWS, region: AWS_REGION });
    try {
      mkdirSync(join(fx.home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(join(fx.home, 'config', 'crow-agent', 'config.toml'), CLOUDS[0]!.config());
      mkdirSync(join(fx.home, '.aws'));
      writeFileSync(join(fx.home, '.aws', 'credentials'), `[default]\naws_access_key_id = AKIAFAKECROWTEST0009\naws_secret_access_key = not-this-one\n\n[crow]\naws_access_key_id = ${AWS.accessKeyId}\naws_secret_access_key = ${AWS.secretAccessKey}\n`);
      fx.llm.enqueue('anthropic', say('Signed by the profile.'));
      const run = await runCrow(['run', 'Hi', '--no-undo'], isolatedEnv(fx.home, { ...NO_CLOUD_METADATA, AWS_PROFILE: 'crow' }), fx.root);

      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /Signed by the profile\./);
      assert.deepEqual(bedrock.takeRefusals(), []);
      assert.ok(!`${run.stdout}${run.stderr}${storedText(fx.home)}`.includes(AWS.secretAccessKey));
    } finally {
      await bedrock.close();
    }
  });
});
