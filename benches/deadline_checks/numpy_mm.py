import time, numpy as np
rng=np.random.default_rng(1); a=rng.random((400,400))
t=time.perf_counter()
for _ in range(10): b=a@a
print(round(float(b.sum()),3)); print("T", time.perf_counter()-t)
