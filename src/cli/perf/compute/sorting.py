# Sorting: ints, tuples, a key function and strings, over numbers from a 64-bit LCG.
def work(n):
    x = 12345
    nums = []
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        nums.append(x >> 40)
    plain = sorted(nums)
    pairs = sorted((v % 1000, -v, str(v)) for v in nums)
    keyed = sorted(nums, key=lambda v: (v % 97, v))
    strings = sorted(str(v) for v in nums)
    return (
        f"{plain[n // 2]} {pairs[n // 3][2]} {keyed[n // 5]} {strings[n // 7]} "
        f"{sum(plain[::1000])}"
    )
