const assert = require('node:assert/strict');
const { isLeap } = require('./leap');
for (const [year, leap] of [[1600, true], [1700, false], [2023, false], [2100, false], [2400, true]]) assert.equal(isLeap(year), leap, String(year));
