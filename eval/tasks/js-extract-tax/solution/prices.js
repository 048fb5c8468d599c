const TAX_RATE = 1.2;

function withTax(amount) {
  return Math.round(amount * TAX_RATE * 100) / 100;
}

function itemTotal(price, quantity) {
  return withTax(price * quantity);
}

function shipping(weightKg) {
  return withTax(5 + weightKg * 0.5);
}

function giftWrap() {
  return withTax(3);
}

module.exports = { withTax, itemTotal, shipping, giftWrap };
