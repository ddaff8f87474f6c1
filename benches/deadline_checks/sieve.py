import time
t=time.perf_counter()
ps=[]
for n in range(2, 60000):
    for p in ps:
        if p*p > n: ps.append(n); break
        if n % p == 0: break
    else: ps.append(n)
print(len(ps), ps[-1]); print("T", time.perf_counter()-t)
