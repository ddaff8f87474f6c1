# A pure-Python arithmetic loop: small-int and float arithmetic, a comparison-driven inner
# loop (Collatz steps, capped), no calls.
def work(n):
    total = 0
    acc = 0.0
    for i in range(1, n + 1):
        k = i
        steps = 0
        while k != 1 and steps < 8:
            k = k // 2 if k % 2 == 0 else 3 * k + 1
            steps += 1
        total += steps * (i % 7) - (i >> 3)
        acc += (i % 13) * 0.5
    return f"{total} {acc}"
