import time, collections
t=time.perf_counter()
words=[f"w{i%5000}x{i%37}" for i in range(400_000)]
c=collections.Counter(words)
d={}
for w in words: d[w]=d.get(w,0)+len(w)
print(len(c), sum(d.values()), c.most_common(1)); print("T", time.perf_counter()-t)
