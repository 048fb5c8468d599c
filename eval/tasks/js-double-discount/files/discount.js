function applyDiscount(amount, percent) {
  return amount * (1 - percent / 100);
}
module.exports = { applyDiscount };
