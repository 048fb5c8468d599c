/**
 * `crow eval k8s` through the real binary, as a Kubernetes engineer would
 * run it: the Job and its NetworkPolicy pass the Kubernetes API schema
 * (kubernetes-models validates against the OpenAPI spec) and lock the pods
 * down; the Job's own pod command, run here for three indexes as the Job
 * controller would run it, prints each shard's results into its log; and
 * `crow eval k8s collect` gathers those logs (saved files, or through a
 * kubectl as strict as the real one about what it is asked) into one
 * report, refusing a log that was cut, altered or salted with a block of
 * someone else's making.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readResults } from '../../src/eval/eval-runner';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { scriptedSolver } from '../../testkit/scripted-solver';
import { runCrow } from '../support/crow-binary';
import { solverTasks } from '../support/eval-solver';
import { isolatedEnv } from '../support/isolated-env';

const TASKS_DIR = resolve(__dirname, '../../eval/tasks');
const TASKS = 'js-clamp,py-fizzbuzz';

interface Container {
  command: string[];
  args: string[];
  env: unknown[];
  resources: unknown;
  securityContext: Record<string, unknown>;
  volumeMounts?: unknown[];
}
interface JobManifest {
  kind: string;
  spec: { completions: number; parallelism: number; template: { spec: { automountServiceAccountToken: boolean; securityContext: Record<string, unknown>; containers: Container[]; volumes?: Record<string, unknown>[] } } };
}

/**
 * kubectl as the collect step uses it: `get pods --selector job-name=NAME
 * --output json` and `logs POD`, answered from files; any other call is an
 * error, as kubectl answers an unknown command or flag (exit 1, on stderr).
 */
const FAKE_KUBECTL = `#!/bin/sh
printf '%s\\n' "$*" >> "$KUBECTL_LOG"
if [ "$1 $2 $3 $5 $6" = "get pods --selector --output json" ]; then cat "$KUBECTL_DIR/pods-$4.json"; exit 0; fi
if [ "$1" = logs ] && [ $# -eq 2 ] && [ -f "$KUBECTL_DIR/log-$2" ]; then cat "$KUBECTL_DIR/log-$2"; exit 0; fi
if [ "$1" = logs ]; then echo "Error from server (NotFound): pods \\"$2\\" not found" >&2; exit 1; fi
echo "error: unknown command \\"$1\\" for \\"kubectl\\"" >&2; exit 1
`;

