const { applyDiscount } = require('./discount');

function cartTotal(items, discountPercent) {
  const subtotal = items.reduce((sum, item) => sum + applyDiscount(item.price, discountPercent), 0);
  return applyDiscount(subtotal, discountPercent);
}
module.exports = { cartTotal };
