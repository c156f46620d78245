#!/usr/bin/env python3
"""Writes module.es2017.js (about 10 KB of ES2017: classes, arrows, templates, destructuring,
default and rest parameters, spread, for...of, async/await) and module.es5.js, the same module
written by hand in ES5 (prototypes, var, concatenation, promise chains): W13's pair. Both export
run(), which returns the same string."""

ES2017_HEAD = """'use strict';
const pad = (value, width = 6) => `${value}`.padStart(width, ' ');
"""
ES2017_CLASS = """
class Account{n} {{
  constructor({{ id, owner = 'nobody', balance = 0 }} = {{}}) {{
    this.id = id; this.owner = owner; this.balance = balance; this.log = [];
  }}
  deposit(...amounts) {{
    for (const amount of amounts) {{ this.balance += amount; this.log.push(['+', amount]); }}
    return this;
  }}
  withdraw(amount, {{ fee = {n} % 3 }} = {{}}) {{
    const total = amount + fee;
    if (total > this.balance) throw new RangeError(`account ${{this.id}}: ${{total}} > ${{this.balance}}`);
    this.balance -= total; this.log.push(['-', total]);
    return this;
  }}
  get summary() {{ return `${{pad(this.id)}} ${{this.owner}}: ${{this.balance}} (${{this.log.length}} moves)`; }}
  static merge(a, b) {{ return new Account{n}({{ id: a.id, owner: a.owner, balance: a.balance + b.balance }}); }}
  async settle(rate) {{ const interest = await Promise.resolve(Math.round(this.balance * rate)); this.balance += interest; return [...this.log.map(([sign, v]) => sign + v), `i${{interest}}`]; }}
}}
"""
ES2017_TAIL = """
exports.run = () => {{
  const results = [];
  const classes = [{classes}];
  classes.forEach((Kind, i) => {{
    const a = new Kind({{ id: i, owner: `owner${{i}}`, balance: 100 }}).deposit(1, 2, 3);
    const b = new Kind({{ id: i + 100 }}).deposit(i);
    try {{ a.withdraw(10000); }} catch (e) {{ results.push(e.name); }}
    results.push(Kind.merge(a.withdraw(5), b).summary);
  }});
  return results.join('\\n');
}};
"""

ES5_HEAD = """'use strict';
function pad(value, width) {
  if (width === undefined) width = 6;
  var text = String(value);
  while (text.length < width) text = ' ' + text;
  return text;
}
"""
ES5_CLASS = """
function Account{n}(options) {{
  options = options || {{}};
  this.id = options.id; this.owner = options.owner === undefined ? 'nobody' : options.owner;
  this.balance = options.balance === undefined ? 0 : options.balance; this.log = [];
}}
Account{n}.prototype.deposit = function () {{
  for (var i = 0; i < arguments.length; i++) {{ this.balance += arguments[i]; this.log.push(['+', arguments[i]]); }}
  return this;
}};
Account{n}.prototype.withdraw = function (amount, options) {{
  var fee = options && options.fee !== undefined ? options.fee : {n} % 3;
  var total = amount + fee;
  if (total > this.balance) throw new RangeError('account ' + this.id + ': ' + total + ' > ' + this.balance);
  this.balance -= total; this.log.push(['-', total]);
  return this;
}};
Object.defineProperty(Account{n}.prototype, 'summary', {{ get: function () {{
  return pad(this.id) + ' ' + this.owner + ': ' + this.balance + ' (' + this.log.length + ' moves)';
}} }});
Account{n}.merge = function (a, b) {{ return new Account{n}({{ id: a.id, owner: a.owner, balance: a.balance + b.balance }}); }};
Account{n}.prototype.settle = function (rate) {{
  var self = this;
  return Promise.resolve(Math.round(this.balance * rate)).then(function (interest) {{
    self.balance += interest;
    return self.log.map(function (entry) {{ return entry[0] + entry[1]; }}).concat(['i' + interest]);
  }});
}};
"""
ES5_TAIL = """
exports.run = function () {{
  var results = [];
  var classes = [{classes}];
  classes.forEach(function (Kind, i) {{
    var a = new Kind({{ id: i, owner: 'owner' + i, balance: 100 }}).deposit(1, 2, 3);
    var b = new Kind({{ id: i + 100 }}).deposit(i);
    try {{ a.withdraw(10000); }} catch (e) {{ results.push(e.name); }}
    results.push(Kind.merge(a.withdraw(5), b).summary);
  }});
  return results.join('\\n');
}};
"""

COUNT = 10
names = ", ".join(f"Account{n}" for n in range(COUNT))
modern = ES2017_HEAD + "".join(ES2017_CLASS.format(n=n) for n in range(COUNT)) + ES2017_TAIL.format(classes=names)
es5 = ES5_HEAD + "".join(ES5_CLASS.format(n=n) for n in range(COUNT)) + ES5_TAIL.format(classes=names)
with open("module.es2017.js", "w") as f:
    f.write(modern)
with open("module.es5.js", "w") as f:
    f.write(es5)
print(len(modern.encode()), len(es5.encode()))
