/**
 * The GitHub repository /speckit.taskstoissues may make issues in: the one
 * `remote.origin.url` names, as Spec Kit's command checks it ("only proceed
 * if the remote is a GitHub URL"; never another repository). Accepted:
 * `https://github.com/OWNER/REPO(.git)`, `git@github.com:OWNER/REPO(.git)`,
 * `ssh://git@github.com/OWNER/REPO(.git)`. A URL is shown without the
 * credentials it may carry (`https://user:token@…`).
 */
const GITHUB = /^(?:https?:\/\/(?:[^@/]*@)?|ssh:\/\/(?:[^@/]*@)?|git@)(?:www\.)?github\.com(?::443)?[:/]([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/;

/** "OWNER/REPO" when `url` is a GitHub repository's, else undefined. */
export function githubRepository(url: string): string | undefined {
  const match = GITHUB.exec(url.trim());
  if (!match || match[2] === '.' || match[2] === '..') return undefined;
  return `${match[1]}/${match[2]}`;
}

/** The URL with any user name or password taken out, cut to a readable length. */
export function shownUrl(url: string): string {
  return url.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1').slice(0, 200);
}
