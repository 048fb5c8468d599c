function isLeap(year) {
  return year % 4 === 0;
}
module.exports = { isLeap };
