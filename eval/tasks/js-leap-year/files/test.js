const assert = require('node:assert/strict');
const { isLeap } = require('./leap');
assert.equal(isLeap(2024), true, '2024');
assert.equal(isLeap(1900), false, '1900');
assert.equal(isLeap(2000), true, '2000 is a leap year: divisible by 400');
console.log('ok');
