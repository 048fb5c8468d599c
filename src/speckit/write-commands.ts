/** /speckit.constitution, /speckit.specify, /speckit.clarify, /speckit.plan and /speckit.checklist. */
import type { CommandArgs } from './command-args';
import { type CommandRun, listFiles } from './command-run';
import { documentCommand, type Prepared } from './document-command';
import { chooseFeature, constitutionText, documentText, type FeatureContext, type FeatureStep, missing } from './feature-context';
import {
  cleanName,
  CONSTITUTION_PATH,
  FEATURE_JSON,
  featureAt,
  featureFiles,
  listFeatures,
  nextPrefix,
  numberingOf,
  rootForNew,
  shortName,
} from './features';
import { branchNote, planFeatureBranch, startBranchFor } from './feature-branch';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { ensureLayout, readTemplate } from './templates';
import { recordFeature } from './current-feature';
import { field, runRepositoryScript, workspacePath } from './repository-scripts';
import { entriesOf, readText } from './workspace-text';

/** The intro line of a command working on an existing feature. */
function featureIntro(context: FeatureContext): string {
  return `Feature ${context.feature.dir} (${context.how}).`;
}

async function existingFeature(run: CommandRun, args: CommandArgs, step: FeatureStep): Promise<FeatureContext | string> {
  const context = await chooseFeature(run, args, step);
  return 'error' in context ? context.error : context;
}

export const constitutionCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.constitution',
  hooks: 'constitution',
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
  hooks: 'specify',
  description: "Start a feature: create specs/NNN-short-name/ with the repository's own create-new-feature script (or Crow's), and write spec.md from a description.",
  argumentHint: '<what to build> [--short-name NAME] [--number N]',
  options: ['short-name', 'number'],
  flags: ['no-branch'],
  async prepare(run, args) {
    const { input } = run;
    const description = args.text;
    if (description === '') return 'Describe the feature to specify, e.g. /speckit.specify Let people group photos into albums by date.';
    const requested = args.options.number !== undefined ? Number.parseInt(args.options.number, 10) : undefined;
    if (requested !== undefined && !(Number.isInteger(requested) && requested >= 0)) return `--number wants a whole number, not "${args.options.number}".`;
    const plan = await planFeatureBranch(run, args);
    if (typeof plan === 'string') return plan;
    const created = await createFeature(run, args, description, requested);
    if (typeof created === 'string') return created;
    const { dir, name, prefix, layout, how } = created;
    const template = await readTemplate(input.workspace, input.prompts, 'spec');
    const files = featureFiles({ dir, name, prefix });
    const branch = await startBranchFor(run, plan, name, prefix);
    return {
      folder: dir,
      intro: `Feature ${dir} (new, ${how}); ${branchNote(branch)}.`,
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

/**
 * The new feature's folder, its spec.md from the template and feature.json
 * naming it: by the repository's create-new-feature script when it has one
 * (Spec Kit's own numbering and naming), else by Crow the same way.
 */
async function createFeature(
  run: CommandRun,
  args: CommandArgs,
  description: string,
  requested: number | undefined,
): Promise<{ dir: string; name: string; prefix: string; layout: string[]; how: string } | string> {
  const { input } = run;
  const numbering = await numberingOf(input.workspace);
  const scriptArgs = [
    ...(args.options['short-name'] !== undefined ? ['--short-name', args.options['short-name']] : []),
    ...(requested !== undefined ? ['--number', String(requested)] : []),
    ...(numbering === 'timestamp' ? ['--timestamp'] : []),
    description,
  ];
  const script = await runRepositoryScript(run, 'create-new-feature', scriptArgs);
  if (script && 'error' in script) return script.error;
  if (script) {
    const spec = field(script, 'SPEC_FILE');
    if (spec === undefined) return `${script.path} printed no SPEC_FILE: ${JSON.stringify(script.json).slice(0, 200)}. Fix the script.`;
    const dir = workspacePath(run, spec).replace(/\/spec\.md$/, '');
    const feature = featureAt(dir);
    await recordFeature(input.workspace, dir);
    return { dir, name: feature.name, prefix: field(script, 'FEATURE_NUM') ?? feature.prefix ?? '', layout: [], how: `made by ${script.path}` };
  }
  const features = await listFeatures(input.workspace);
  const prefix = nextPrefix(features, numbering, requested !== undefined ? { requested } : {});
  const name = `${prefix}-${args.options['short-name'] !== undefined ? cleanName(args.options['short-name']) || shortName(description) : shortName(description)}`;
  const dir = `${rootForNew(features)}/${name}`;
  if (await input.workspace.stat(dir)) return `${dir} exists already: give another --short-name or --number.`;
  const layout = await ensureLayout(input.workspace, input.prompts);
  const template = await readTemplate(input.workspace, input.prompts, 'spec');
  await input.workspace.writeFile(featureFiles({ dir, name, prefix }).spec, template.text);
  await input.workspace.writeFile(FEATURE_JSON, `${JSON.stringify({ feature_directory: dir }, null, 2)}\n`);
  return { dir, name, prefix, layout, how: `number ${prefix}` };
}

export const clarifyCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.clarify',
  hooks: 'clarify',
  description: "Ask up to five targeted questions about the current feature's spec and write the answers into spec.md.",
  argumentHint: '[feature] [focus or answers]',
  options: ['feature'],
  async prepare(run, args) {
    const context = await existingFeature(run, args, { script: 'check-prerequisites', args: ['--paths-only'] });
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
  hooks: 'plan',
  description: "Design the current feature: plan.md, research.md, data-model.md, contracts/ and quickstart.md from its spec.",
  argumentHint: '[feature] [technical direction]',
  options: ['feature'],
  async prepare(run, args) {
    const context = await existingFeature(run, args, { script: 'setup-plan', args: [] });
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
  hooks: 'checklist',
  description: "Write a checklist that tests the quality of the current feature's requirements (checklists/DOMAIN.md).",
  argumentHint: '[feature] [focus, e.g. security or ux]',
  options: ['feature'],
  async prepare(run, args): Promise<Prepared | string> {
    const context = await existingFeature(run, args, { script: 'check-prerequisites', args: ['--template', 'checklist-template'] });
    if (typeof context === 'string') return context;
    const { input } = run;
    const { files, feature } = context;
    const absent = await missing(input, context, [{ path: files.spec, command: '/speckit.specify' }]);
    if (absent) return absent;
    const fromScript = context.script && field(context.script, 'TEMPLATE_CONTENT');
    const template = fromScript !== undefined ? { text: fromScript, source: context.script!.path } : await readTemplate(input.workspace, input.prompts, 'checklist');
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
