/**
 * Spec-driven development with GitHub Spec Kit's layout (seed 004): the
 * /speckit.* commands, in the order a feature goes through them, and the
 * commands of the Spec Kit extensions installed in the folder. A command
 * an installed preset replaces runs as the preset has it.
 */
import { analyzeCommand } from './analyze-command';
import { convergeCommand } from './converge-command';
import { extensionCommands } from './extension-hooks';
import { implementCommand } from './implement-command';
import { withPresetCommand } from './preset-override';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { tasksCommand } from './tasks-command';
import { taskstoissuesCommand } from './taskstoissues-command';
import { checklistCommand, clarifyCommand, constitutionCommand, planCommand, specifyCommand } from './write-commands';

/** The built-in commands, and those of the extensions installed under `root` (when given). */
export function speckitCommands(root?: string): ProgrammaticCommand[] {
  const builtin = [constitutionCommand, specifyCommand, clarifyCommand, planCommand, checklistCommand, tasksCommand, analyzeCommand, implementCommand, convergeCommand, taskstoissuesCommand];
  const names = new Set(builtin.map((command) => command.name));
  return [...builtin.map(withPresetCommand), ...(root !== undefined ? extensionCommands(root).filter((command) => !names.has(command.name)) : [])];
}
