#!/usr/bin/env python3
"""The layers of ARCHITECTURE.md checked against the code.

ARCHITECTURE.md, "Layers", holds a table in a fenced block marked ```layers:
one row per top-level module of src/ (several modules may share a row), its
layer in the first column (written on the layer's first row), and the
top-level modules it uses (`(none)`; a parenthesised note is a comment):

    vocabulary  model, terms, rng, digest, stack           (none)
    domain      matching                                  index, model, terms
                annotate                                  matching, model, query,
                                                          terms

The layers come in the order the table first names them. An arrow A -> B is
any path of a file of module A that names module B: `use crate::B::…`, `use
crate::{B, …}`, `crate::B::f(…)` in code, `super::…` paths that climb out of
A. Comments and string literals are skipped (house.py's strip_code); so is
test code: a `#[cfg(test)]` item (`mod tests { … }`, a function, a `use`) and
a file declared `#[cfg(test)] mod x;` (test_data.rs among them), which is
compiled for tests only.

It fails (exit 1), naming the module and where, when
  - a module uses a module its row does not list (file:line of every use),
    saying when that module is of a later layer (an upward arrow);
  - a row lists a module that no code of the row's module uses (stale);
  - a row lists a module of a later layer, or the rows make a circle;
  - a top-level module has no row, or a row names no module of src/.

ARCHITECTURE.md, "External crates", lists where each external crate may be
named, one line each: `- regex: `eval/profiles/mintaka.rs` (note), …`. Every
backticked place outside parentheses is a file or a module (directory) under
src/, or else a directory of the repository (`fuzz/`). It fails when a
non-test file names a crate (`regex::…`, `use regex;`) outside the places of
its line, when a place names none of its line's crates, or when a crate of a
line is named nowhere.

Usage: scripts/layers.py [--list] [ROOT]
  --list prints every module's arrows; ROOT is the repository (default: the
  one this script is in). Exits 1 on any finding, 0 otherwise.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no scripts/__pycache__ from importing house.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import house  # noqa: E402  (strip_code, module_of, use_paths, absolute, tarjan)


def fail(findings, message):
    findings.append(message)


# --- The table ---------------------------------------------------------------


def strip_notes(text):
    """The text without its parenthesised notes (nested ones included)."""
    while True:
        out = re.sub(r"\([^()]*\)", "", text)
        if out == text:
            return out
        text = out


def names(field):
    return [n for n in (s.strip() for s in strip_notes(field).split(",")) if n]


def read_table(doc, findings):
    """{module: (layer index, {deps}, line)} and the layers in order, from the
    fenced block ```layers of ARCHITECTURE.md."""
    lines = doc.split("\n")
    start = next((i for i, l in enumerate(lines) if l.strip() == "```layers"), None)
    if start is None:
        fail(findings, "ARCHITECTURE.md: no ```layers block (the table of the layers)")
        return {}, []
    rows, layers, last = {}, [], None
    for i in range(start + 1, len(lines)):
        line = lines[i].rstrip()
        if line.strip() == "```":
            break
        if not line.strip():
            continue
        fields = re.split(r"\s{2,}", line.strip())
        if not line[0].isspace():
            layers.append(fields.pop(0))
        if not layers:
            fail(findings, f"ARCHITECTURE.md:{i + 1}: a row before any layer: {line.strip()}")
            continue
        if len(fields) == 2:
            last = []
            for module in names(fields[0]):
                if module in rows:
                    fail(findings, f"ARCHITECTURE.md:{i + 1}: {module} has a row already "
                                   f"(line {rows[module][2]})")
                rows[module] = (len(layers) - 1, set(names(fields[1])), i + 1)
                last.append(module)
        elif len(fields) == 1 and line[0].isspace() and last:
            for module in last:  # the dependencies go on
                rows[module][1].update(names(fields[0]))
        else:
            fail(findings, f"ARCHITECTURE.md:{i + 1}: not a row (layer, modules, what they "
                           f"use, apart by two spaces or more): {line.strip()}")
    return rows, layers


# --- The code ----------------------------------------------------------------


def test_spans(code):
    """(start, end) of every `#[cfg(test)]` item of the code: a `use …;` or an
    item with a body (`mod tests { … }`, a function, an impl)."""
    spans = []
    for m in re.finditer(house.TEST_ATTR, code):
        j = m.end()
        while j < len(code) and code[j] not in "{;":
            j += 1
        if j < len(code) and code[j] == "{":
            depth, j = 1, j + 1
            while j < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                j += 1
        spans.append((m.start(), j + 1))
    return spans


def read_sources(src):
    """{path relative to src/: code with comments and strings blanked}."""
    files = {}
    for root, dirs, found in os.walk(src):
        dirs[:] = [d for d in dirs if d != "target"]  # a build directory
        for name in sorted(found):
            if name.endswith(".rs"):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    files[rel] = house.strip_code(f.read())
    return files


