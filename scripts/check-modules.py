#!/usr/bin/env python3
"""Checks the module graph of Package.swift against scripts/module-rules.txt.

Reads the package, and the packages the rules file names on its `package` line (Fuzz/,
Benchmarks/), with `swift package dump-package` (it evaluates a manifest only: nothing is built or
resolved) and checks two things:

1. Reach: no target reaches, through any chain of dependencies, a module its rules forbid. A
   broken rule is reported with the path that breaks it, e.g.
   `Escrow → EscrowWire → EscrowStore → CSQLite`.
2. Declared imports: every `import X` in a target's Swift sources names one of the target's
   direct dependencies (a target, or a product of another package) or a toolchain module listed
   in the rules file.

The rules and their format are described at the top of scripts/module-rules.txt.

Usage: scripts/check-modules.py [--package-path DIR] [--rules FILE]
Exit status: 0 when every rule holds and every import is declared, 1 when not (each problem on
stderr, with what to do), 2 when the rules file or the package cannot be read.
Uses the Python standard library only.
"""

import argparse
import collections
import concurrent.futures
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile

ARROW = " \u2192 "

# An import declaration: attributes (@testable, @preconcurrency, @_spi(X) …), an access level,
# an optional kind (`import struct Foundation.Date`), then the module; `Foundation.NSData` is Foundation.
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)"
)

# The delimiter of a multi-line string literal; `\"""` inside one is an escaped quote, not a delimiter.
STRING_DELIMITER = re.compile(r'(?<!\\)"""')


class Unreadable(Exception):
    """The rules file or the package could not be read: what is wrong and what to do."""


class Rules:
    """The parsed rules file: further packages, toolchain modules, groups and per-target rules."""

    def __init__(self, path):
        self.path = path
        self.toolchain = []
        self.packages = []  # folders of further packages checked with the main one
        self.groups = {}  # "@name" -> [token]
        self.rules = []  # (target, kind, [token], reason, line number)
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError as error:
            raise Unreadable(f"cannot read the rules file {path}: {error.strerror}; "
                             "pass its path with --rules") from error
        for number, raw in enumerate(lines, start=1):
            self._parse(raw, number)
        self.groups["@toolchain"] = list(self.toolchain)

    def _fail(self, number, message):
        raise Unreadable(f"{self.path}:{number}: {message} (the format is described at the top of the file)")

    def _parse(self, raw, number):
        text, _, comment = raw.partition("#")
        words = text.split()
        if not words:
            return
        head = words[0]
        if head == "toolchain":
            self.toolchain.extend(words[1:])
        elif head == "package":
            self.packages.extend(words[1:])
        elif head == "group":
            if len(words) < 2 or not words[1].startswith("@"):
                self._fail(number, "expected `group @<name> <name>…`")
            self.groups[words[1]] = words[2:]
        elif head.endswith(":"):
            if len(words) < 2 or words[1] not in ("never", "only"):
                self._fail(number, f"expected `{head} never <name>…` or `{head} only <name>…`")
            self.rules.append((head[:-1], words[1], words[2:], comment.strip(), number))
        else:
            self._fail(number, f"cannot read `{raw.strip()}`")

    def expand(self, tokens, known, number, seen=()):
        """The names `tokens` stand for among `known`; unknown names and empty globs are errors."""
        names = []
        for token in tokens:
            if token.startswith("@"):
                if token not in self.groups:
                    self._fail(number, f"no group {token}")
                if token in seen:
                    self._fail(number, f"group {token} includes itself")
                names.extend(self.expand(self.groups[token], known, number, seen + (token,)))
            elif any(character in token for character in "*?["):
                matched = sorted(name for name in known if fnmatch.fnmatchcase(name, token))
                if not matched:
                    self._fail(number, f"{token} matches no target, product or toolchain module of the package")
                names.extend(matched)
            elif token in known:
                names.append(token)
            else:
                self._fail(number, f"{token} is no target, product or toolchain module of the package: "
                                   "a typo, or a module that was renamed?")
        return names


