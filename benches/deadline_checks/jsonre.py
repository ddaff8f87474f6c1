import time, json, re
t=time.perf_counter()
data=[{"id":i,"name":f"user{i}","tags":["a","b",str(i%10)],"score":i*0.5} for i in range(60000)]
s=json.dumps(data); back=json.loads(s)
c=len(re.findall(r'"name": "user(\d*7)"', s))
print(len(s), len(back), c); print("T", time.perf_counter()-t)
