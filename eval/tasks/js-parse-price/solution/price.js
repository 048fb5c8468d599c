function parsePrice(text) {
  return parseFloat(text.replace(/,/g, ''));
}
module.exports = { parsePrice };
