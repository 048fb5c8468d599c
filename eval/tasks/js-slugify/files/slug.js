/** Lower-case words joined by single hyphens, e.g. "Hello, World!" -> "hello-world". */
function slugify(text) {
  throw new Error('not implemented');
}
module.exports = { slugify };
