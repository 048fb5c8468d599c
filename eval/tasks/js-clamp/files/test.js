const assert = require('node:assert/strict');
const { clamp } = require('./clamp');
assert.equal(clamp(15, 0, 10), 10);
console.log('ok');
