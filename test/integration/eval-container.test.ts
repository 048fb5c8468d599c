/**
 * `crow eval` beyond one machine: the container backend, through the real
 * binary (the Kubernetes Job is eval-k8s.test.ts).
 *
 * The container backend is exercised twice. Up to the engine, always: a
 * stand-in `podman` on PATH records every call and runs the commands it is
 * handed, so the test sees exactly what crow asks of an engine (a fresh
 * container per run, no network, the run's folder mounted, every command
 * through exec, the container removed). With a real engine where one runs
 * (.ci/run installs podman and builds the image with
 * eval/container/build-image.sh, from Debian packages, no registry pull):
 * two shipped tasks run in real containers, and a task's check finds no key.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readResults } from '../../src/eval/eval-runner';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { scriptedSolver } from '../../testkit/scripted-solver';
import { runCrow } from '../support/crow-binary';
import { solverTasks } from '../support/eval-solver';
import { isolatedEnv } from '../support/isolated-env';
import { skipBecause } from '../support/skip-reasons';

const TASKS_DIR = resolve(__dirname, '../../eval/tasks');
/** The image .ci/run builds with eval/container/build-image.sh. */
export const EVAL_IMAGE = process.env.CROW_EVAL_IMAGE ?? 'localhost/crow-eval-debian:bookworm';

/** A stand-in engine: logs each call to $ENGINE_LOG, "runs" a container as a marker file and execs commands locally in the given folder. */
const FAKE_ENGINE = `#!/bin/sh
printf '%s\\n' "$*" >> "$ENGINE_LOG"
case "$1" in
  run)
    for a in "$@"; do last="$a"; done
    case "$*" in *"--detach"*) echo 0123456789abcdef0123 ;; *) sh -c "$last" ;; esac ;;
  exec)
    shift; [ "$1" = --workdir ] && { cd "$2"; shift 2; }; shift
    exec "$@" ;;
  rm) exit 0 ;;
esac
`;

function realEngineProblem(): string | undefined {
  const info = spawnSync('podman', ['image', 'exists', EVAL_IMAGE], { stdio: 'ignore' });
  if (info.error) return 'podman is not installed';
  if (info.status !== 0) return `the image ${EVAL_IMAGE} is missing (build it with eval/container/build-image.sh)`;
  const run = spawnSync('podman', ['run', '--rm', '--network', 'none', EVAL_IMAGE, 'true'], { encoding: 'utf8' });
  return run.status === 0 ? undefined : `podman cannot run containers here: ${run.stderr.trim().split('\n').at(-1)}`;
}

