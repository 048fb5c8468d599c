const assert = require('node:assert/strict');
const fs = require('node:fs');
const prices = require('./prices');
assert.equal(typeof prices.withTax, 'function', 'withTax is exported');
assert.equal(prices.withTax(10), 12);
assert.equal(prices.withTax(0.1), 0.12);
assert.equal(prices.itemTotal(19.99, 2), 47.98);
const source = fs.readFileSync('prices.js', 'utf8');
assert.equal((source.match(/1\.2\b/g) || []).length, 1, 'the rate appears once');