def test_modules(files):
    """The module paths compiled for tests only (`#[cfg(test)] mod x;`)."""
    out = set()
    for rel, code in files.items():
        out |= {house.module_of(rel) + (c,) for c in house.test_children(code)}
    return out


def is_test_file(rel, tests):
    module = house.module_of(rel)
    return any(module[:k] in tests for k in range(1, len(module) + 1))


def line_of(code, pos):
    return code.count("\n", 0, pos) + 1


def arrows(files, tests):
    """{(A, B): [(file, line)]} for every non-test path of top-level module A
    that names top-level module B."""
    modules = {house.module_of(rel) for rel in files if rel != "main.rs"}
    tops = {m[0] for m in modules if m}
    out = {}
    for rel, code in files.items():
        top = house.module_of(rel)
        if rel == "main.rs" or not top or is_test_file(rel, tests):
            continue
        inline = house.inline_modules(code)
        skip = test_spans(code)

        def here_at(pos, top=top, inline=inline):
            return top + tuple(s[2] for s in sorted(s for s in inline if s[0] <= pos < s[1]))

        def note(segs, pos, rel=rel, top=top, code=code, skip=skip):
            if any(a <= pos < b for a, b in skip):
                return
            target = house.absolute(segs, here_at(pos), modules)
            if target and target[0] in tops and target[0] != top[0]:
                out.setdefault((top[0], target[0]), []).append((rel, line_of(code, pos)))

        for m in re.finditer(r"\buse\s+([^;]+);", code):
            for segs, _ in house.use_paths(m.group(1)):
                note(segs, m.start())
        blanked = re.sub(r"\buse\s+[^;]+;", lambda m: " " * len(m.group(0)), code)
        for m in re.finditer(r"\b(?:crate|super|self)(?:\s*::\s*\w+)+", blanked):
            note(re.sub(r"\s+", "", m.group(0)).split("::"), m.start())
    return out, tops


def where(locations, most=6):
    locations = sorted(set(locations))
    shown = ", ".join(f"src/{f}:{n}" for f, n in locations[:most])
    more = len(locations) - most
    return shown + (f" and {more} more" if more > 0 else "")


def check_layers(rows, layers, files, tests, findings, listing):
    found, tops = arrows(files, tests)
    test_tops = {m[0] for m in tests if len(m) == 1}
    for module in sorted(tops - set(rows) - test_tops):
        fail(findings, f"ARCHITECTURE.md: src/{module} has no row in the layers table")
    for module in sorted(set(rows) - tops):
        fail(findings, f"ARCHITECTURE.md:{rows[module][2]}: row {module}: no such module in src/")
    for module, (layer, deps, line) in sorted(rows.items()):
        for dep in sorted(deps):
            if dep not in rows:
                fail(findings, f"ARCHITECTURE.md:{line}: row {module} lists {dep}, "
                               f"which has no row")
            elif rows[dep][0] > layer:
                fail(findings, f"ARCHITECTURE.md:{line}: row {module} ({layers[layer]}) lists "
                               f"{dep} of a later layer ({layers[rows[dep][0]]}): an upward arrow")
            elif (module, dep) not in found and module in tops:
                fail(findings, f"ARCHITECTURE.md:{line}: stale row: {module} lists {dep}, "
                               f"but no code of src/{module} uses it (test code aside)")
    for (a, b), locations in sorted(found.items()):
        if a not in rows or b in rows[a][1]:
            continue
        why = ""
        if b in rows and rows[b][0] > rows[a][0]:
            why = (f"; {b} is of a later layer ({layers[rows[b][0]]} after "
                   f"{layers[rows[a][0]]}): an upward arrow")
        elif b not in rows:
            why = f"; {b} has no row"
        fail(findings, f"{a} uses {b}, which its row (ARCHITECTURE.md:{rows[a][2]}) does not "
                       f"list{why}: {where(locations)}")
    edges = {a: set(deps) for a, (_, deps, _) in rows.items()}
    for scc in house.tarjan(edges):
        fail(findings, f"ARCHITECTURE.md: the layers table has a circle: {' ⇄ '.join(sorted(scc))}")
    if listing:
        for module in sorted(rows, key=lambda m: (rows[m][0], m)):
            uses = sorted(b for (a, b) in found if a == module)
            print(f"{layers[rows[module][0]]:<11} {module:<9} -> {', '.join(uses) or '(none)'}")
    return len(found)


# --- External crates ---------------------------------------------------------


