#!/usr/bin/env python3
"""Every Swift example of the documentation, compiled and run (`make snippets`).

    snippets.py generate DIR          writes one Swift file per example into DIR (the doc-snippets
                                      target) and DIR/snippets.json
    snippets.py run BINARY DIR        runs each runnable example and compares what it prints with
                                      what the document says it prints
    snippets.py consumer ROOT WORK    builds and runs a package made of the README's Package.swift
                                      lines, depending on ROOT by path

Where examples come from:
- README.md and every DocC article (Sources/*/*.docc/*.md): every ```swift block;
- doc comments (`///`) in Sources: the ```swift blocks that claim output (`// prints:`).

How a block is compiled, by the HTML comment on the line before its fence:
- no comment, or `<!-- snippet -->`: a complete program, imports included; compiled and run;
- `<!-- snippet: fragment -->`: code that assumes a context, compiled inside the declared
  wrapper (`import DuktapeCore`, and `let context = JSContext()!` unless the block declares its
  own); compiled and run;
- `<!-- snippet: compile-only -->`: a complete program that needs what a test cannot give it
  (a server to talk to); compiled, not run;
- `<!-- snippet: manifest -->`: Package.swift lines, built by `consumer` as a package of its own.
Doc-comment examples are fragments, with their module imported.

What a block prints: each `// prints: TEXT` comment is one line of the expected output, in
order; a run must print exactly those lines. Lines at column 0 that declare types and functions
are kept as declarations (extensions at file scope, the rest in the example's own namespace, so
that two examples may both declare `Point`); the other lines run in order.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

MARKER = re.compile(r"^\s*<!--\s*snippet(?::\s*([a-z-]+))?\s*-->\s*$")
KINDS = {None: "program", "fragment": "fragment", "compile-only": "compile-only", "manifest": "manifest"}
DECLARATION = re.compile(
    r"^(?:(?:public|private|fileprivate|internal|final|open|indirect|@\w+(?:\([^)]*\))?)\s+)*"
    r"(struct|class|enum|protocol|actor|extension|func|typealias)\b")
PRINTS = re.compile(r"//\s*prints:\s?(.*?)\s*$")


def markdown_blocks(path, root):
    """(line, kind, code) for each ```swift block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            marker = MARKER.match(lines[index - 1]) if index > 0 else None
            if index > 0 and lines[index - 1].strip().startswith("<!--") and not marker:
                sys.exit(f"{path}:{index}: unreadable snippet marker: {lines[index - 1]}")
            kind = marker.group(1) if marker else None
            if kind not in KINDS:
                sys.exit(f"{path}:{index}: unknown snippet kind {kind!r}")
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            # A block in a list item is indented with its fence: dedent it by as much.
            margin = len(lines[index]) - len(lines[index].lstrip())
            code = [line[margin:] if line[:margin].strip() == "" else line for line in lines[index + 1:end]]
            blocks.append((index + 1, KINDS[kind], code))
            index = end
        index += 1
    return blocks


def doc_comment_blocks(path):
    """(line, module, code) for each ```swift block in a doc comment that claims output."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, index = [], 0
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped == "/// ```swift":
            end, code = index + 1, []
            while end < len(lines) and lines[end].strip() != "/// ```":
                text = lines[end].strip()
                code.append(text[4:] if text.startswith("/// ") else text[3:])
                end += 1
            if any(PRINTS.search(line) for line in code):
                blocks.append((index + 1, code))
            index = end
        index += 1
    return blocks


def split(code):
    """(imports, file-scope declarations, namespaced declarations, statements)."""
    imports, extensions, declarations, statements = [], [], [], []
    index = 0
    while index < len(code):
        line = code[index]
        if line.startswith("import "):
            imports.append(line)
            index += 1
            continue
        match = DECLARATION.match(line)
        if match and not line.startswith(" "):
            depth, end = 0, index
            while True:
                depth += code[end].count("{") - code[end].count("}")
                if depth <= 0 and ("{" in "".join(code[index:end + 1]) or match.group(1) == "typealias"):
                    break
                end += 1
                if end >= len(code):
                    break
            body = code[index:end + 1]
            if match.group(1) == "extension":
                extensions += body
            else:
                if match.group(1) == "func":
                    body = ["static " + body[0]] + body[1:]
                declarations += body
            index = end + 1
            continue
        statements.append(line)
        index += 1
    return imports, extensions, declarations, statements


def swift_file(name, origin, code, wrapper_imports=None):
    imports, extensions, declarations, statements = split(code)
    if wrapper_imports is not None:
        imports = [f"import {module}" for module in wrapper_imports if f"import {module}" not in imports] + imports
        if not any(re.match(r"\s*(let|var) context\b", line) for line in statements):
            statements = ["let context = JSContext()!", "_ = context  // the wrapper's context, used or not"] + statements
    indent = lambda lines, by: [(" " * by + line) if line.strip() else "" for line in lines]
    return "\n".join(
        [f"// Generated from {origin} by Documentation/snippets.py: edit the document, not this file."]
        + imports + [""] + extensions + ["", f"enum {name} {{"] + indent(declarations, 4)
        + ["    static func run() async throws {"] + indent(statements, 8) + ["    }", "}", ""])


