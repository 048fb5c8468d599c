const assert = require('node:assert/strict');
const { sum } = require('./sum');
assert.equal(sum([]), 0);
assert.equal(sum([5]), 5);
assert.equal(sum([-1, 1, 10]), 10);
