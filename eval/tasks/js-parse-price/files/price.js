function parsePrice(text) {
  return parseFloat(text);
}
module.exports = { parsePrice };
