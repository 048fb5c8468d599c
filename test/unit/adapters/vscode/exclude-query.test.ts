import assert from 'node:assert/strict';
import { everythingUnder, exactly, isGlobLiteral } from '../../../../src/adapters/vscode/workspace/exclude-query';

describe('Asking VS Code about known paths with globs', () => {
  it('names a folder, a file, or the whole workspace folder', () => {
    assert.equal(everythingUnder('', true), '**');
    assert.equal(everythingUnder('src/app', true), 'src/app/**');
    assert.equal(everythingUnder('src/app.ts', false), 'src/app.ts');
  });

  it('falls back to the whole folder when the path holds glob characters', () => {
    assert.equal(everythingUnder('pages/[id]', true), '**');
    assert.equal(isGlobLiteral('a b/c.ts'), true);
    assert.equal(isGlobLiteral('{x}.ts'), false);
  });

  it('lists several paths as alternatives, leaving out those a glob cannot name', () => {
    assert.equal(exactly(['a.ts']), 'a.ts');
    assert.equal(exactly(['a.ts', 'src/b.ts', 'a.ts', 'x,y.ts', '*.ts']), '{a.ts,src/b.ts}');
    assert.equal(exactly(['[id].ts']), undefined);
    assert.equal(exactly([]), undefined);
  });
});
