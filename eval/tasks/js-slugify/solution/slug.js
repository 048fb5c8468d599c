/** Lower-case words joined by single hyphens, e.g. "Hello, World!" -> "hello-world". */
function slugify(text) {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join('-');
}
module.exports = { slugify };