describe('crow eval in containers and on Kubernetes', function () {
  this.timeout(300_000);
  let server: FakeLlmServer;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-eval-box-'));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-secret-key-123', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('asks the engine for a fresh container per run with no network, runs every command inside it, and removes it', async () => {
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'podman'), FAKE_ENGINE);
    chmodSync(join(bin, 'podman'), 0o755);
    const log = join(home, 'engine.log');
    const tasks = 'js-clamp,js-slugify';
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(loadTasks(TASKS_DIR, tasks)) }));
    const run = await runCrow(
      ['eval', '--provider', 'anthropic', '--tasks', tasks, '--agents', 'build', '--backend', 'podman', '--image', 'example/tasks:1', '--out', join(home, 'out')],
      { ...env, PATH: `${bin}:${env.PATH}`, ENGINE_LOG: log },
      home,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /in podman containers of example\/tasks:1/);
    assert.ok(readResults(join(home, 'out', 'results.jsonl')).every((result) => result.passed));
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    const starts = calls.filter((line) => line.startsWith('run --detach'));
    assert.equal(starts.length, 2, 'one fresh container per run');
    for (const start of starts) {
      assert.match(
        start,
        /^run --detach --rm --network none --volume (\/\S+crow-eval-js-\S+):\1 --tmpfs \1\/\.git:ro,size=4k --tmpfs \1\/\.crow:ro,size=4k --tmpfs \1\/\.vscode:ro,size=4k --workdir \1 --cap-drop all --security-opt no-new-privileges --pids-limit 1024 --memory 4g (--user 65532:65532|--userns keep-id) --env HOME=\/tmp --entrypoint sleep example\/tasks:1 infinity$/,
        'only the task mounted, its protected folders read-only (missing ones too), no capabilities, bounded processes and memory, not root',
      );
    }
    const execs = calls.filter((line) => line.startsWith('exec '));
    assert.ok(execs.some((line) => /bash -c exec 2>&1; node test\.js && node hidden_test\.js/.test(line)), 'the hidden check runs inside');
    assert.ok(execs.some((line) => /bash -c exec 2>&1; node test\.js$/.test(line)), "the agent's own command runs inside");
    assert.ok(execs.every((line) => line.includes('0123456789abcdef0123')));
    assert.equal(calls.filter((line) => line === 'rm --force --time 0 0123456789abcdef0123').length, 2, 'each container is removed');
    assert.ok(!readFileSync(log, 'utf8').includes('sk-ant-secret-key-123'));

    const bad = await runCrow(['eval', '--provider', 'anthropic', '--tasks', tasks, '--backend', 'podman'], env, home);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--backend podman needs --image NAME/);
  });

  it('runs two shipped tasks in real podman containers built from Debian packages, whose checks see no key', async function () {
    const problem = realEngineProblem();
    if (problem) skipBecause(this, problem);
    const suite = join(home, 'suite');
    mkdirSync(join(suite, 'no-keys', 'files'), { recursive: true });
    writeFileSync(join(home, 'engine.log'), 'a host file the container must not see');
    // The check runs as the agent's commands do: no key, no host file, no capability, and the protected folders cannot be changed, made, remounted or unmounted, by a user that is not root, who can change what the agent made.
    const held = "test $(id -u) -ne 0 && test $(cat agent-uid.txt) -ne 0 && echo check >> notes/new.txt && echo more > notes/agent.txt && grep -q 'CapEff:.0000000000000000' /proc/self/status && grep -q 'NoNewPrivs:.1' /proc/self/status && ! mkdir -p .crow/agents 2>/dev/null && ! touch .git/config 2>/dev/null && ! mount -o remount,rw .git 2>/dev/null && ! umount .crow 2>/dev/null";
    writeFileSync(join(suite, 'no-keys', 'task.toml'), `prompt = "Say hello"\ncategory = "feature"\ndifficulty = "easy"\nlanguage = "javascript"\ncheck = "env > seen.txt; ! grep -q sk-ant seen.txt && test ! -e ${home}/engine.log && ${held}"\n`);
    for (const task of ['js-clamp', 'py-fizzbuzz']) spawnSync('cp', ['-r', join(TASKS_DIR, task), join(suite, task)]);
    const solver = scriptedSolver({ tasks: solverTasks(loadTasks(suite, 'js-clamp,py-fizzbuzz')) });
    // The agent writes a file in a new folder with its file tool (on the host, as Crow), then changes it with a command (in the container, as its user).
    const hello = [
      { blocks: [{ type: 'tool_call' as const, name: 'write_file', arguments: { path: 'notes/new.txt', content: 'by the file tool\n' } }] },
      { blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command: 'id -u > agent-uid.txt && echo agent >> notes/new.txt && id -u > notes/agent.txt && { d=.cr; touch $(printf %sow/x $d) 2>/dev/null || echo refused > protected.txt; }' } }] },
      { blocks: [{ type: 'text' as const, text: 'Hello.' }] },
    ];
    let said = 0;
    server.respondWith('anthropic', (body) => (JSON.stringify(body).includes('Say hello') ? hello[Math.min(said++, hello.length - 1)]! : solver(body)));
    const run = await runCrow(
      ['eval', '--provider', 'anthropic', '--tasks-dir', suite, '--agents', 'build', '--backend', 'podman', '--image', EVAL_IMAGE, '--out', join(home, 'out')],
      { ...env, ...(process.env.CONTAINERS_CONF ? { CONTAINERS_CONF: process.env.CONTAINERS_CONF } : {}) },
      home,
    );
    assert.equal(run.code, 0, run.stderr);
    const results = readResults(join(home, 'out', 'results.jsonl'));
    assert.deepEqual(results.map((r) => `${r.task} ${r.passed}`).sort(), ['js-clamp true', 'no-keys true', 'py-fizzbuzz true'], run.stderr + run.stdout);
    const clamp = results.find((r) => r.task === 'js-clamp')!;
    assert.match(readFileSync(join(home, 'out', clamp.artifacts!.diff), 'utf8'), /^--- a\/clamp\.js/);
    const hi = readFileSync(join(home, 'out', results.find((r) => r.task === 'no-keys')!.artifacts!.diff), 'utf8');
    assert.match(hi, /\+\+\+ b\/agent-uid\.txt\n@@[^\n]*\n\+[1-9]\d*\n/, "the agent's command ran as a user that is not root");
    assert.match(hi, /\+\+\+ b\/protected\.txt\n@@[^\n]*\n\+refused/, 'it could not make a file in .crow');
    assert.match(hi, /\+by the file tool\n\+agent\n/, "what Crow's file tool made (a new folder and file) the container's user could change");
    assert.ok(!readdirSync(tmpdir()).some((name) => name.startsWith('crow-eval-no-keys-')), "the run's folder is removed");
  });
});
