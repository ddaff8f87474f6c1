# Regular expressions over a generated log: findall, a multi-line search, finditer, sub.
import re


def work(n):
    levels = ["INFO", "WARN", "ERROR", "DEBUG"]
    x = 99
    lines = []
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        lines.append(
            f"2024-05-{1 + i % 28:02d} {levels[x % 4]} user{x % 5000}@host{x % 17}.example.org "
            f"took {x % 9000}ms id=0x{x:08x}"
        )
    text = "\n".join(lines)
    emails = re.findall(r"[a-z]+\d+@[a-z]+\d*\.example\.org", text)
    slow = re.findall(r"^(\S+) ERROR .* took (\d{4})ms", text, re.M)
    ids = sum(int(m.group(1), 16) % 1000 for m in re.finditer(r"id=0x([0-9a-f]+)", text))
    masked = re.sub(r"user(\d+)", lambda m: "u" + str(len(m.group(1))), text)
    return f"{len(emails)} {len(slow)} {ids} {len(masked)}"
