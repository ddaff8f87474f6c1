# Recursion: naive Fibonacci (many shallow calls) and Ackermann(2, k) (deep call chains).
def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


def ackermann(m, k):
    if m == 0:
        return k + 1
    if k == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, k - 1))


def work(n):
    total = 0
    for i in range(n):
        total += fib(20 + i % 3) + ackermann(2, 200 + i % 50)
    return total
