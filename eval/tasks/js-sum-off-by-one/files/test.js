const assert = require('node:assert/strict');
const { sum } = require('./sum');
assert.equal(sum([1, 2, 3]), 6);
console.log('ok');
