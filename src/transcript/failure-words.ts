/**
 * What a failed or stopped prompt says, and what to do next: a missing
 * key, a provider that does not answer or refuses the key, an unknown
 * model, a spending limit, a prompt interrupted by a reload.
 */
import { english, type Translate } from '../vocabulary/translate';
import type { FailureHint } from './entries';

/** What to do about a prompt's error, when its text says what kind it is. */
export function errorHint(message: string, t: Translate = english): FailureHint | undefined {
  if (/No API key for provider/.test(message)) {
    return { text: t('Set it up below: add a key, use a model VS Code already has, or a server of your own. No reload needed.'), setup: true };
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|fetch failed|connection error|could not connect|socket hang up|timed? ?out/i.test(message)) {
    return { text: t('The provider did not answer. Is the server running, and is its base URL right?'), setting: 'crow.baseUrls' };
  }
  if (/\b401\b|\b403\b|api[ _-]?key|authentication|unauthori[sz]ed/i.test(message)) {
    return { text: t('The provider refused the API key. Set it again with "Crow: Set API Key".') };
  }
  if (/\b404\b|model.*(not found|does not exist|unknown)|unknown model/i.test(message)) {
    return { text: t('The provider does not know this model. Pick another one, or check the model name.'), setting: 'crow.model' };
  }
  return undefined;
}

/** The setting of the limit a run stopped at, from the config key its message names. */
export function budgetHint(message: string, t: Translate = english): FailureHint {
  const key = /limits\.(max_\w+)/.exec(message)?.[1];
  const setting = key ? `crow.limits.${key.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())}` : 'crow.limits';
  return { text: t('Raise the limit, then continue.'), setting };
}

/** A prompt Crow stopped (or a window reload cut short) while it ran. */
export function interruptedHint(t: Translate = english): FailureHint {
  return { text: t('Crow stopped (or the window was reloaded) while this ran. Resume sends the agents back to it, with everything done so far.'), resume: true };
}

/** A prompt that found no key, said in the set-up's words (the engine's text tells a terminal user which variable to set). */
export function noKeyText(message: string, t: Translate = english): string {
  const provider = /No API key for provider "([^"]+)"/.exec(message)?.[1];
  return provider !== undefined ? t('Crow has no key for {0} yet.', provider) : t('Crow has no key for this provider yet.');
}
