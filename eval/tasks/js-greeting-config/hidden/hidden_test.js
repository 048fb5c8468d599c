const assert = require('node:assert/strict');
const { greeting } = require('./format');
assert.equal(greeting({ firstName: 'Grace', lastName: 'Hopper' }), 'Hello, Grace!');
