const assert = require('node:assert/strict');
const { slugify } = require('./slug');
assert.equal(slugify('Already-a-slug'), 'already-a-slug');
assert.equal(slugify('Crow 2.0 -- released'), 'crow-2-0-released');
assert.equal(slugify(''), '');
