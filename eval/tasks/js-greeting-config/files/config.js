module.exports = { user: { firstName: 'Ada', lastName: 'Lovelace' } };
