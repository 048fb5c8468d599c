function greeting(user) {
  return `Hello, ${user.first_name}!`;
}
module.exports = { greeting };
