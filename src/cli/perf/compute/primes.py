# Primes below n by trial division by the primes found so far (up to the square root).
def work(n):
    primes = []
    for k in range(2, n):
        for p in primes:
            if p * p > k:
                primes.append(k)
                break
            if k % p == 0:
                break
        else:
            primes.append(k)
    return f"{len(primes)} {primes[-1] if primes else 0} {sum(primes) % 1000003}"
