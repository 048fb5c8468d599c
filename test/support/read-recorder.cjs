/**
 * Preloaded into a crow process (NODE_OPTIONS="--require <this file>"):
 * appends the path of every file the process opens or reads, one per line,
 * to the file named by CROW_TEST_READS, and of every folder it lists. A test reads it to see which files
 * a command touched, e.g. that listing one folder's sessions opens no other
 * folder's meta.json. It watches; it changes nothing crow does.
 */
'use strict';
const fs = require('node:fs');

const log = process.env.CROW_TEST_READS;
if (log) {
  const append = fs.appendFileSync.bind(fs);
  const record = (target) => {
    if (typeof target === 'string' || target instanceof URL || Buffer.isBuffer(target)) append(log, `${String(target)}\n`);
  };
  const watch = (holder, name) => {
    const original = holder[name];
    holder[name] = function (target, ...rest) {
      record(target);
      return original.call(this, target, ...rest);
    };
  };
  for (const name of ['openSync', 'readFileSync', 'open', 'readFile']) watch(fs, name);
  for (const name of ['open', 'readFile']) watch(fs.promises, name);
  // A folder listed is logged as `readdir:<path>`, apart from the files opened.
  for (const holder of [fs, fs.promises]) {
    const original = holder.readdirSync ? holder.readdirSync : holder.readdir;
    const name = holder.readdirSync ? 'readdirSync' : 'readdir';
    holder[name] = function (target, ...rest) {
      if (typeof target === 'string' || target instanceof URL || Buffer.isBuffer(target)) append(log, `readdir:${String(target)}\n`);
      return original.call(this, target, ...rest);
    };
  }
}
