#!/usr/bin/env python3
"""Print the import graph between the modules of `src/` and exit 1 if it has a cycle.

A module is a file (`a/b.rs`, or `a/b/mod.rs` for a folder). Every `crate::...`, `super::...`
and `self::...` path in a file, and every bare path that starts with one of the file's own
submodules (`commands::dispatch` in `git/mod.rs`), is an edge from that file to the module the
path names. An edge is counted between the two *siblings* it crosses: `crate::runtime::x` used
in `eval/score.rs` is an edge `eval -> runtime` among the top-level modules; `super::report::y`
in `eval/judge.rs` is `eval::judge -> eval::report` inside `eval`.

The files inside one folder are checked too, the folder's own file (`mod.rs`) among them: a
child using an item of `mod.rs` (`super::ident` in `git/commands/branch.rs`) is an edge
`branch -> mod.rs` inside `git::commands`, and `mod.rs` calling into a child (`branch::run`) is
`mod.rs -> branch`, so a helper kept in `mod.rs` for children that `mod.rs` itself dispatches
to is a cycle: it belongs in a small module of its own. Declaring a child (`mod x;`) and
re-exporting its items (`pub use x::Y;`) are no edges, and a child using such a re-exported
item through the parent (`super::Y`) is an edge to the child that defines it, not to `mod.rs`.
Paths in comments and string literals are ignored.

The folders in `KNOWN` still have such a cycle through their own file (issue 49): there the own
file is left out of the check, their other files are checked, and the cycle is printed as a
reminder. Take a folder off the list once its cycle is broken; none may be added.

Usage: scripts/import-cycles.py [SRC_DIR]   (default: src)
"""

import re
import sys
from collections import defaultdict
from pathlib import Path


# Folders whose own file is still in a cycle with its children, to break one by one.
KNOWN = {
    ("agent",),
    ("cli",),
    ("cli", "perf"),
    ("eval", "hub"),
    ("eval", "runner"),
    ("runtime",),
    ("serve",),
    ("shell",),
    ("tools", "editor"),
}


def module_of(path: Path, src: Path) -> tuple:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def blank_out(text: str) -> str:
    """The text with comments, string and char literals replaced by spaces (newlines kept), so
    positions stay where they were and no `//`, `/*` or `"` inside a literal can hide code."""
    out, i, n = list(text), 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    def ident_char(k):
        return 0 <= k < n and (text[k].isalnum() or text[k] == "_")

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
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
            blank(i, j)
            i = j
        elif c in "rbc" and not ident_char(i - 1) and (m := RAW.match(text, i)):
            hashes = m.group(1)
            end = text.find('"' + hashes, m.end())
            j = n if end < 0 else end + 1 + len(hashes)
            blank(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}', b'x') or a lifetime ('a, 'static).
            if i + 1 < n and text[i + 1] == "\\":
                j = i + 3  # past the escaped character, which may be a quote
                while j < n and text[j] != "'":
                    j += 1
                blank(i, j + 1)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                blank(i, i + 3)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


RAW = re.compile(r'(?:br|cr|r)(#*)"')


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