describe('crow eval k8s: the Job, its pods and collecting their results', function () {
  this.timeout(300_000);
  let server: FakeLlmServer;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-eval-k8s-'));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-secret-key-123', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  async function manifests(args: string[]): Promise<{ job: JobManifest; policy: Record<string, unknown>; yaml: string }> {
    const run = await runCrow(['eval', 'k8s', '--image', 'registry.example/crow-eval:0.1', ...args], env, home);
    assert.equal(run.code, 0, run.stderr);
    const [job, policy] = parseAllDocuments(run.stdout).map((document) => document.toJS() as Record<string, unknown>);
    return { job: job as unknown as JobManifest, policy: policy!, yaml: run.stdout };
  }

  it('writes a Job and a NetworkPolicy that validate against the Kubernetes API schema and lock the pods down', async () => {
    const { job, policy, yaml } = await manifests(['--shards', '8', '--parallelism', '3', '--provider', 'anthropic', '--agents', 'build,pair', '--repeat', '5', '--cpu', '500m', '--memory', '3Gi']);
    // kubernetes-models is ESM only: its models validate against the Kubernetes OpenAPI schema.
    const { Job } = await import('kubernetes-models/batch/v1/Job');
    const { NetworkPolicy } = await import('kubernetes-models/networking.k8s.io/v1/NetworkPolicy');
    new Job(job as never).validate();
    new NetworkPolicy(policy as never).validate();
    assert.throws(() => new Job({ ...job, spec: { ...job.spec, completions: 'eight' } } as never).validate(), 'the schema check is real');
    const pod = job.spec.template.spec;
    const [container] = pod.containers;
    assert.deepEqual(container!.command, ['crow']);
    assert.deepEqual(container!.args, ['eval', 'k8s', 'shard', '$(JOB_COMPLETION_INDEX)/8', '--provider', 'anthropic', '--agents', 'build,pair', '--repeat', '5']);
    assert.equal(pod.automountServiceAccountToken, false);
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
    assert.deepEqual(container!.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    assert.deepEqual(container!.resources, { requests: { cpu: '500m', memory: '3Gi', 'ephemeral-storage': '4Gi' }, limits: { memory: '3Gi', 'ephemeral-storage': '4Gi' } });
    assert.equal(pod.volumes, undefined, 'no volume is shared between pods (no ReadWriteMany claim)');
    assert.equal(container!.volumeMounts, undefined);
    assert.ok(container!.env.some((variable) => JSON.stringify(variable) === JSON.stringify({ name: 'ANTHROPIC_API_KEY', valueFrom: { secretKeyRef: { name: 'crow-eval-keys', key: 'ANTHROPIC_API_KEY' } } })));
    assert.ok(!yaml.includes('sk-ant-secret-key-123'), 'no key in the manifest');
    const egress = (policy.spec as { egress: { to?: { ipBlock: { cidr: string; except?: string[] } }[]; ports: { port: number }[] }[] }).egress;
    assert.deepEqual(egress[0]!.ports.map((port) => port.port), [53, 53]);
    assert.deepEqual(egress[1]!.to![0]!.ipBlock.cidr, '0.0.0.0/0');
    assert.ok(egress[1]!.to![0]!.ipBlock.except!.includes('169.254.0.0/16'), 'the cloud metadata address is out of reach');
  });

  it('pins egress to the model endpoint when asked, and refuses what is not a quantity or a CIDR', async () => {
    const { policy } = await manifests(['--shards', '2', '--egress', '203.0.113.0/24,198.51.100.7/32', '--egress-port', '8443']);
    assert.deepEqual((policy.spec as { egress: { to?: unknown[]; ports: unknown[] }[] }).egress[1], {
      to: [{ ipBlock: { cidr: '203.0.113.0/24' } }, { ipBlock: { cidr: '198.51.100.7/32' } }],
      ports: [{ protocol: 'TCP', port: 8443 }],
    });
    for (const [flags, problem] of [
      [['--memory', 'lots'], /--memory wants a Kubernetes quantity such as 500m, 2 or 4Gi, got "lots"\./],
      [['--egress', 'model.example.com'], /--egress wants CIDR blocks such as 203\.0\.113\.0\/24, got "model\.example\.com"\./],
      [['--egress-port', '70000'], /--egress-port wants a port \(1 to 65535\), got "70000"\./],
    ] as const) {
      const bad = await runCrow(['eval', 'k8s', '--image', 'x', '--shards', '2', ...flags], env, home);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, problem);
    }
  });

  /** Runs the Job's pod command for every index, as the Job controller would, each log saved as kubectl logs prints it (stderr and stdout). */
  async function runPods(shards: number): Promise<string[]> {
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(loadTasks(TASKS_DIR, TASKS)) }));
    const { job } = await manifests(['--shards', String(shards), '--provider', 'anthropic', '--tasks', TASKS, '--agents', 'build', '--repeat', '2']);
    const [container] = job.spec.template.spec.containers;
    assert.deepEqual(container!.command, ['crow']);
    const logs: string[] = [];
    for (let index = 0; index < shards; index++) {
      const args = container!.args.map((arg) => arg.replace('$(JOB_COMPLETION_INDEX)', String(index)));
      const work = join(home, `tmp-${index}`);
      mkdirSync(work, { mode: 0o700 });
      const pod = await runCrow(args, { ...env, TMPDIR: work }, home);
      assert.equal(pod.code, 0, pod.stderr);
      assert.deepEqual(readdirSync(work).filter((name) => name.startsWith('crow-eval-shard-')), [], 'the shard removes its scratch folder');
      const log = join(home, `shard-${index}.log`);
      writeFileSync(log, pod.stderr + pod.stdout);
      logs.push(log);
    }
    return logs;
  }

  it("runs the Job's pod command for three indexes and collects their logs into one report with every run", async () => {
    const logs = await runPods(3);
    const collect = await runCrow(['eval', 'k8s', 'collect', '--out', join(home, 'merged'), ...logs], env, home);
    assert.equal(collect.code, 0, collect.stderr);
    const results = readResults(join(home, 'merged', 'results.jsonl'));
    assert.deepEqual(results.map((result) => `${result.task} ${result.repeat} ${result.passed}`).sort(), ['js-clamp 1 true', 'js-clamp 2 true', 'py-fizzbuzz 1 true', 'py-fizzbuzz 2 true']);
    assert.ok(existsSync(join(home, 'merged', 'report.html')));
    assert.match(readFileSync(join(home, 'merged', 'report.md'), 'utf8'), /build/);
    const clamp = results.find((result) => result.task === 'js-clamp')!;
    assert.match(readFileSync(join(home, 'merged', clamp.artifacts!.diff), 'utf8'), /^--- a\/clamp\.js/, 'the runs\' artifacts come along');
  });

  it('leaves out a shard whose log was altered, and takes a pod\'s own block over one printed into its log before it', async () => {
    const logs = await runPods(3);
    const altered = readFileSync(logs[1]!, 'utf8').replace(/(crow-eval-shard data .{40})(.)/, (_, head: string, char: string) => `${head}${char === 'A' ? 'B' : 'A'}`);
    writeFileSync(logs[1]!, altered);
    // A block another program printed first (model-written code runs in the pod), naming a file outside the folder.
    const forged = readFileSync(logs[2]!, 'utf8').replace(/^/, 'crow-eval-shard begin 2/3 bytes=4 sha256=' + '0'.repeat(64) + '\ncrow-eval-shard data AAAA\ncrow-eval-shard end 2/3\n');
    writeFileSync(logs[2]!, forged);
    const collect = await runCrow(['eval', 'k8s', 'collect', '--out', join(home, 'merged'), ...logs], env, home);
    assert.equal(collect.code, 0, collect.stderr);
    assert.match(collect.stderr, /shard-1\.log: its results block does not match its length and SHA-256 \(cut, or altered\); its runs are left out\./);
    const results = readResults(join(home, 'merged', 'results.jsonl'));
    assert.equal(results.length, 3, 'shards 0 and 2 are merged');
    assert.match(readFileSync(join(home, 'merged', 'report.md'), 'utf8'), /1\/3|missing/i, 'the report names the missing shard');
    const none = await runCrow(['eval', 'k8s', 'collect', '--out', join(home, 'empty'), logs[1]!], env, home);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /No log held a shard's results/);
  });

  it('collects through kubectl: the latest succeeded pod of each index', async () => {
    const logs = await runPods(2);
    const dir = join(home, 'kubectl');
    mkdirSync(dir);
    const pod = (name: string, index: number, phase: string, startTime: string) => ({
      metadata: { name, annotations: { 'batch.kubernetes.io/job-completion-index': String(index) } },
      status: { phase, startTime },
    });
    writeFileSync(
      join(dir, 'pods-job-name=crow-eval.json'),
      JSON.stringify({ items: [pod('crow-eval-0-aaa', 0, 'Failed', '2026-11-30T01:00:00Z'), pod('crow-eval-0-bbb', 0, 'Succeeded', '2026-11-30T02:00:00Z'), pod('crow-eval-1-ccc', 1, 'Succeeded', '2026-11-30T01:00:00Z')] }),
    );
    writeFileSync(join(dir, 'log-crow-eval-0-bbb'), readFileSync(logs[0]!));
    writeFileSync(join(dir, 'log-crow-eval-1-ccc'), readFileSync(logs[1]!));
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'kubectl'), FAKE_KUBECTL);
    chmodSync(join(bin, 'kubectl'), 0o755);
    const kubectlLog = join(home, 'kubectl.log');
    const collect = await runCrow(['eval', 'k8s', 'collect', '--job', 'crow-eval', '--out', join(home, 'merged')], { ...env, PATH: `${bin}:${env.PATH}`, KUBECTL_DIR: dir, KUBECTL_LOG: kubectlLog }, home);
    assert.equal(collect.code, 0, collect.stderr);
    assert.equal(readResults(join(home, 'merged', 'results.jsonl')).length, 4);
    assert.deepEqual(readFileSync(kubectlLog, 'utf8').trim().split('\n'), ['get pods --selector job-name=crow-eval --output json', 'logs crow-eval-0-bbb', 'logs crow-eval-1-ccc']);
    const noKubectl = await runCrow(['eval', 'k8s', 'collect', '--job', 'crow-eval', '--out', join(home, 'x')], { ...env, PATH: '/nonexistent' }, home);
    assert.equal(noKubectl.code, 2);
    assert.match(noKubectl.stderr, /kubectl is not on PATH: install it, or save the pods' logs and name the files/);
  });

  it("the Containerfile copies what the image needs, the build context lets it, and its user is the pods' (built and run by hand: see the README)", () => {
    const root = resolve(__dirname, '../..');
    const containerfile = readFileSync(join(root, 'eval/container/Containerfile'), 'utf8');
    const copied = [...containerfile.matchAll(/^COPY (\S+) /gm)].map((match) => match[1]!);
    assert.deepEqual(copied, ['package.json', 'dist/', 'agents/', 'commands/', 'prompts/', 'eval/tasks/']);
    for (const path of copied) assert.ok(existsSync(join(root, path)), `${path} exists`);
    const ignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const path of copied) assert.ok(ignore.includes(`!${path}`), `.dockerignore lets ${path} into the build context`);
    assert.match(containerfile, /^USER 10001:10001$/m);
    assert.match(containerfile, /exec node \/opt\/crow\/dist\/crow\.js/);
  });
});

