/**
 * Spec-driven development with GitHub Spec Kit's layout (seed 004): the
 * eight /speckit.* commands, in the order a feature goes through them.
 */
import { analyzeCommand } from './analyze-command';
import { implementCommand } from './implement-command';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { tasksCommand } from './tasks-command';
import { checklistCommand, clarifyCommand, constitutionCommand, planCommand, specifyCommand } from './write-commands';

export function speckitCommands(): ProgrammaticCommand[] {
  return [constitutionCommand, specifyCommand, clarifyCommand, planCommand, checklistCommand, tasksCommand, analyzeCommand, implementCommand];
}
