'use strict';
function pad(value, width) {
  if (width === undefined) width = 6;
  var text = String(value);
  while (text.length < width) text = ' ' + text;
  return text;
}

function Account0(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account0.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account0.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 0 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account0.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account0.merge = function (a, b) { return new Account0({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account0.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account1(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account1.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account1.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 1 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account1.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account1.merge = function (a, b) { return new Account1({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account1.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account2(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account2.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account2.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 2 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account2.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account2.merge = function (a, b) { return new Account2({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account2.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account3(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account3.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account3.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 3 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account3.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account3.merge = function (a, b) { return new Account3({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account3.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account4(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account4.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account4.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 4 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account4.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account4.merge = function (a, b) { return new Account4({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account4.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account5(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account5.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account5.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 5 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account5.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account5.merge = function (a, b) { return new Account5({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account5.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account6(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account6.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account6.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 6 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account6.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account6.merge = function (a, b) { return new Account6({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account6.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account7(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account7.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account7.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 7 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account7.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account7.merge = function (a, b) { return new Account7({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account7.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account8(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account8.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account8.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 8 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account8.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account8.merge = function (a, b) { return new Account8({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account8.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

function Account9(options) {
  options = options || {};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}
Account9.prototype.deposit = function () {
  for (var i = 0; i < arguments.length; i++) { this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }
  return this;
};
Account9.prototype.withdraw = function (amount, options) {
  var fee = options && options.fee !== undefined ? options.fee : 9 % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
};
Object.defineProperty(Account9.prototype, 'summary', { get: function () {
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
} });
Account9.merge = function (a, b) { return new Account9({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); };
Account9.prototype.settle = function (rate) {
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {
    self.balance += interest;
    return self.log.map(function (entry) { return entry[0] + entry[1]; }).concat(['i' + interest]);
  });
};

exports.run = function () {
  var results = [];
  var classes = [Account0, Account1, Account2, Account3, Account4, Account5, Account6, Account7, Account8, Account9];
  classes.forEach(function (Kind, i) {
    var a = new Kind({ id: i, owner: 'owner' + i, balance: 100 }).deposit(1, 2, 3);
    var b = new Kind({ id: i + 100 }).deposit(i);
    try { a.withdraw(10000); } catch (e) { results.push(e.name); }
    results.push(Kind.merge(a.withdraw(5), b).summary);
  });
  return results.join('\n');
};
