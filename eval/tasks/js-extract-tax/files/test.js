const assert = require('node:assert/strict');
const { itemTotal, shipping, giftWrap } = require('./prices');
assert.equal(itemTotal(10, 3), 36);
assert.equal(shipping(2), 7.2);
assert.equal(giftWrap(), 3.6);
console.log('ok');