class Graph:
    """The targets of the checked packages, their direct edges and the imports of their Swift files."""

    def __init__(self, root, packages, rules):
        """`packages`: (folder relative to `root`, its dump-package JSON), the main package first."""
        self.root = root
        self.targets = {}  # name -> target JSON
        self.manifest = {}  # target -> the Package.swift declaring it, relative to root
        self.folder = {}  # target -> its package's folder
        local_products = {}  # package name or identity -> {product: [target]}
        for folder, dump in packages:
            products = {product["name"]: product["targets"] for product in dump.get("products", [])}
            local_products[dump["name"]] = products
            local_products[os.path.basename(os.path.abspath(os.path.join(root, folder))).lower()] = products
            for target in dump["targets"]:
                name = target["name"]
                if name in self.targets:
                    raise Unreadable(f"two packages have a target called {name} ({self.manifest[name]} and "
                                     f"{os.path.join(folder, 'Package.swift')}): rename one, the rules name targets alone")
                self.targets[name] = target
                self.manifest[name] = os.path.normpath(os.path.join(folder, "Package.swift"))
                self.folder[name] = os.path.normpath(os.path.join(root, folder))
        self.edges = {}  # node -> [node], in declaration order
        self.declared = {}  # target -> {module: how to declare it}
        self.imports = {}  # target -> [(module, file, line)]
        self.product_spelling = {}  # a product of another package -> how Package.swift names it
        for name, target in self.targets.items():
            self.edges[name] = []
            self.declared[name] = {}
            for dependency in target["dependencies"]:
                for module, spelling, local in self._modules(dependency, local_products):
                    self.edges[name].append(module)
                    self.declared[name][module] = spelling
                    if not local:
                        self.product_spelling[module] = spelling
            self.imports[name] = list(self._imports(name, target))
            for module, _, _ in self.imports[name]:
                if module in rules.toolchain and module not in self.edges[name]:
                    self.edges[name].append(module)
        self.products = set(self.product_spelling) - set(self.targets)

    @staticmethod
    def _modules(dependency, local_products):
        """(module, Package.swift spelling, whether it is a checked target) for one dependency."""
        kind, value = next(iter(dependency.items()))
        name = value[0]
        if kind == "product":
            package = value[1]
            spelling = f'.product(name: "{name}", package: "{package}")'
            local = local_products.get(package, local_products.get(package.lower(), {}))
            if name in local:  # a product of a checked package: its targets, followed further
                for module in local[name]:
                    yield module, spelling, True
            else:  # a product of another package: the module named like it
                yield name, spelling, False
        else:  # "byName" or "target": a target of the same package, or a product named like its module
            yield name, f'"{name}"', True

    def _imports(self, name, target):
        """(module, file, line) for every import in the target's Swift sources."""
        default = {"test": "Tests", "plugin": "Plugins"}.get(target["type"], "Sources")
        folder = os.path.join(self.folder[name], target.get("path") or os.path.join(default, name))
        excluded = [os.path.normpath(os.path.join(folder, item)) for item in target.get("exclude", [])]
        for directory, subdirectories, files in os.walk(folder):
            subdirectories[:] = sorted(entry for entry in subdirectories
                                       if os.path.join(directory, entry) not in excluded)
            for file in sorted(files):
                path = os.path.join(directory, file)
                if file.endswith(".swift") and path not in excluded:
                    for module, line in swift_imports(path):
                        yield module, os.path.relpath(path, self.root), line

    def path(self, start, goal_test):
        """Shortest paths from `start` to every node `goal_test` accepts, breadth first."""
        parents = {start: None}
        queue = collections.deque([start])
        found = []
        while queue:
            node = queue.popleft()
            for successor in self.edges.get(node, []):
                if successor not in parents:
                    parents[successor] = node
                    queue.append(successor)
                    if goal_test(successor):
                        found.append(successor)
        paths = []
        for node in found:
            chain = [node]
            while parents[chain[-1]] is not None:
                chain.append(parents[chain[-1]])
            paths.append(list(reversed(chain)))
        return paths

    def where_imported(self, target, module):
        """`file:line` of the first import of `module` in `target`, or None."""
        for imported, file, line in self.imports.get(target, []):
            if imported == module:
                return f"{file}:{line}"
        return None


def swift_imports(path):
    """(module, line) for each import in a Swift file, outside comments and multi-line strings."""
    in_comment = False
    in_string = False
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            stripped = line.strip()
            if in_comment:
                in_comment = "*/" not in stripped
                continue
            if not in_string:
                match = IMPORT.match(line)
                if match:
                    yield match.group(1), number
                    continue
                if stripped.startswith("/*") and "*/" not in stripped:
                    in_comment = True
                    continue
            # Each `"""` not escaped opens or closes a multi-line string.
            if len(STRING_DELIMITER.findall(line)) % 2 == 1:
                in_string = not in_string


def dump_package(package_path):
    """`swift package dump-package` as JSON, with a scratch folder of its own.

    A scratch folder of its own, because the package's `.build` is locked while `swift build` or
    `swift test` runs, and this check runs from the tests too.
    """
    with tempfile.TemporaryDirectory(prefix="check-modules-") as scratch:
        try:
            run = subprocess.run(["swift", "package", "--package-path", package_path, "--scratch-path", scratch,
                                  "dump-package"], capture_output=True, text=True, check=False)
        except OSError as error:
            raise Unreadable(f"cannot run `swift package dump-package`: {error.strerror}; "
                             "is the Swift toolchain on PATH?") from error
    if run.returncode != 0:
        raise Unreadable(f"`swift package dump-package` failed (exit {run.returncode}) in {package_path}:\n"
                         f"{run.stderr.strip()}\nfix Package.swift so that it evaluates")
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError as error:
        raise Unreadable(f"`swift package dump-package` printed no JSON ({error})") from error


