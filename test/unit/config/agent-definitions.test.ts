import assert from 'node:assert/strict';
import { parseACPAgent, parseBaseAgent } from '../../../src/config/agent-definitions';
import { formatProblem } from '../../../src/config/config-problems';
import type { MarkdownFile } from '../../../src/config/markdown-files';

const TOOLS = ['read_file', 'write_file', 'edit_file', 'bash', 'think', 'task_complete', 'todo_read'];

function file(stem: string, text: string): MarkdownFile {
  return { path: `/defs/${stem}.md`, stem, text };
}

function problemsOf(parsed: { problems: { file: string; field?: string; message: string }[] }): string[] {
  return parsed.problems.map(formatProblem);
}

describe('agent definitions', () => {
  describe('base agents', () => {
    it('reads every field, in the file\'s snake_case, and the body as the system prompt', () => {
      const { definition, problems } = parseBaseAgent(
        file(
          'coder',
          [
            '---',
            'description: Writes code',
            'role: subagent',
            'provider: local',
            'model: qwen3',
            'temperature: 0.2',
            'max_tokens: 4096',
            'tools: [read_file, bash, task_complete]',
            'permissions: { write: allow, allow_commands: ["npm test"] }',
            'requires_approval: [execute]',
            'max_iterations: 12',
            'doom_loop_threshold: 4',
            '---',
            'You are {{agentName}}.',
            '',
          ].join('\n'),
        ),
        TOOLS,
      );
      assert.deepEqual(problems, []);
      assert.deepEqual(definition, {
        kind: 'base',
        name: 'coder',
        description: 'Writes code',
        role: 'subagent',
        enabled: true,
        file: '/defs/coder.md',
        systemPrompt: 'You are {{agentName}}.',
        provider: 'local',
        model: 'qwen3',
        temperature: 0.2,
        maxTokens: 4096,
        tools: ['read_file', 'bash', 'task_complete'],
        permissions: { write: 'allow', allowCommands: ['npm test'] },
        requiresApproval: ['execute'],
        maxIterations: 12,
        doomLoopThreshold: 4,
      });
    });

    it('defaults: the file name, role primary, all tools, the built-in template', () => {
      const { definition } = parseBaseAgent(file('helper', '---\ndescription: helps\n---\n'), TOOLS);
      assert.equal(definition?.name, 'helper');
      assert.equal(definition?.role, 'primary');
      assert.equal(definition?.tools, undefined);
      assert.equal(definition?.systemPrompt, '');
    });

    it('names unknown fields with a "did you mean"', () => {
      const parsed = parseBaseAgent(file('a', '---\nname: a\nmodle: x\ntols: [read_file]\n---\n'), TOOLS);
      assert.deepEqual(problemsOf(parsed), [
        '/defs/a.md: field "modle": unknown field (did you mean "model"?)',
        '/defs/a.md: field "tols": unknown field (did you mean "tools"?)',
      ]);
    });

    it('names the field of a wrong type', () => {
      const parsed = parseBaseAgent(file('a', '---\nmax_iterations: many\ntemperature: 7\nrole: reviwer\n---\n'), TOOLS);
      const lines = problemsOf(parsed);
      assert.equal(lines.length, 3);
      assert.match(lines[0]!, /field "role": .*got "reviwer" \(did you mean "reviewer"\?\)/);
      assert.match(lines[1]!, /field "temperature": .*(<=|2)/);
      assert.match(lines[2]!, /field "max_iterations": .*expected number/);
    });

    it('names unknown tools and permission categories', () => {
      const parsed = parseBaseAgent(file('a', '---\ntools: [read_file, reed_file, bsh]\n---\n'), TOOLS);
      assert.deepEqual(
        problemsOf(parsed).map((line) => line.replace(/ Known tools: .*/, '')),
        [
          '/defs/a.md: field "tools[1]": unknown tool "reed_file" (did you mean "read_file"?).',
          '/defs/a.md: field "tools[2]": unknown tool "bsh" (did you mean "bash"?).',
        ],
      );
      const categories = parseBaseAgent(file('b', '---\nrequires_approval: [exeucte]\npermissions: { wrte: deny }\n---\n'), TOOLS);
      assert.deepEqual(problemsOf(categories), [
        '/defs/b.md: field "requires_approval[0]": unknown permission "exeucte" (did you mean "execute"?). ' +
          'Use read, write, execute, network, FilesystemRead, SemanticSearch, FilesystemWrite, NetworkAccess, DatabaseRead, DatabaseWrite.',
        '/defs/b.md: field "permissions.wrte": unknown field (did you mean "write"?)',
      ]);
    });

    it('rejects a file without frontmatter, broken YAML and a broken template', () => {
      assert.match(problemsOf(parseBaseAgent(file('a', 'just text'), TOOLS))[0]!, /must start with a YAML frontmatter block/);
      assert.match(problemsOf(parseBaseAgent(file('a', '---\nname: [a\n---\n'), TOOLS))[0]!, /invalid YAML frontmatter/);
      const badTemplate = parseBaseAgent(file('a', '---\nname: a\n---\nHello {{#if x}}'), TOOLS);
      assert.match(problemsOf(badTemplate)[0]!, /field "body": the system prompt is not a valid handlebars template/);
    });
  });

  describe('ACP agents', () => {
    const acp = (frontmatter: string): ReturnType<typeof parseACPAgent> =>
      parseACPAgent(file('crew', `---\ndescription: A crew\nprimary: builder\n${frontmatter}\n---\nNotes for people.\n`));

    it('turns flow names and levels into control flows with their parameters', () => {
      assert.deepEqual(acp('flow: hitl').definition?.flow, { kind: 'hitl' });
      assert.deepEqual(acp('flow: loop\nmax_turns: 3').definition?.flow, { kind: 'loop', maxTurns: 3 });
      assert.deepEqual(acp('flow: static\nfollow_up: Keep going.').definition?.flow, { kind: 'static', maxTurns: 10, message: 'Keep going.' });
      assert.deepEqual(acp('level: 2\ngenerator_prompt: Write criteria.').definition?.flow, {
        kind: 'generated',
        maxTurns: 10,
        generatorPrompt: 'Write criteria.',
      });
      assert.deepEqual(acp('coagent: judge\nflow: judge\nmax_rounds: 2').definition?.flow, {
        kind: 'coagent',
        tools: 'none',
        style: 'judge',
        maxRounds: 2,
      });
      assert.deepEqual(acp('coagent: r\nlevel: 5\ncoagent_tools: read_only').definition?.flow, {
        kind: 'coagent',
        tools: 'read_only',
        style: 'smart',
        maxRounds: 5,
      });
    });

    it('reads the three kinds of handoff', () => {
      const handoff = (yaml: string): unknown => acp(`coagent: r\nflow: smart\nhandoff: ${yaml}`).definition?.handoff;
      assert.deepEqual(handoff('{ template: my-handoff }'), { kind: 'template', template: 'my-handoff' });
      assert.deepEqual(handoff('{ static: Check it. }'), { kind: 'static', text: 'Check it.' });
      assert.deepEqual(handoff('{ generated: Brief the reviewer. }'), { kind: 'generated', generatorPrompt: 'Brief the reviewer.' });
      assert.match(problemsOf(acp('coagent: r\nflow: smart\nhandoff: { static: a, generated: b }'))[0]!, /field "handoff": give exactly one of/);
    });

    it('rejects parameters that do not belong to the flow', () => {
      assert.deepEqual(problemsOf(acp('flow: hitl\nmax_rounds: 3\nfollow_up: go')), [
        '/defs/crew.md: field "max_rounds": applies to coagent flows (judge, verify, smart, chat, loop with a coagent), not to a hitl flow.',
        '/defs/crew.md: field "follow_up": applies to static, not to a hitl flow.',
      ]);
      assert.match(problemsOf(acp('coagent: r\nflow: chat\nmax_turns: 4'))[0]!, /field "max_turns": .*use max_rounds/);
    });

    it('needs a flow or a level, not both, and a description', () => {
      assert.match(problemsOf(acp(''))[0]!, /field "flow": missing: one of hitl, loop/);
      assert.match(problemsOf(acp('flow: loop\nlevel: 0'))[0]!, /field "level": give either flow or level/);
      assert.match(problemsOf(acp('flow: smrt'))[0]!, /field "flow": .*got "smrt" \(did you mean "smart"\?\)/);
      assert.match(problemsOf(acp('level: 9'))[0]!, /field "level"/);
      assert.match(problemsOf(parseACPAgent(file('x', '---\nprimary: builder\nflow: hitl\n---\n')))[0]!, /field "description"/);
    });
  });
});
