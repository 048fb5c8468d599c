const assert = require('node:assert/strict');
const { report } = require('./report');
const expected = require('./fixtures/expected.json');
assert.deepEqual(report([{ amount: 10 }, { amount: 20 }, { amount: 30 }]), expected);
console.log('ok');
