# numpy: a loop of 400x400 float64 matrix products. The entries are small integers, so every
# sum is exact and the checksum is the same whatever order a BLAS build adds in.
import numpy as np


def work(n):
    rng = np.random.default_rng(44)
    a = rng.integers(0, 10, size=(400, 400)).astype(np.float64)
    b = rng.integers(0, 10, size=(400, 400)).astype(np.float64)
    check = 0
    for _ in range(n):
        c = a @ b
        check += int(c.trace())
        b = c % 10
    return f"{check} {int(b.sum())}"
