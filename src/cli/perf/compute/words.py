# dict, str and Counter: made-up words counted, grouped by prefix, re-cased and counted again.
from collections import Counter


def work(n):
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vu", "ze", "qi"]
    x = 7
    words = []
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        words.append(syllables[x % 10] + syllables[(x >> 8) % 10] + syllables[(x >> 16) % 7])
    counts = Counter(words)
    by_prefix = {}
    for word, count in counts.items():
        by_prefix.setdefault(word[:2], []).append(count)
    upper = " ".join(words).upper().replace("KA", "k").split()
    lengths = Counter(len(w) for w in upper)
    prefixes = sorted((k, sum(v)) for k, v in by_prefix.items())
    return f"{len(counts)} {counts.most_common(3)} {prefixes[:3]} {sorted(lengths.items())}"
