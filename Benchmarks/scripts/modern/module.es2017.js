'use strict';
const pad = (value, width = 6) => `${value}`.padStart(width, ' ');

class Account0 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 0 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account0({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account1 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 1 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account1({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account2 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 2 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account2({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account3 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 3 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account3({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account4 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 4 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account4({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account5 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 5 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account5({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account6 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 6 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account6({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account7 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 7 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account7({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account8 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 8 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account8({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

class Account9 {
  constructor({ id, owner = 'nobody', balance = 0 } = {}) {
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }
  deposit(...amounts) {
    for (const amount of amounts) { this.balance += amount; this.log.push(['+', amount]); }
    return this;
  }
  withdraw(amount, { fee = 9 % 3 } = {}) {
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${this.id}: ${total} > ${this.balance}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }
  get summary() { return `${pad(this.id)} ${this.owner}: ${this.balance} (${this.log.length} moves)`; }
  static merge(a, b) { return new Account9({ id: a.id, owner: a.owner, balance: a.balance + b.balance }); }
  async settle(rate) { const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${interest}`]; }
}

exports.run = () => {
  const results = [];
  const classes = [Account0, Account1, Account2, Account3, Account4, Account5, Account6, Account7, Account8, Account9];
  classes.forEach((Kind, i) => {
    const a = new Kind({ id: i, owner: `owner${i}`, balance: 100 }).deposit(1, 2, 3);
    const b = new Kind({ id: i + 100 }).deposit(i);
    try { a.withdraw(10000); } catch (e) { results.push(e.name); }
    results.push(Kind.merge(a.withdraw(5), b).summary);
  });
  return results.join('\n');
};
