#!/usr/bin/env python3
"""Print the import graph between the modules of `src/` and exit 1 if it has a cycle.

A module is a file (`a/b.rs`, or `a/b/mod.rs` for a folder). Every `crate::...` and `super::...`
path in a file is an edge from that file to the module the path names. An edge is counted
between the two *siblings* it crosses: `crate::runtime::x` used in `eval/score.rs` is an edge
`eval -> runtime` among the top-level modules; `super::report::y` in `eval/judge.rs` is
`eval::judge -> eval::report` inside `eval`. A parent using its child, or a child its parent,
is no edge: that is how Rust modules are built. Paths in comments are ignored.

Usage: scripts/import-cycles.py [SRC_DIR]   (default: src)
"""

import re
import sys
from collections import defaultdict
from pathlib import Path


def module_of(path: Path, src: Path) -> tuple:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def strip_strings(text: str) -> str:
    # Raw strings first, then plain ones; good enough for paths named inside string literals.
    text = re.sub(r'r(#+)".*?"\1', '""', text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text, flags=re.S)


def expand_use(tree: str) -> list:
    """`a::{b, c::{d}}` -> ['a::b', 'a::c::d']."""
    tree = tree.strip()
    depth, brace = 0, None
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                brace = i
            depth += 1
        elif ch == "}":
            depth -= 1
    if brace is None:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    out, depth, start = [], 0, 0
    for i, ch in enumerate(inner + ","):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            part = inner[start:i].strip()
            start = i + 1
            if part:
                out.extend(prefix + p for p in expand_use(part))
    return out


PATH = re.compile(r"\b(crate|super|self)((?:::(?:\w+|\*))+)")
USE = re.compile(r"\buse\s+((?:crate|super|self)::[^;]*);", re.S)
INLINE_MOD = re.compile(r"\bmod\s+\w+\s*\{")


def paths_in(text: str):
    """(position, path) for every crate/super/self path, `use` groups expanded."""
    for m in USE.finditer(text):
        for p in expand_use(re.sub(r"\s+", "", m.group(1))):
            yield m.start(), p
    masked = USE.sub(lambda m: " " * len(m.group(0)), text)
    for m in PATH.finditer(masked):
        yield m.start(), m.group(0)


def inline_mod_spans(text: str) -> list:
    """Spans of inline `mod x { ... }` blocks (tests): `super::` in them is the file itself."""
    spans = []
    for m in INLINE_MOD.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        spans.append((m.start(), i))
    return spans


def resolve(path: str, here: tuple, inside_inline: bool, modules: set):
    segs = path.split("::")
    head, rest = segs[0], segs[1:]
    if head == "crate":
        base = ()
    elif head == "self":
        base = here
    else:
        base = here if inside_inline else here[:-1]
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    target = base
    for s in rest:
        if target + (s,) in modules:
            target = target + (s,)
        else:
            break
    return target


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    files = sorted(p for p in src.rglob("*.rs") if p.name != "main.rs" or p.parent != src)
    modules = {module_of(f, src) for f in files}
    edges = defaultdict(set)  # (parent, a, b) -> example files
    for f in files:
        here = module_of(f, src)
        text = strip_strings(strip_comments(f.read_text()))
        spans = inline_mod_spans(text)
        for pos, path in paths_in(text):
            inside = any(a <= pos <= b for a, b in spans)
            target = resolve(path, here, inside, modules)
            n = 0
            while n < min(len(here), len(target)) and here[n] == target[n]:
                n += 1
            if n == len(here) or n == len(target):
                continue  # same module, or parent <-> child
            parent = here[:n]
            edges[(parent, here[n], target[n])].add(str(f.relative_to(src)))

    graph = defaultdict(lambda: defaultdict(set))
    for (parent, a, b), where in edges.items():
        graph[parent][a] |= {b}
    cycles = []
    for parent in sorted(graph):
        name = "::".join(parent) or "crate"
        print(f"{name}:")
        for a in sorted(graph[parent]):
            print(f"  {a} -> {', '.join(sorted(graph[parent][a]))}")
        for cycle in find_cycles(graph[parent]):
            cycles.append((parent, cycle))
    if not cycles:
        print("no cycles")
        return 0
    for parent, cycle in cycles:
        prefix = "::".join(parent) + "::" if parent else ""
        hops = []
        for a, b in zip(cycle, cycle[1:] + cycle[:1]):
            files = sorted(edges[(parent, a, b)])
            hops.append(f"{prefix}{a} -> {prefix}{b} (in {', '.join(files)})")
        print("CYCLE: " + "; ".join(hops))
    return 1


def find_cycles(graph) -> list:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    cycles = []
    for comp in comps:
        members = set(comp)
        # Shortest way back to the first member, to show one concrete cycle.
        start = comp[0]
        prev, frontier = {start: None}, [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph.get(v, ())):
                    if w == start:
                        found = v
                        break
                    if w in members and w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path, v = [], found
        while v is not None:
            path.append(v)
            v = prev[v]
        cycles.append(list(reversed(path)))
    return cycles


if __name__ == "__main__":
    sys.exit(main())
