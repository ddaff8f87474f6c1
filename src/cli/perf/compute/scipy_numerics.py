# scipy: a sparse solve of a 2-D Poisson problem on an n x n grid (SuperLU), BFGS on the
# Rosenbrock function, n one-dimensional integrals (QUADPACK). Floats are printed to 6 digits.
import numpy as np
from scipy import integrate, optimize, sparse
from scipy.sparse.linalg import spsolve


def work(n):
    m = n * n
    off = -np.ones(m - 1)
    off[np.arange(1, m) % n == 0] = 0
    far = -np.ones(m - n)
    a = sparse.diags([4 * np.ones(m), off, off, far, far], [0, 1, -1, n, -n], format="csc")
    u = spsolve(a, np.arange(m, dtype=np.float64) % 7)
    best = optimize.minimize(optimize.rosen, np.full(8, 1.3), method="BFGS")
    q = sum(
        integrate.quad(lambda t, k=k: np.sin(k * t) * np.exp(-t), 0, 10, limit=200)[0]
        for k in range(1, n)
    )
    return f"{float(u.sum()):.6g} {float(best.fun) < 1e-8} {q:.6g}"
