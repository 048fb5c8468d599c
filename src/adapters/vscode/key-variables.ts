import type { Settings } from '../../config/settings';

/** An environment variable holding an API key, and the providers that read it. */
export interface KeyVariable {
  variable: string;
  providers: string[];
}

/** The key variables the configured providers read, each once, in the order providers are listed. */
export function keyVariables(settings: Pick<Settings, 'providers'>): KeyVariable[] {
  const byVariable = new Map<string, string[]>();
  for (const entry of Object.values(settings.providers)) {
    if (entry.apiKeyEnv === undefined) continue;
    byVariable.set(entry.apiKeyEnv, [...(byVariable.get(entry.apiKeyEnv) ?? []), entry.name]);
  }
  return [...byVariable].map(([variable, providers]) => ({ variable, providers }));
}
