function itemTotal(price, quantity) {
  return Math.round(price * quantity * 1.2 * 100) / 100;
}

function shipping(weightKg) {
  return Math.round((5 + weightKg * 0.5) * 1.2 * 100) / 100;
}

function giftWrap() {
  return Math.round(3 * 1.2 * 100) / 100;
}

module.exports = { itemTotal, shipping, giftWrap };
