const assert = require('node:assert/strict');
const { parsePrice } = require('./price');
assert.equal(parsePrice('12'), 12);
assert.equal(parsePrice('9,999,999.99'), 9999999.99);
