function report(orders) {
  const total = orders.reduce((sum, order) => sum + order.amount, 0);
  const largest = Math.max(...orders.map((order) => order.amount));
  return { count: orders.length, total, average: total / orders.length, largest };
}
module.exports = { report };
