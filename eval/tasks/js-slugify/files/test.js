const assert = require('node:assert/strict');
const { slugify } = require('./slug');
assert.equal(slugify('Hello, World!'), 'hello-world');
assert.equal(slugify('  Many   spaces  '), 'many-spaces');
console.log('ok');
