const assert = require('node:assert/strict');
const { cartTotal } = require('./cart');
assert.equal(cartTotal([{ price: 60 }, { price: 40 }], 10), 90);
console.log('ok');
