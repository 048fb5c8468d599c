function clamp(value, min, max) {
  return Math.max(min, Math.min(min, value));
}
module.exports = { clamp };