def check(package_path, rules_path):
    """The problems found, each a line saying what is wrong and what to do; and a summary."""
    rules = Rules(rules_path)
    folders = ["."] + rules.packages
    with concurrent.futures.ThreadPoolExecutor() as pool:  # each dump is a process of its own
        dumps = list(pool.map(dump_package, [os.path.join(package_path, folder) for folder in folders]))
    graph = Graph(package_path, list(zip(folders, dumps)), rules)
    rules_name = os.path.relpath(rules_path, package_path) if rules_path.startswith(package_path + os.sep) else rules_path
    known = set(graph.targets) | graph.products | set(rules.toolchain)
    problems = []

    ruled = set()
    for pattern, kind, tokens, reason, number in rules.rules:
        targets = sorted(name for name in graph.targets if fnmatch.fnmatchcase(name, pattern))
        if not targets:
            problems.append(f"{rules_name}:{number}: rule for {pattern}, which names no target of the checked packages: "
                            "remove the rule or fix its name")
            continue
        ruled.update(targets)
        names = set(rules.expand(tokens, known, number))
        for target in targets:
            if kind == "never":
                broken = graph.path(target, lambda node: node in names)
                verb = "must never reach"
            else:
                broken = graph.path(target, lambda node: node not in names)
                verb = "may reach only " + (", ".join(sorted(names)) if names else "nothing") + ", not"
            for path in broken:
                where = ""
                if path[-1] in rules.toolchain:
                    where = f" (imported at {graph.where_imported(path[-2], path[-1])})"
                because = f"; the rule: {reason}" if reason else ""
                problems.append(f"{rules_name}:{number}: {target} {verb} {path[-1]}: "
                                f"{ARROW.join(path)}{where}{because}")
    for target in sorted(set(graph.targets) - ruled):
        problems.append(f"{rules_name}: {graph.manifest[target]}'s target {target} has no rule: add one "
                        "(`{target}: never …` or `{target}: only …`, the format is at the top of the file)"
                        .replace("{target}", target))

    for target in sorted(graph.targets):
        undeclared = {}  # module -> the places it is imported, in file order
        for module, file, line in graph.imports[target]:
            if module not in graph.declared[target] and module not in rules.toolchain and module != target:
                undeclared.setdefault(module, []).append(f"{file}:{line}")
        for module, places in undeclared.items():
            manifest = graph.manifest[target]
            if module in graph.targets and graph.manifest[module] == manifest:
                fix = f'add "{module}" to its dependencies in {manifest}'
            elif module in graph.targets:
                fix = f"add the product of {graph.manifest[module]} that holds {module} to its dependencies in {manifest}"
            elif module in graph.product_spelling:
                fix = f"add {graph.product_spelling[module]} to its dependencies in {manifest}"
            else:
                fix = (f"add the target or product that provides it to its dependencies in {manifest} "
                       f"(or, if {module} ships with the Swift toolchain, list it on the `toolchain` line of {rules_name})")
            more = f" (and {len(places) - 1} more place(s))" if len(places) > 1 else ""
            problems.append(f"{places[0]}: {target} imports {module}{more}, which it does not declare: {fix}, "
                            "or drop the import")

    reach_rules = len(rules.rules)
    summary = (f"module graph: {len(graph.targets)} targets of {len(folders)} package(s), {reach_rules} rules of "
               f"{rules_name} hold, every import is declared")
    return problems, summary


def main():
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Checks Package.swift's module graph against its rules file.")
    parser.add_argument("--package-path", default=default_root, help="the package (default: this script's package)")
    parser.add_argument("--rules", help="the rules file (default: scripts/module-rules.txt of the package)")
    arguments = parser.parse_args()
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8")  # the paths' arrows, whatever the locale
    package_path = os.path.abspath(arguments.package_path)
    rules_path = os.path.abspath(arguments.rules or os.path.join(package_path, "scripts", "module-rules.txt"))
    try:
        problems, summary = check(package_path, rules_path)
    except Unreadable as error:
        print(f"check-modules: {error}", file=sys.stderr)
        return 2
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"check-modules: {len(problems)} problem(s) in the module graph. Fix the dependency or import named; "
              "if the design changed, change the rule and docs/ARCHITECTURE.md together.", file=sys.stderr)
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
