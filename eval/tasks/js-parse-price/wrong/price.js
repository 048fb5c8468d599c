function parsePrice(text) {
  return parseFloat(text.replace(',', ''));
}
module.exports = { parsePrice };
