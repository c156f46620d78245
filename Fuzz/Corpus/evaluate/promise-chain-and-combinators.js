var log = [];
var p = Promise.resolve(1);
for (var i = 0; i < 50; i++) p = p.then(function (v) { return v + 1 });
p.then(function (v) { log.push(v) });
Promise.all([1, Promise.resolve(2), { then: function (r) { r(3) } }]).then(function (v) { log.push(v) });
Promise.allSettled([Promise.reject(new Error('x')), 'a']).then(function (r) { log.push(r.length) });
Promise.any([Promise.reject(1), Promise.reject(2)]).catch(function (e) { log.push(e.errors) });
Promise.race('abc').then(function (v) { log.push(v) });
new Promise(function (res, rej) { res(p); rej(1) }).finally(function () { throw 'f' }).catch(function () {});
