#!/usr/bin/env python3
"""The arrows between the files of one directory of src/ ("a room"), and the
circles among them (ARCHITECTURE.md, Layers).

For every directory of src/, the nodes are its files (`x.rs`) and its
subdirectories (`x/`, taken whole); its `mod.rs` (or `lib.rs` for src/) is the
room's door, which declares and re-exports the files, so its own arrows are not
counted. An arrow x -> y is any path of x that names an item of y: `use
super::y::…`, `crate::room::y::…`, `super::y::f(…)` in code, inline modules
(`mod tests { use super::super::y }`) included, and a name the door imports
from y (`use super::Name` where mod.rs says `pub use y::Name`) resolved to y.
Comments and string literals are skipped.

Test code (`#[cfg(test)] mod tests { … }` inside a file, or a file the door
declares `#[cfg(test)] mod tests;`) is not part of the house: it exercises the
room from outside and is compiled only for tests; `--with-tests` counts it too.

Circles are the strongly connected components of more than one node (Tarjan).

Usage: scripts/house.py [--quiet] [--with-tests] [SRC_DIR]
  prints every room's arrows (unless --quiet), then its circles;
  exits 1 when any room has a circle, 0 otherwise.
"""

import os
import re
import sys


def strip_code(text):
    """The text with comments, string and char literals blanked (same length)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and raw_start(text, i):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + len(hashes) + 2)
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def raw_start(text, i):
    """Whether the `r` at i opens a raw string literal: `r"…"`, `r#"…"#`, or
    the byte and C forms `br#"…"#`, `cr"…"` (not the end of a name)."""

    def ident(k):
        return k >= 0 and (text[k].isalnum() or text[k] == "_")

    if not ident(i - 1):
        return True
    return text[i - 1] in "bc" and not ident(i - 2)


def module_of(rel):
    """The module path of a file relative to src/ (lib.rs: the crate root)."""
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


TEST_ATTR = r"#\[cfg\((?:test|all\([^\]]*\btest\b[^\]]*\))\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([\w:]+\))?\s+)?"


def inline_modules(code):
    """(start, end, name, test) of every inline `mod name { … }` of the code;
    test: the module is compiled for tests only (`#[cfg(test)]`)."""
    spans = []
    tests = {m.end() for m in re.finditer(TEST_ATTR, code)}
    for m in re.finditer(r"\bmod\s+(\w+)\s*\{", code):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        spans.append((m.start(), j, m.group(1), m.start() in tests))
    return spans


def test_children(code):
    """The names of the file modules a module declares for tests only
    (`#[cfg(test)] mod tests;`)."""
    return {m.group(1) for m in re.finditer(TEST_ATTR + r"mod\s+(\w+)\s*;", code)}


def use_paths(tree):
    """The flat paths of a use tree (`a::{b, c::d as e}` -> [(path, alias)])."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", tree))
    out = []

    def walk(prefix, t):
        parts, depth, cur = [], 0, ""
        for ch in t:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        if cur:
            parts.append(cur)
        for p in parts:
            brace = p.find("{")
            if brace >= 0:
                head = p[:brace].rstrip(":")
                walk(prefix + [s for s in head.split("::") if s], p[brace + 1:-1])
            else:
                alias = None
                if "@" in p:
                    p, alias = p.split("@", 1)
                segs = prefix + [s for s in p.split("::") if s]
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                out.append((segs, alias or (segs[-1] if segs else None)))

    walk([], tree)
    return out


