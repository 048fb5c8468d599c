import assert from 'node:assert/strict';
import { pickerChoices } from '../../../../src/adapters/vscode/chat/model-choices';

describe('chat model pickers: what each is labelled', () => {
  it('calls a lone model "Model", and a pair\'s two "Builder model" and "Reviewer model"', () => {
    const alone = pickerChoices([{ role: 'primary', current: 'm', options: ['m'] }], []);
    assert.deepEqual(alone.map((choice) => choice.label), ['Model']);
    const pair = pickerChoices(
      [
        { role: 'primary', current: 'm', options: ['m'] },
        { role: 'coagent', current: 'r', options: ['r'] },
      ],
      [],
    );
    assert.deepEqual(pair.map((choice) => choice.label), ['Builder model', 'Reviewer model']);
  });
});
