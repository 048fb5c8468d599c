/** /speckit.constitution, /speckit.specify, /speckit.clarify, /speckit.plan and /speckit.checklist. */
import type { CommandArgs } from './command-args';
import { type CommandRun, listFiles } from './command-run';
import { documentCommand, type Prepared } from './document-command';
import { chooseFeature, constitutionText, documentText, type FeatureContext, missing } from './feature-context';
import {
  cleanName,
  CONSTITUTION_PATH,
  FEATURE_JSON,
  featureFiles,
  listFeatures,
  nextPrefix,
  numberingOf,
  rootForNew,
  shortName,
} from './features';
import { secretVariableNames } from '../config/secret-variables';
import { type BranchOutcome, startFeatureBranch } from './git-branch';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { ensureLayout, readTemplate } from './templates';
import { entriesOf, readText } from './workspace-text';

/** The intro line of a command working on an existing feature. */
function featureIntro(context: FeatureContext): string {
  return `Feature ${context.feature.dir} (${context.how}).`;
}

async function existingFeature(run: CommandRun, args: CommandArgs): Promise<FeatureContext | string> {
  const context = await chooseFeature(run.input, args);
  return 'error' in context ? context.error : context;
}

export const constitutionCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.constitution',
  description: 'Write or amend the project constitution (.specify/memory/constitution.md): the principles every plan must meet.',
  argumentHint: '[principles or changes]',
  async prepare(run, args) {
    const { input } = run;
    const layout = await ensureLayout(input.workspace, input.prompts);
    const template = await readTemplate(input.workspace, input.prompts, 'constitution');
    const current = (await readText(input.workspace, CONSTITUTION_PATH)) ?? '';
    return {
      intro: `Constitution ${CONSTITUTION_PATH} (project-wide, no feature folder)${current === '' ? ': none yet, starting from the template' : ''}${layout.length > 0 ? `; set up .specify/ with ${layout.length} templates` : ''}.`,
      prompt: run.render('constitution', {
        args: args.text,
        constitution_path: CONSTITUTION_PATH,
        current,
        template: template.text,
        template_source: template.source,
        templates_dir: '.specify/templates',
      }),
      watch: ['.specify/memory', '.specify/templates'],
      written: layout,
      async check(changed) {
        if (!changed.includes(CONSTITUTION_PATH)) {
          return { ok: false, message: `${CONSTITUTION_PATH} was not written: ${input.agent.name} did not change it. Run /speckit.constitution again, with an agent that can write files.` };
        }
        return { ok: true, message: `Constitution written: ${listFiles(changed)}. Next: /speckit.specify <what to build>.` };
      },
    };
  },
});

export const specifyCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.specify',
  description: 'Start a feature: create specs/NNN-short-name/ (and its git branch) and write spec.md from a description.',
  argumentHint: '<what to build> [--short-name NAME] [--number N] [--no-branch]',
  options: ['short-name', 'number'],
  flags: ['no-branch'],
  async prepare(run, args) {
    const { input } = run;
    const description = args.text;
    if (description === '') return 'Describe the feature to specify, e.g. /speckit.specify Let people group photos into albums by date.';
    const requested = args.options.number !== undefined ? Number.parseInt(args.options.number, 10) : undefined;
    if (requested !== undefined && !(Number.isInteger(requested) && requested >= 0)) return `--number wants a whole number, not "${args.options.number}".`;
    const features = await listFeatures(input.workspace);
    const prefix = nextPrefix(features, await numberingOf(input.workspace), requested !== undefined ? { requested } : {});
    const name = `${prefix}-${args.options['short-name'] !== undefined ? cleanName(args.options['short-name']) || shortName(description) : shortName(description)}`;
    const dir = `${rootForNew(features)}/${name}`;
    if (await input.workspace.stat(dir)) return `${dir} exists already: give another --short-name or --number.`;
    const layout = await ensureLayout(input.workspace, input.prompts);
    const template = await readTemplate(input.workspace, input.prompts, 'spec');
    const files = featureFiles({ dir, name, prefix });
    await input.workspace.writeFile(files.spec, template.text);
    await input.workspace.writeFile(FEATURE_JSON, `${JSON.stringify({ feature_directory: dir }, null, 2)}\n`);
    const branch = await featureBranch(run, args, name);
    return {
      folder: dir,
      intro: `Feature ${dir} (new, number ${prefix}); ${branchNote(branch)}.`,
      prompt: run.render('specify', {
        description,
        feature_dir: dir,
        spec_path: files.spec,
        checklist_path: `${files.checklists}/requirements.md`,
        branch: branch.created ? branch.branch : '',
        constitution: await constitutionText(input),
        constitution_path: CONSTITUTION_PATH,
        template: template.text,
        template_source: template.source,
      }),
      watch: [dir],
      written: [...layout, files.spec, FEATURE_JSON],
      async check(changed) {
        if (!changed.includes(files.spec)) {
          return { ok: false, message: `${files.spec} still holds the template: ${input.agent.name} did not write the spec. Run /speckit.specify again with an agent that can write files, or fill it in yourself.` };
        }
        return { ok: true, message: `Specified ${dir}: wrote ${listFiles(changed, dir)}. Next: /speckit.clarify, or /speckit.plan.` };
      },
    };
  },
});