def absolute(segs, here, modules):
    """A path written in module `here` as an absolute module path, or None for
    an external crate or a local name."""
    if not segs:
        return None
    if segs[0] == "crate":
        return tuple(segs[1:])
    if segs[0] in ("super", "self"):
        cur = list(here)
        i = 0
        while i < len(segs) and segs[i] in ("super", "self"):
            if segs[i] == "super":
                cur = cur[:-1]
            i += 1
        return tuple(cur) + tuple(segs[i:])
    if tuple(here) + (segs[0],) in modules:
        return tuple(here) + tuple(segs)
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quiet = "--quiet" in sys.argv[1:]
    with_tests = "--with-tests" in sys.argv[1:]
    src = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "src")
    src = os.path.normpath(src)
    files = {}
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs") and name != "main.rs":
                rel = os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/")
                files[rel] = strip_code(open(os.path.join(root, name), encoding="utf-8").read())
    modules = {module_of(rel) for rel in files}
    test_modules = set()
    for rel, code in files.items():
        test_modules |= {module_of(rel) + (c,) for c in test_children(code)}

    def is_test(module):
        return any(module[:k] in test_modules for k in range(1, len(module) + 1))

    # Every path each file names, with the module it is written in; and the
    # names every module imports (for resolving a door's re-exports).
    refs = {}
    imports = {}
    for rel, code in files.items():
        top = module_of(rel)
        spans = inline_modules(code)

        def here_at(pos, top=top, spans=spans):
            inner = [s for s in spans if s[0] <= pos < s[1]]
            inner.sort()
            return top + tuple(s[2] for s in inner)

        def in_test(pos, top=top, spans=spans):
            return is_test(top) or any(s[0] <= pos < s[1] and s[3] for s in spans)

        found = []
        for m in re.finditer(r"\buse\s+([^;]+);", code):
            here = here_at(m.start())
            if in_test(m.start()) and not with_tests:
                continue
            for segs, alias in use_paths(m.group(1)):
                target = absolute(segs, here, modules)
                if target is None:
                    continue
                found.append(target)
                if alias and alias != "*":
                    imports.setdefault(here, {})[alias] = target
        blanked = re.sub(r"\buse\s+[^;]+;", lambda m: " " * len(m.group(0)), code)
        for m in re.finditer(r"\b(?:crate|super|self)(?:\s*::\s*\w+)+", blanked):
            if in_test(m.start()) and not with_tests:
                continue
            segs = re.sub(r"\s+", "", m.group(0)).split("::")
            target = absolute(segs, here_at(m.start()), modules)
            if target is not None:
                found.append(target)
        refs[rel] = found

    def resolve(path, seen=0):
        """A path through a module's imports to where the item is defined."""
        for k in range(len(path) - 1, -1, -1):
            mod = path[:k]
            if mod in modules and k < len(path) and path[k] in imports.get(mod, {}):
                if seen > 20:
                    return path
                return resolve(imports[mod][path[k]] + path[k + 1:], seen + 1)
            if mod in modules:
                return path
        return path

    # The rooms: every directory of src/ and its nodes.
    rooms = {}
    for rel in files:
        parts = rel.split("/")
        for depth in range(len(parts)):
            room = tuple(parts[:depth])
            rooms.setdefault(room, set())
    circles_found = 0
    for room in sorted(rooms):
        edges = {}
        for rel, targets in refs.items():
            parts = rel.split("/")
            if tuple(parts[: len(room)]) != room or len(parts) <= len(room):
                continue
            node = parts[len(room)]
            if len(parts) == len(room) + 1 and node in ("mod.rs", "lib.rs"):
                continue  # the room's door
            node = node[:-3] if node.endswith(".rs") else node
            for target in targets:
                target = resolve(target)
                if target[: len(room)] != room or len(target) <= len(room):
                    continue
                other = target[len(room)]
                if other != node and room + (other,) in modules:
                    edges.setdefault(node, set()).add(other)
        name = "src/" + "/".join(room) if room else "src"
        if not quiet and edges:
            print(f"{name}/")
            for a in sorted(edges):
                print(f"  {a} -> {', '.join(sorted(edges[a]))}")
        for scc in tarjan(edges):
            circles_found += 1
            print(f"circle in {name}/: {' ⇄ '.join(sorted(scc))}")
    print(f"{len(rooms)} rooms, {circles_found} circle(s)")
    return 1 if circles_found else 0


def tarjan(edges):
    """The strongly connected components of more than one node."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})

    def strong(v):
        # Iterative Tarjan: the frames hold (node, iterator over its successors).
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(comp)

    for v in nodes:
        if v not in index:
            strong(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
