# The numpy steps of `perf --compute`'s numpy row, timed apart (docs/performance.md, "Matrix
# products on the host"): llm-in-sandbox exec -w benches -- python3 numpy_steps.py
import numpy as np, time
rng = np.random.default_rng(44)
a = rng.integers(0, 10, size=(400, 400)).astype(np.float64)
b = rng.integers(0, 10, size=(400, 400)).astype(np.float64)
c = a @ b
def t(f, n=20):
    s=time.perf_counter()
    for _ in range(n): f()
    return (time.perf_counter()-s)/n*1000
print("matmul ms %.2f" % t(lambda: a @ b))
print("mod ms %.2f" % t(lambda: c % 10))
print("fmod ms %.2f" % t(lambda: np.fmod(c, 10)))
print("floor_divide ms %.2f" % t(lambda: c // 10))
print("add ms %.2f" % t(lambda: c + c))
print("div ms %.2f" % t(lambda: c / 10))
print("trace/sum ms %.3f" % t(lambda: (int(c.trace()), int(b.sum()))))
import math
print("math.fmod 10k loop ms %.2f" % t(lambda: [math.fmod(x, 10.0) for x in range(10000)], 5))
print("float mod 10k loop ms %.2f" % t(lambda: [x % 10.0 for x in range(10000)], 5))
