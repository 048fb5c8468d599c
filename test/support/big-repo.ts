/**
 * A large git repository made quickly, for tests and benchmarks of undo on
 * big trees: `folders` × `filesPerFolder` small files, committed. The
 * history is written by `git fast-import` (one pack, no loose objects) and
 * checked out once, so 100,000 files take seconds rather than the minutes
 * `git add` would.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

export interface BigRepositoryOptions {
  folders: number;
  filesPerFolder: number;
}

export function createBigRepository(root: string, { folders, filesPerFolder }: BigRepositoryOptions): void {
  mkdirSync(root, { recursive: true });
  const git = (args: string[], input?: string): void =>
    void execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd: root,
      input,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'],
      maxBuffer: 1 << 30,
    });
  git(['init', '--quiet']);
  const lines: string[] = ['commit refs/heads/main', 'committer bench <bench@example.com> 1700000000 +0000', 'data 7', 'initial'];
  for (let folder = 0; folder < folders; folder++) {
    for (let file = 0; file < filesPerFolder; file++) {
      const content = `export const value = ${folder * filesPerFolder + file};\n`;
      lines.push(`M 100644 inline d${pad(folder)}/f${pad(file)}.js`, `data ${Buffer.byteLength(content)}`, content);
    }
  }
  git(['fast-import', '--quiet'], `${lines.join('\n')}\n`);
  git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
  git(['checkout', '--quiet', '--force', 'main']);
}

function pad(n: number): string {
  return String(n).padStart(3, '0');
}
