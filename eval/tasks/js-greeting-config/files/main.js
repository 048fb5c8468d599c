const config = require('./config');
const { greeting } = require('./format');
console.log(greeting(config.user));
