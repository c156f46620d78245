#!/usr/bin/env python3
"""A conformance run of DuktapeCore against test262 (`make test262`; not part of CI).

Takes a checkout of tc39/test262 and a dukjs binary; picks a deterministic sample of ES5 tests
(es5id, no ES2015+ feature) and of ES2015 tests (es6id, or only ES2015 features), runs each as a
script (`dukjs run -`, standard input: global code) with the harness files it includes, in the
modes its flags ask for, and prints the pass rates (and, with --failures, what failed).

    python3 Conformance/test262.py TEST262_DIR .build/release/dukjs [--sample 250] [--failures]

Not run (counted apart, not as failures): module tests (Duktape has no ES modules), and tests
that need a host hook this runner does not give ($262.createRealm, $262.agent, detachArrayBuffer,
IsHTMLDDA, SharedArrayBuffer/Atomics).
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

ES2015_FEATURES = {
    "arrow-function", "let", "const", "class", "template", "destructuring-binding", "destructuring-assignment",
    "default-parameters", "rest-parameters", "spread", "for-of", "generators", "Symbol", "Symbol.iterator",
    "Symbol.toStringTag", "Symbol.hasInstance", "Symbol.toPrimitive", "Symbol.isConcatSpreadable",
    "Symbol.unscopables", "Symbol.species", "Symbol.match", "Symbol.replace", "Symbol.search", "Symbol.split",
    "Map", "Set", "WeakMap", "WeakSet", "Promise", "Proxy", "Reflect", "Reflect.construct", "computed-property-names",
    "new.target", "super", "TypedArray", "ArrayBuffer", "DataView", "Int8Array", "Uint8Array", "Uint8ClampedArray",
    "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "u180e",
    "object-spread", "object-rest", "Array.prototype.values", "block-scoping", "cross-realm",
    "String.prototype.normalize", "tail-call-optimization", "default-arg", "unicode", "regexp-sticky", "regexp-unicode",
}
UNSUPPORTED_HOST = {"cross-realm", "IsHTMLDDA", "SharedArrayBuffer", "Atomics", "host-gc-required", "tail-call-optimization"}
UNSUPPORTED_HOST_TEXT = ("$262.createRealm", "$262.agent", "$262.detachArrayBuffer", "$DETACHBUFFER", "$262.gc")

PRELUDE = """var $262 = { global: this, evalScript: function (s) { return (0, eval)(s); },
  destroy: function () {}, IsHTMLDDA: undefined };
var print = function () { console.log(Array.prototype.join.call(arguments, ' ')); };
"""


def metadata(text):
    match = re.search(r"/\*---(.*?)---\*/", text, re.S)
    block = match.group(1) if match else ""
    meta = {"flags": [], "includes": [], "features": [], "negative": None, "es5id": False, "es6id": False}
    for key in ("flags", "includes", "features"):
        inline = re.search(rf"^\s*{key}:\s*\[(.*?)\]", block, re.M)
        if inline:
            meta[key] = [item.strip() for item in inline.group(1).split(",") if item.strip()]
        else:
            listed = re.search(rf"^\s*{key}:\s*\n((?:\s+-\s+.*\n?)+)", block, re.M)
            if listed:
                meta[key] = [line.strip()[1:].strip() for line in listed.group(1).splitlines() if line.strip()]
    negative = re.search(r"negative:\s*\n\s+phase:\s*(\w+)\s*\n\s+type:\s*(\w+)", block)
    if negative:
        meta["negative"] = (negative.group(1), negative.group(2))
    meta["es5id"] = re.search(r"^\s*es5id:", block, re.M) is not None
    meta["es6id"] = re.search(r"^\s*es6id:", block, re.M) is not None
    return meta


def classify(path, meta):
    if meta["features"]:
        if all(feature in ES2015_FEATURES for feature in meta["features"]):
            return "es2015"
        return None
    if meta["es6id"]:
        return "es2015"
    if meta["es5id"]:
        return "es5"
    return None


def run(dukjs, root, path, meta, text):
    harness = ["assert.js", "sta.js"] + (["doneprintHandle.js"] if "async" in meta["flags"] else []) + meta["includes"]
    prefix = ""
    if "raw" not in meta["flags"]:
        prefix = PRELUDE + "".join(open(os.path.join(root, "harness", name), encoding="utf-8").read() + "\n" for name in harness)
    modes = []
    if "raw" in meta["flags"] or "noStrict" in meta["flags"]:
        modes = [""]
    elif "onlyStrict" in meta["flags"]:
        modes = ["'use strict';\n"]
    else:
        modes = ["", "'use strict';\n"]
    for mode in modes:
        source = mode + prefix + text
        try:
            done = subprocess.run([dukjs, "run", "-"], input=source, capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            return False, "timeout"
        output = done.stdout + done.stderr
        if meta["negative"]:
            phase, kind = meta["negative"]
            if done.returncode == 0 or kind not in output:
                return False, f"expected {phase} {kind}: {output[-300:]}"
        elif done.returncode != 0:
            return False, output[-300:]
        elif "async" in meta["flags"] and "Test262:AsyncTestComplete" not in done.stdout:
            return False, "async test did not complete: " + output[-300:]
    return True, ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("test262")
    parser.add_argument("dukjs")
    parser.add_argument("--sample", type=int, default=250)
    parser.add_argument("--failures", action="store_true")
    arguments = parser.parse_args()
    root = arguments.test262
    candidates = {"es5": [], "es2015": []}
    skipped = 0
    for folder in ("built-ins", "language"):
        for directory, _, files in os.walk(os.path.join(root, "test", folder)):
            for name in files:
                if not name.endswith(".js") or "_FIXTURE" in name:
                    continue
                path = os.path.join(directory, name)
                text = open(path, encoding="utf-8").read()
                meta = metadata(text)
                kind = classify(path, meta)
                if kind is None:
                    continue
                if "module" in meta["flags"] or UNSUPPORTED_HOST & set(meta["features"]) or any(t in text for t in UNSUPPORTED_HOST_TEXT):
                    skipped += 1
                    continue
                candidates[kind].append((hashlib.sha1(os.path.relpath(path, root).encode()).hexdigest(), path, meta, text))
    print(f"test262 at {root}: {len(candidates['es5'])} ES5 and {len(candidates['es2015'])} ES2015 candidates, "
          f"{skipped} not runnable here (modules, host hooks)")
    for kind in ("es5", "es2015"):
        sample = sorted(candidates[kind])[: arguments.sample]
        passed = 0
        failures = []
        for _, path, meta, text in sample:
            ok, why = run(arguments.dukjs, root, path, meta, text)
            if ok:
                passed += 1
            else:
                failures.append((os.path.relpath(path, root), why))
        print(f"{kind}: {passed} of {len(sample)} passed ({100.0 * passed / max(len(sample), 1):.1f} %)")
        if arguments.failures:
            for path, why in failures:
                print(f"  FAIL {path}: {why.strip().splitlines()[-1] if why.strip() else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