def read_crates(doc, findings):
    """[(line, [crate], [place])] of the list under "## External crates"."""
    lines = doc.split("\n")
    start = next((i for i, l in enumerate(lines) if l.strip() == "## External crates"), None)
    if start is None:
        fail(findings, "ARCHITECTURE.md: no section \"## External crates\"")
        return []
    notes = []
    i = start + 1
    while i < len(lines) and not lines[i].startswith("## "):
        m = re.match(r"- ([\w-]+(?:, [\w-]+)*): (.*)", lines[i])
        if m:
            text, j = m.group(2), i + 1
            while j < len(lines) and lines[j].startswith("  "):
                text += " " + lines[j].strip()
                j += 1
            places = re.findall(r"`([^`]+)`", strip_notes(text))
            if not places:
                fail(findings, f"ARCHITECTURE.md:{i + 1}: {m.group(1)}: no place in backticks")
            notes.append((i + 1, [c.strip() for c in m.group(1).split(",")], places))
            i = j
        else:
            i += 1
    if not notes:
        fail(findings, "ARCHITECTURE.md, External crates: no line `- crate: `place``")
    return notes


def crate_uses(code, crate):
    """Positions where the code names the external crate (`crate::…`, `use
    crate;`, `extern crate crate`), not a path's later segment (`a::crate::`)."""
    name = crate.replace("-", "_")
    out = []
    for m in re.finditer(r"(?<![\w$])" + name + r"\s*::", code):
        before = code[:m.start()].rstrip()
        if before.endswith("::") and re.search(r"[\w>]\s*::$", before):
            continue
        out.append(m.start())
    for m in re.finditer(r"\b(?:use|extern\s+crate)\s+(?:::)?" + name + r"\b\s*(?:;|as\b)", code):
        out.append(m.start())
    return out


def covers(place, rel):
    place = place.rstrip("/")
    if place.endswith(".rs"):
        return rel == place or rel.startswith(place[:-3] + "/")
    return rel == place + ".rs" or rel.startswith(place + "/")


def check_crates(notes, root, files, tests, findings):
    src = os.path.join(root, "src")
    named = {}  # crate -> {file: [lines]} (non-test code of src/)
    every = [c for _, crates, _ in notes for c in crates]
    for rel, code in files.items():
        if is_test_file(rel, tests):
            continue
        skip = test_spans(code)
        for crate in every:
            for pos in crate_uses(code, crate):
                if not any(a <= pos < b for a, b in skip):
                    named.setdefault(crate, {}).setdefault(rel, []).append(line_of(code, pos))
    for line, crates, places in notes:
        inside = [p for p in places if os.path.exists(os.path.join(src, p.rstrip("/")))
                  or os.path.exists(os.path.join(src, p.rstrip("/") + ".rs"))]
        outside = [p for p in places if p not in inside]
        label = ", ".join(crates)
        for crate in crates:
            for rel, lines in sorted(named.get(crate, {}).items()):
                if not any(covers(p, rel) for p in inside):
                    fail(findings, f"src/{rel}:{lines[0]}: names {crate}, which ARCHITECTURE.md:"
                                   f"{line} does not place there ({label}: "
                                   f"{', '.join(places)})")
        for place in inside:
            if not any(covers(place, rel) for c in crates for rel in named.get(c, {})):
                fail(findings, f"ARCHITECTURE.md:{line}: stale place: no non-test code of "
                               f"src/{place} names {label}")
        outside_named = set()
        for place in outside:
            path = os.path.join(root, place.rstrip("/"))
            if not os.path.exists(path):
                fail(findings, f"ARCHITECTURE.md:{line}: {label}: no place {place} "
                               f"in src/ or the repository")
                continue
            hits = [c for c in crates for f, code in read_sources(path).items()
                    if crate_uses(code, c)] if os.path.isdir(path) else []
            if not hits:
                fail(findings, f"ARCHITECTURE.md:{line}: stale place: no code of {place} "
                               f"names {label}")
            outside_named |= set(hits)
        for crate in crates:
            if crate not in named and crate not in outside_named:
                fail(findings, f"ARCHITECTURE.md:{line}: {crate} is named nowhere in its places")
    return len(every)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    listing = "--list" in sys.argv[1:]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    root = os.path.normpath(root)
    with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
        doc = f.read()
    findings = []
    files = read_sources(os.path.join(root, "src"))
    tests = test_modules(files)
    rows, layers = read_table(doc, findings)
    count = check_layers(rows, layers, files, tests, findings, listing)
    notes = read_crates(doc, findings)
    crates = check_crates(notes, root, files, tests, findings)
    for finding in findings:
        print(f"layers: {finding}", file=sys.stderr)
    if findings:
        print(f"layers: {len(findings)} finding(s); fix the code or ARCHITECTURE.md "
              f"(\"Layers\", \"External crates\")", file=sys.stderr)
        return 1
    print(f"layers: {len(rows)} modules in {len(layers)} layers, {count} arrows, each in its "
          f"row of ARCHITECTURE.md; {crates} external crates, each named only where it says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
