const assert = require('node:assert/strict');
const { parsePrice } = require('./price');
assert.equal(parsePrice('1,234.50'), 1234.5);
assert.equal(parsePrice('1,234,567.00'), 1234567);
console.log('ok');
