function report(orders) {
  const total = orders.reduce((sum, order) => sum + order.amount, 0);
  return { count: orders.length, total, average: total / orders.length };
}
module.exports = { report };
