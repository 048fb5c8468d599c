/** What file-changing tools tell the model about protected paths (see tools/protected-paths.ts). */
export const PROTECTED_NOTE =
  'Changes under .crow/, .git/ (at any depth), .vscode/ or Crow\'s own config folder are asked every time, whatever ' +
  'the permission settings, because they decide what Crow, git and the editor run; when nobody can be asked they are refused.';
