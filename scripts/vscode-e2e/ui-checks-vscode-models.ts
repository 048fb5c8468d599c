/**
 * The UI phase's check of Crow's agents on a model VS Code offers: the
 * model pickers list the models of test/vscode-lm-fixture (vendor
 * "crow-test"), builder and reviewer are both moved onto one, and a
 * reviewed run on it ends approved, with nothing sent to the fake LLM
 * server. Last of the phase: the picks change the role providers in the
 * settings, which would move the checks after it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pickOption, selectedValue } from '../../test/support/vscode-elements';
import { HarnessError } from './harness-error';
import { chatFrame, newPairSession, sendPrompt, type UiCheck, type UiContext, waitUntil } from './ui-checks';

/** The fixture's tool-calling model as the pickers label it. */
const MODEL_OPTION = 'Scripted (tools) (crow-test) in VS Code';
const MODEL_ID = 'crow-test/scripted-tools';
/** Where the fixture takes its replies from when a check scripts them (test/vscode-lm-fixture/extension.js SCRIPT_FILE). */
const SCRIPT_FILE = '.crow-test-lm.json';
const RUN = { prompt: 'Write lm-ui.md on the VS Code model', file: 'lm-ui.md', content: '# Written on a VS Code model\n', approved: 'Approved on the VS Code model.' };

export const VSCODE_MODEL_CHECKS: UiCheck[] = [
  {
    slug: 'vscode-model-reviewed',
    name: "a reviewed run with builder and reviewer on a model VS Code offers, picked in the chat's model pickers, ends approved",
    timeoutMs: 90_000,
    run: reviewedOnVscodeModel,
  },
];

async function reviewedOnVscodeModel(context: UiContext, timeoutMs: number): Promise<void> {
  const chat = chatFrame(context);
  await newPairSession(chat, timeoutMs);
  await pickOption(chat.locator('.model[data-role="primary"]'), MODEL_OPTION, timeoutMs);
  await pickOption(chat.locator('.model[data-role="coagent"]'), MODEL_OPTION, timeoutMs);
  // The host confirms each move: the role is on provider "vscode" now, its model named by its own id.
  for (const role of ['primary', 'coagent']) {
    const picker = chat.locator(`.model[data-role="${role}"]`);
    const deadline = Date.now() + timeoutMs / 3;
    while ((await selectedValue(picker)) !== MODEL_ID) {
      if (Date.now() > deadline) throw new HarnessError(`the ${role} picker holds "${await selectedValue(picker)}", not ${MODEL_ID}`);
      await chat.waitForTimeout(100);
    }
  }
  const script = join(context.workspace, SCRIPT_FILE);
  writeFileSync(
    script,
    JSON.stringify([
      { text: ['Writing it.'], toolCalls: [{ name: 'write_file', input: { path: RUN.file, content: RUN.content } }] },
      { toolCalls: [{ name: 'task_complete', input: { summary: `Wrote ${RUN.file}.` } }] },
      { toolCalls: [{ name: 'task_complete', input: { summary: RUN.approved } }] },
    ]),
  );
  const sentToFake = context.fake.requestsFor('openai').length;
  await sendPrompt(chat, RUN.prompt, timeoutMs);
  // Writes are asked for in this workspace.
  await chat.locator('.approval:not([data-decision]) button[data-decision="allow_once"]').first().click({ timeout: timeoutMs });
  await chat.locator('.prompt-end').last().waitFor({ state: 'visible', timeout: timeoutMs });
  await waitUntil(() => existsSync(join(context.workspace, RUN.file)), timeoutMs, `${RUN.file} was not written`);
  if (readFileSync(join(context.workspace, RUN.file), 'utf8') !== RUN.content) throw new HarnessError(`${RUN.file} does not hold what the builder wrote`);
  if (existsSync(script)) throw new HarnessError(`the VS Code model left scripted replies unused: ${readFileSync(script, 'utf8')}`);
  if (context.fake.requestsFor('openai').length !== sentToFake) throw new HarnessError('a request went to the fake LLM server, not to the VS Code model');
  const transcript = await chat.locator('#transcript').innerText({ timeout: timeoutMs });
  if (!transcript.includes(RUN.approved)) throw new HarnessError(`the transcript lacks the reviewer's approval:\n${transcript}`);
  await chat.locator('.prompt-end').last().scrollIntoViewIfNeeded({ timeout: timeoutMs });
}