async function featureBranch(run: CommandRun, args: CommandArgs, name: string): Promise<BranchOutcome> {
  if (args.flags.has('no-branch')) return { created: false, reason: '--no-branch' };
  if (run.input.settings?.speckit?.createBranch === false) return { created: false, reason: 'speckit.create_branch is off' };
  return startFeatureBranch(run.input.workspace.root, run.input.env, name, secretVariableNames(run.input.settings));
}

function branchNote(branch: BranchOutcome): string {
  return branch.created ? `started git branch ${branch.branch} from ${branch.from}, your uncommitted changes untouched` : `no git branch started (${branch.reason})`;
}

export const clarifyCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.clarify',
  description: "Ask up to five targeted questions about the current feature's spec and write the answers into spec.md.",
  argumentHint: '[feature] [focus or answers]',
  options: ['feature'],
  async prepare(run, args) {
    const context = await existingFeature(run, args);
    if (typeof context === 'string') return context;
    const { input } = run;
    const { files, feature } = context;
    const absent = await missing(input, context, [{ path: files.spec, command: '/speckit.specify' }]);
    if (absent) return absent;
    return {
      folder: feature.dir,
      intro: featureIntro(context),
      prompt: run.render('clarify', {
        args: context.text,
        feature_dir: feature.dir,
        spec_path: files.spec,
        spec: await documentText(input, files.spec),
        constitution: await constitutionText(input),
        constitution_path: CONSTITUTION_PATH,
      }),
      watch: [feature.dir],
      async check(changed) {
        const note = changed.length > 0 ? `updated ${listFiles(changed, feature.dir)}` : 'no answers recorded yet (answer the questions to go on)';
        return { ok: true, message: `Clarifying ${feature.dir}: ${note}.` };
      },
    };
  },
});

export const planCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.plan',
  description: "Design the current feature: plan.md, research.md, data-model.md, contracts/ and quickstart.md from its spec.",
  argumentHint: '[feature] [technical direction]',
  options: ['feature'],
  async prepare(run, args) {
    const context = await existingFeature(run, args);
    if (typeof context === 'string') return context;
    const { input } = run;
    const { files, feature } = context;
    const absent = await missing(input, context, [{ path: files.spec, command: '/speckit.specify' }]);
    if (absent) return absent;
    const template = await readTemplate(input.workspace, input.prompts, 'plan');
    const written: string[] = [];
    if ((await readText(input.workspace, files.plan)) === undefined) {
      await input.workspace.writeFile(files.plan, template.text);
      written.push(files.plan);
    }
    return {
      folder: feature.dir,
      intro: featureIntro(context),
      prompt: run.render('plan', {
        args: context.text,
        feature_dir: feature.dir,
        spec_path: files.spec,
        spec: await documentText(input, files.spec),
        plan_path: files.plan,
        plan: await documentText(input, files.plan),
        constitution: await constitutionText(input),
        constitution_path: CONSTITUTION_PATH,
        template: template.text,
        template_source: template.source,
        files,
      }),
      watch: [feature.dir],
      written,
      async check(changed) {
        if (!changed.includes(files.plan)) {
          return { ok: false, message: `${files.plan} was not written by ${input.agent.name}. Run /speckit.plan again with an agent that can write files.` };
        }
        return { ok: true, message: `Planned ${feature.dir}: wrote ${listFiles(changed, feature.dir)}. Next: /speckit.tasks.` };
      },
    };
  },
});

export const checklistCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.checklist',
  description: "Write a checklist that tests the quality of the current feature's requirements (checklists/DOMAIN.md).",
  argumentHint: '[feature] [focus, e.g. security or ux]',
  options: ['feature'],
  async prepare(run, args): Promise<Prepared | string> {
    const context = await existingFeature(run, args);
    if (typeof context === 'string') return context;
    const { input } = run;
    const { files, feature } = context;
    const absent = await missing(input, context, [{ path: files.spec, command: '/speckit.specify' }]);
    if (absent) return absent;
    const template = await readTemplate(input.workspace, input.prompts, 'checklist');
    const existing = (await entriesOf(input.workspace, files.checklists)).filter((e) => e.type === 'file').map((e) => e.name);
    return {
      folder: feature.dir,
      intro: featureIntro(context),
      prompt: run.render('checklist', {
        args: context.text,
        feature_dir: feature.dir,
        spec_path: files.spec,
        spec: await documentText(input, files.spec),
        plan_path: files.plan,
        plan: await documentText(input, files.plan),
        checklists_dir: files.checklists,
        existing,
        template: template.text,
        template_source: template.source,
      }),
      watch: [files.checklists],
      async check(changed, result) {
        if (changed.length === 0 && result.status === 'needs_input') {
          return { ok: true, message: `Checklist for ${feature.dir}: nothing written yet; answer the questions above to go on.` };
        }
        if (changed.length === 0) return { ok: false, message: `No checklist was written in ${files.checklists}/. Run /speckit.checklist again with a focus, with an agent that can write files.` };
        return { ok: true, message: `Checklist for ${feature.dir}: wrote ${listFiles(changed, feature.dir)}.` };
      },
    };
  },
});
