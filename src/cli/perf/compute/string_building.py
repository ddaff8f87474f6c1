# String building: f-strings with format specs, join, += in a loop, per-line methods.
import zlib


def work(n):
    parts = []
    for i in range(n):
        parts.append(f"row {i:07d}: {i * 31 % 977:>4} | {hex(i)[2:]:>6} | {'x' * (i % 5)}\n")
    text = "".join(parts)
    digits = ""
    for i in range(n // 4):
        digits += str(i % 10)
    lines = [line.strip().title().replace(" ", "_") for line in text.splitlines()]
    joined = "\n".join(lines)
    return f"{len(text)} {zlib.crc32(text.encode())} {len(digits)} {zlib.crc32(joined.encode())}"
