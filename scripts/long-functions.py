#!/usr/bin/env python3
"""List the functions of `src/` longer than LIMIT lines and exit 1 if there is one.

A function's length is counted from its `fn` line to its closing brace, both included (doc
comments and attributes above it are not counted). The closing brace is found by indentation,
which holds for code formatted by `cargo fmt`: the first line after the `fn` line that is the
`fn` line's indentation followed by `}`. Declarations without a body (`fn f();`) and one-line
functions are skipped.

Usage: scripts/long-functions.py [LIMIT] [SRC_DIR]   (defaults: 90, src)
"""

import re
import sys
from pathlib import Path

FN = re.compile(
    r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
    r'(?:extern\s+"[^"]*"\s+)?fn\s+(\w+)'
)


def long_functions(path: Path, limit: int):
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        indent = m.group(1)
        # The line that opens the body, or the `;` of a declaration.
        j = i
        while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
            j += 1
        if j >= len(lines) or "{" not in lines[j]:
            continue
        if lines[j].rstrip().endswith("}") and lines[j].count("{") == lines[j].count("}"):
            continue  # the whole function on one line
        end = next((k for k in range(j, len(lines)) if lines[k] == indent + "}"), None)
        if end is not None and end - i + 1 > limit:
            yield end - i + 1, i + 1, m.group(2)


def main() -> int:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 90
    src = Path(sys.argv[2] if len(sys.argv) > 2 else "src")
    found = []
    for f in sorted(src.rglob("*.rs")):
        for n, line, name in long_functions(f, limit):
            found.append((n, f"{f}:{line}", name))
    for n, where, name in sorted(found, reverse=True):
        print(f"{n:5} {where} {name}")
    if not found:
        print(f"no function over {limit} lines")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
