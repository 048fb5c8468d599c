const assert = require('node:assert/strict');
const { countWords } = require('./words');
assert.deepEqual(countWords('The cat and the hat.'), { the: 2, cat: 1, and: 1, hat: 1 });
console.log('ok');
