const assert = require('node:assert/strict');
const { cartTotal } = require('./cart');
const { applyDiscount } = require('./discount');
assert.equal(cartTotal([{ price: 50 }], 0), 50);
assert.equal(cartTotal([{ price: 200 }, { price: 100 }], 50), 150);
assert.equal(applyDiscount(100, 25), 75);
