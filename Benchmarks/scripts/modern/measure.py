#!/usr/bin/env python3
"""W13: runs modern-probe (and Node's maps loop when node is there) and prints one JSON object
for report.py: the compiler VM's first lowering with and without its image (median of 5
processes each, each with a fresh cache directory), the 10 KB module (its first run with the
compiler's image and no lowering cached), and the Map/Set loops."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

probe, folder = sys.argv[1], sys.argv[2]


def run(*arguments):
    return json.loads(subprocess.run([probe, *arguments], check=True, capture_output=True, text=True).stdout)


no_image, image = [], []
for _ in range(5):
    directory = tempfile.mkdtemp(prefix="w13-")
    try:
        no_image.append(run("ready", directory)["ready_ms"])
        image.append(run("ready", directory)["ready_ms"])
    finally:
        shutil.rmtree(directory, ignore_errors=True)
# The module's first run: the compiler VM from its image, the module's lowering in no cache.
directory = tempfile.mkdtemp(prefix="w13-")
try:
    run("ready", directory)
    shutil.rmtree(os.path.join(directory, "lowered"), ignore_errors=True)
    module = run("module", os.path.join(folder, "module.es2017.js"), os.path.join(folder, "module.es5.js"), directory)
finally:
    shutil.rmtree(directory, ignore_errors=True)
result = {
    "ready": {"no_image_ms": statistics.median(no_image), "image_ms": statistics.median(image)},
    "module": module,
    "maps": run("maps"),
}
if shutil.which("node"):
    node = subprocess.run(["node", os.path.join(folder, "maps-node.js")], check=True, capture_output=True, text=True)
    result["node_maps"] = json.loads(node.stdout)
print(json.dumps(result, indent=1))
