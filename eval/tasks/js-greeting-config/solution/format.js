function greeting(user) {
  return `Hello, ${user.firstName}!`;
}
module.exports = { greeting };
