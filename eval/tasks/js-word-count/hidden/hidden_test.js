const assert = require('node:assert/strict');
const { countWords } = require('./words');
assert.deepEqual(countWords(''), {});
assert.deepEqual(countWords("Don't stop, don't!"), { "don't": 2, stop: 1 });
