import assert from 'node:assert/strict';
import { exactly, isGlobLiteral } from '../../../../src/adapters/vscode/workspace/exclude-query';

describe('Asking VS Code about known paths with globs', () => {
  it('tells which paths a glob can name as they are', () => {
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
