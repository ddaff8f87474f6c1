# Big-int arithmetic: pi to n digits by Machin's formula, a factorial, a modular power.
import sys


def arctan_inverse(x, unity):
    total = term = unity // x
    x2 = x * x
    k = 1
    sign = -1
    while term:
        term //= x2
        total += sign * (term // (2 * k + 1))
        sign = -sign
        k += 1
    return total


def work(n):
    sys.set_int_max_str_digits(0)
    unity = 10 ** (n + 10)
    pi = 4 * (4 * arctan_inverse(5, unity) - arctan_inverse(239, unity))
    digits = str(pi)[:n]
    f = 1
    for i in range(2, n // 2):
        f *= i
    p = pow(3, n * 50, (1 << 4423) - 1)
    return f"{digits[-20:]} {sum(map(int, digits))} {f.bit_length()} {p % 1000000007}"