def generate(directory):
    root = os.getcwd()
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    os.makedirs(directory)
    manifest, number = [], 0
    documents = ["README.md"] + sorted(glob.glob("Sources/*/*.docc/*.md"))
    for document in documents:
        for line, kind, code in markdown_blocks(document, root):
            origin = f"{document}:{line}"
            if kind == "manifest":
                manifest.append({"origin": origin, "kind": kind, "code": code})
                continue
            number += 1
            name = f"Snippet{number}"
            wrapper = ["DuktapeCore"] if kind == "fragment" else None
            open(os.path.join(directory, f"{name}.swift"), "w").write(swift_file(name, origin, code, wrapper))
            manifest.append({"name": name, "origin": origin, "kind": kind,
                             "prints": [m.group(1) for m in map(PRINTS.search, code) if m]})
    for source in sorted(glob.glob("Sources/**/*.swift", recursive=True)):
        parts = source.split(os.sep)
        module = parts[1]
        if module not in ("DuktapeCore", "DuktapeRuntime", "DuktapeWeb"):
            continue
        for line, code in doc_comment_blocks(source):
            number += 1
            name = f"Snippet{number}"
            origin = f"{source}:{line}"
            open(os.path.join(directory, f"{name}.swift"), "w").write(swift_file(name, origin, code, [module]))
            manifest.append({"name": name, "origin": origin, "kind": "fragment",
                             "prints": [m.group(1) for m in map(PRINTS.search, code) if m]})
    check_links(documents)
    runnable = [entry for entry in manifest if entry["kind"] in ("program", "fragment")]
    cases = "\n".join(f'case "{entry["name"]}": try await {entry["name"]}.run()'
                      for entry in manifest if "name" in entry)
    open(os.path.join(directory, "main.swift"), "w").write(
        "// Generated by Documentation/snippets.py: runs the example named by the first argument.\n"
        "import Foundation\n\n"
        "switch CommandLine.arguments.dropFirst().first ?? \"\" {\n" + cases + "\n"
        "default:\n    FileHandle.standardError.write(Data(\"no such snippet\\n\".utf8))\n    exit(2)\n}\n")
    json.dump(manifest, open(os.path.join(directory, "snippets.json"), "w"), indent=1)
    compiled = sum(1 for entry in manifest if "name" in entry)
    print(f"snippets: {compiled} examples generated ({len(runnable)} to run), "
          f"{sum(1 for e in manifest if e['kind'] == 'manifest')} manifest")


def check_links(documents):
    """Every relative link of the documents names a file that exists."""
    broken = []
    for document in documents:
        text = open(document, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^(https?:|mailto:|#|<doc:|doc:)", target):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(document), target.split("#")[0]))
            if not os.path.exists(path):
                broken.append(f"{document}: {target}")
    if broken:
        sys.exit("broken links:\n" + "\n".join(broken))


def run(binary, directory):
    manifest = json.load(open(os.path.join(directory, "snippets.json")))
    failures, ran = [], 0
    for entry in manifest:
        if entry["kind"] not in ("program", "fragment"):
            continue
        try:
            result = subprocess.run([binary, entry["name"]], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append(f"{entry['origin']}: did not end within 60 s")
            continue
        ran += 1
        printed = result.stdout.rstrip("\n").split("\n") if result.stdout.strip() else []
        printed = [line.rstrip() for line in printed]
        if result.returncode != 0:
            failures.append(f"{entry['origin']}: exit {result.returncode}\n{result.stdout}{result.stderr[-3000:]}")
        elif printed != entry["prints"]:
            failures.append(f"{entry['origin']}: printed {printed!r}, the document says {entry['prints']!r}")
    for failure in failures:
        print("FAIL", failure)
    print(f"snippets: {ran} run, {len(failures)} failed")
    sys.exit(1 if failures else 0)


def consumer(root, work):
    """A package made of the README's manifest block, with `../DuktapeCore` pointing at ROOT."""
    manifest = [entry for entry in json.load(open(os.path.join("Tests/DocSnippets", "snippets.json")))
                if entry["kind"] == "manifest"]
    if len(manifest) != 1:
        sys.exit(f"expected one manifest block, found {len(manifest)}")
    code = "\n".join(manifest[0]["code"]) + "\n"
    name = re.search(r'name:\s*"([^"]+)"', code).group(1)
    os.makedirs(work, exist_ok=True)
    link = os.path.join(work, "DuktapeCore")
    if os.path.islink(link):
        os.remove(link)
    os.symlink(os.path.abspath(root), link)
    package = os.path.join(work, name)
    os.makedirs(os.path.join(package, "Sources", name), exist_ok=True)
    open(os.path.join(package, "Package.swift"), "w").write(code)
    open(os.path.join(package, "Sources", name, "main.swift"), "w").write(
        "import DuktapeWeb\n\n"
        "// One import: DuktapeCore's, DuktapeRuntime's, DuktapeWeb's and Foundation's names.\n"
        "let context = JSContext()!\n"
        "_ = JSEventLoop(context: context)\n"
        "let configuration = WebLoaderConfiguration()\n"
        "print(context.evaluateScript(\"1 + 1\")!.toInt32(), URL(string: \"https://example.com\")!.host ?? \"\",\n"
        "      configuration.maximumPages > 0)\n")
    subprocess.run(["swift", "build", "--package-path", package, "-Xswiftc", "-warnings-as-errors"], check=True)
    binary = subprocess.run(["swift", "build", "--package-path", package, "--show-bin-path"],
                            capture_output=True, text=True, check=True).stdout.strip()
    output = subprocess.run([os.path.join(binary, name)], capture_output=True, text=True, check=True).stdout
    if output.strip() != "2 example.com true":
        sys.exit(f"consumer printed {output!r}")
    print(f"snippets: the README's Package.swift ({manifest[0]['origin']}) builds a consumer that runs")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "generate" and len(sys.argv) == 3:
        generate(sys.argv[2])
    elif command == "run" and len(sys.argv) == 4:
        run(sys.argv[2], sys.argv[3])
    elif command == "consumer" and len(sys.argv) == 4:
        consumer(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
