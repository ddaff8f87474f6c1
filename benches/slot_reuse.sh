# Light python3 calls before and after heavier ones, all in one sandbox (same instance slot).
# Run: llm-in-sandbox exec --bash "$(cat benches/slot_reuse.sh)"
# Prints microseconds per call (averages).
python3 -c 'print("first")'
s=$(date +%s%N); for i in $(seq 100); do python3 -c 'print(1)' >/dev/null; done; e=$(date +%s%N); echo "print(1) before: $(( (e-s)/100000 )) us"
s=$(date +%s%N); for i in $(seq 20); do python3 -c 'import numpy as np; a = np.random.rand(300,300); print((a@a).sum())' >/dev/null; done; e=$(date +%s%N); echo "numpy matmul: $(( (e-s)/20000 )) us"
s=$(date +%s%N); for i in $(seq 20); do python3 -c 'import sympy as sp; x=sp.Symbol("x"); print(sp.integrate(sp.sin(x)**2,x))' >/dev/null; done; e=$(date +%s%N); echo "sympy integrate: $(( (e-s)/20000 )) us"
s=$(date +%s%N); for i in $(seq 100); do python3 -c 'print(1)' >/dev/null; done; e=$(date +%s%N); echo "print(1) after typical: $(( (e-s)/100000 )) us"
python3 -c 'import sklearn, statsmodels.api; print("heavy")' >/dev/null
s=$(date +%s%N); for i in $(seq 100); do python3 -c 'print(1)' >/dev/null; done; e=$(date +%s%N); echo "print(1) after heavy: $(( (e-s)/100000 )) us"
