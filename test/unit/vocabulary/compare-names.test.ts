import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMarkdownFiles } from '../../../src/config/markdown-files';
import { compareNames } from '../../../src/vocabulary/text';

const localeOrder = (names: string[]) => [...names].sort((a, b) => a.localeCompare(b));

describe('names in order', () => {
  it('orders plain names (lower-case letters, digits, dashes) as localeCompare does', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789-';
    const names = [''];
    for (const first of letters) {
      names.push(first);
      for (const second of letters) names.push(first + second);
    }
    for (const name of ['a-b', 'ab', 'a--', '-a', '0-', '10', '9', 'z-9', 'review-2', 'review10', 'review']) names.push(name);
    for (const a of names) for (const b of names) assert.equal(Math.sign(compareNames(a, b)), Math.sign(a.localeCompare(b)), `${a} vs ${b}`);
  });

  it('lists a folder of agent files in the order localeCompare gives, capitals, underscores and accents included', () => {
    const folder = mkdtempSync(join(tmpdir(), 'crow-names-'));
    try {
      const stems = ['reviewer', 'Reviewer-2', 'review_fast', 'build', 'build-10', 'build-9', 'écrire', 'Zeta', 'alpha', 'a-b', 'ab', '_draft'];
      for (const stem of stems) writeFileSync(join(folder, `${stem}.md`), `# ${stem}\n`);
      assert.deepEqual(
        readMarkdownFiles(folder).map((file) => file.stem),
        localeOrder(stems),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
