#!/usr/bin/env bash
# Runs the Promises/A+ compliance suite (promises-aplus/promises-tests, 872 tests) under
# `dukjs run`, with the engine's own Promise as the adapter. The suite is public and not part
# of this repository: give the path of a checkout of it.
#
#     bash Conformance/promises-aplus.sh PATH-TO-promises-tests [DUKJS]
set -euo pipefail
suite=${1:?usage: promises-aplus.sh PATH-TO-promises-tests [DUKJS]}
dukjs=$(realpath "${2:-.build/debug/dukjs}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM HUP
# The test files and their helpers, with the shims of Node's assert and sinon beside them, where
# their require('assert') and require('sinon') find them.
cp -R "$suite/lib/tests/." "$work/"
mkdir -p "$work/node_modules"
cp "$here/promises-aplus/shims/assert.js" "$here/promises-aplus/shims/sinon.js" "$work/node_modules/"
cd "$work"
files=$(ls 2.*.js | sort -V)
"$dukjs" run "$here/promises-aplus/runner.js" "$work" $files 2>&1 || status=$?
exit "${status:-0}"
