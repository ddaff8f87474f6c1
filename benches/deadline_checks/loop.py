import time
t=time.perf_counter()
s=0
for i in range(3_000_000):
    s += i*i % 7
print(s); print("T", time.perf_counter()-t)
