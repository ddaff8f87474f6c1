# sympy: expand, factor, integrate, diff, series and solve; the printed results, hashed.
import hashlib

import sympy


def work(n):
    x, y, z = sympy.symbols("x y z")
    out = []
    for k in range(2, n + 2):
        out.append(str(len(sympy.expand((x + 2 * y - z + k) ** (2 + k % 7)).args)))
        out.append(str(sympy.factor(x ** (2 * k) - y ** (2 * k))))
        out.append(str(sympy.integrate(x ** (k % 4) * sympy.exp(k * x), x)))
        out.append(str(sympy.diff(sympy.sin(x) ** k * sympy.log(x), x, 2)))
    out.append(str(sympy.series(sympy.exp(sympy.sin(x)), x, 0, 8)))
    out.append(str(sympy.solve(x ** 3 - 6 * x ** 2 + 11 * x - 6, x)))
    return hashlib.sha256("\n".join(out).encode()).hexdigest()[:16]
