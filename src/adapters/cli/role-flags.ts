import type { CompositionRole } from '../../agents/role-models';
import type { RoleDefaults } from '../../host/folder';
import { UsageError } from './cli-io';

/** --role-model ROLE=[PROVIDER/]MODEL (repeatable) and the --reviewer-* shorthands, as models and providers per role. */
export function roleDefaults(specs: readonly string[], reviewerModel: string | undefined, reviewerProvider: string | undefined): RoleDefaults {
  const models: Partial<Record<CompositionRole, string>> = {};
  const providers: Partial<Record<CompositionRole, string>> = {};
  for (const spec of specs) {
    const match = /^(primary|reviewer|coagent)=(?:([^/=\s]+)\/)?(\S+)$/.exec(spec.trim());
    if (!match) throw new UsageError(`--role-model ${spec}: write ROLE=MODEL or ROLE=PROVIDER/MODEL, with ROLE primary or reviewer (e.g. reviewer=openai/gpt-5.4).`);
    const role: CompositionRole = match[1] === 'primary' ? 'primary' : 'coagent';
    models[role] = match[3]!;
    if (match[2] !== undefined) providers[role] = match[2];
  }
  if (reviewerModel !== undefined) models.coagent = reviewerModel;
  if (reviewerProvider !== undefined) providers.coagent = reviewerProvider;
  return { models, providers };
}
