/**
 * What the chat's model pickers offer: each role's models, labelled by role,
 * and VS Code's own models among them. Each role's picker
 * lists them, labelled with their vendor, next to its provider's models.
 * Picking one from another provider moves the role onto provider
 * "vscode" (the `vscode:` option prefix says so); on provider "vscode" the
 * options are already VS Code's models and only get their labels.
 */
import type { CompositionRole, RoleModels } from '../../../agents/role-models';
import { t } from '../l10n';
import type { RoleModelChoice } from '../../../../webview/chat/protocol';
import type { VscodeModelInfo } from '../configuration';

/** A lone model is the model; beside a reviewer's, the primary's is the builder's. */
const roleLabel = (role: CompositionRole, paired: boolean): string =>
  role === 'coagent' ? t('Reviewer model') : paired ? t('Builder model') : t('Model');

/** The pickers' choices for the roles' models, VS Code's models (`vscodeModels`) among them. */
export function pickerChoices(models: RoleModels[], vscodeModels: readonly VscodeModelInfo[]): RoleModelChoice[] {
  const paired = models.some((model) => model.role === 'coagent');
  const choices = models.map(({ role, current, options }) => ({ role, label: roleLabel(role, paired), current, options }));
  return withVscodeModels(choices, vscodeModels);
}

/** Marks a picker option that moves its role onto one of VS Code's models. */
const VSCODE_PICK = 'vscode:';

/** The pickers' choices with VS Code's models among them, each shown as "name (vendor)". */
function withVscodeModels(choices: RoleModelChoice[], models: readonly VscodeModelInfo[]): RoleModelChoice[] {
  if (models.length === 0) return choices;
  const ids = new Set(models.map((model) => model.id));
  const label = (model: VscodeModelInfo): string => `${model.name} (${model.vendor})`;
  return choices.map((choice) => {
    const onVscode = ids.has(choice.current);
    const added = onVscode ? [] : models.map((model) => VSCODE_PICK + model.id);
    const labels: Record<string, string> = { ...choice.labels };
    for (const model of models) labels[onVscode ? model.id : VSCODE_PICK + model.id] = onVscode ? label(model) : `${label(model)} in VS Code`;
    return { ...choice, options: [...choice.options.filter((option) => !added.includes(option)), ...added], labels };
  });
}

/** The VS Code model (`vendor/id`) a picked option moves its role onto; undefined for a model of the role's own provider. */
export function vscodePick(option: string): string | undefined {
  return option.startsWith(VSCODE_PICK) ? option.slice(VSCODE_PICK.length) : undefined;
}