# A path: its first segment is not itself the tail of a longer path (`a::b::c` is found once).
PATH = re.compile(r"(?<![\w:])(\w+)((?:::(?:\w+|\*))+)")
USE = re.compile(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+(?:::)?([^;]*);", re.S)
INLINE_MOD = re.compile(r"\bmod\s+\w+\s*\{")


def paths_in(text: str):
    """(position, path, in a `pub use`) for every path, `use` groups expanded (`as` dropped)."""
    for m in USE.finditer(text):
        for p in expand_use(re.sub(r"\s+", " ", m.group(2))):
            p = re.sub(r"\s+as\s+\w+$", "", p.strip()).replace(" ", "")
            yield m.start(), p, bool(m.group(1))
    masked = USE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for m in PATH.finditer(masked):
        yield m.start(), m.group(0), False


def reexports(text: str) -> dict:
    """Names a file re-exports (`pub use x::Y;`, `pub use x::Z as W;`) -> the path re-exported."""
    names = {}
    for m in USE.finditer(text):
        if not m.group(1):
            continue
        for p in expand_use(re.sub(r"\s+", " ", m.group(2))):
            p = p.strip()
            alias = re.search(r"\s+as\s+(\w+)$", p)
            p = re.sub(r"\s+as\s+\w+$", "", p).replace(" ", "")
            name = alias.group(1) if alias else p.rsplit("::", 1)[-1]
            if name not in ("*", "self"):
                names[name] = p
    return names


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
    """(module the path names, the first segment after it or None), or None for a path that is
    not ours (`std::..`, an external crate, a local type's `Foo::new`)."""
    segs = path.split("::")
    head, rest = segs[0], segs[1:]
    if head == "crate":
        base = ()
    elif head == "self":
        base = here
    elif head == "super":
        base = here if inside_inline else here[:-1]
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    elif here + (head,) in modules and not inside_inline:
        base, rest = here, segs  # a bare path into one of this file's submodules
    else:
        return None
    target = base
    while rest and target + (rest[0],) in modules:
        target, rest = target + (rest[0],), rest[1:]
    return target, (rest[0] if rest else None)


def own_file(module: tuple, files: dict) -> str:
    """The node that stands for a folder module's own file among its children: `mod.rs`."""
    return files[module].name


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    paths = sorted(p for p in src.rglob("*.rs") if p.name != "main.rs" or p.parent != src)
    files = {module_of(f, src): f for f in paths}
    modules = set(files)
    texts = {m: blank_out(f.read_text()) for m, f in files.items()}
    exported = {m: reexports(t) for m, t in texts.items()}
    edges = defaultdict(set)  # (parent, a, b) -> example files

    def add(parent, a, b, f):
        if a != b:
            edges[(parent, a, b)].add(str(f.relative_to(src)))

    for here, f in files.items():
        text = texts[here]
        spans = inline_mod_spans(text)
        for pos, path, pub_use in paths_in(text):
            inside = any(a <= pos <= b for a, b in spans)
            found = resolve(path, here, inside, modules)
            if found is None:
                continue
            target, item = found
            n = 0
            while n < min(len(here), len(target)) and here[n] == target[n]:
                n += 1
            if n < len(here) and n < len(target):
                add(here[:n], here[n], target[n], f)
            elif n == len(target) < len(here) and item is not None:
                # A descendant using an item of this folder's own file, or one it re-exports.
                via = exported[target].get(item)
                found = via and resolve(via, target, False, modules)
                if found and len(found[0]) > n:
                    add(target, here[n], found[0][n], f)
                elif not found:
                    add(target, here[n], own_file(target, files), f)
            elif n == len(here) < len(target) and not pub_use:
                add(here, own_file(here, files), target[n], f)

    graph = defaultdict(lambda: defaultdict(set))
    for (parent, a, b), where in edges.items():
        graph[parent][a] |= {b}
    cycles, known = [], []
    for parent in sorted(graph):
        name = "::".join(parent) or "crate"
        print(f"{name}:")
        for a in sorted(graph[parent]):
            print(f"  {a} -> {', '.join(sorted(graph[parent][a]))}")
        checked = graph[parent]
        if parent in KNOWN:
            own = own_file(parent, files)
            known += [(parent, c) for c in find_cycles(checked) if own in c]
            checked = {a: bs - {own} for a, bs in checked.items() if a != own}
        cycles += [(parent, c) for c in find_cycles(checked)]
    for parent in sorted((KNOWN & modules) - {p for p, _ in known}):
        print(f"note: {'::'.join(parent)} has no cycle through its own file now: take it off KNOWN")
    for parent, cycle in known:
        print("known, to break: " + describe(parent, cycle, edges))
    if not cycles:
        print("no cycles")
        return 0
    for parent, cycle in cycles:
        print("CYCLE: " + describe(parent, cycle, edges))
    return 1


def describe(parent, cycle, edges) -> str:
    prefix = "::".join(parent) + "::" if parent else ""
    hops = []
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        where = sorted(edges[(parent, a, b)])
        hops.append(f"{prefix}{a} -> {prefix}{b} (in {', '.join(where)})")
    return "; ".join(hops)


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
