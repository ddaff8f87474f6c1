# pandas: a frame of seeded integers, grouped by one and two keys (sum, size, max, mean).
import numpy as np
import pandas as pd


def work(n):
    rng = np.random.default_rng(7)
    df = pd.DataFrame(
        {
            "key": rng.integers(0, 1000, size=n),
            "cat": rng.integers(0, 7, size=n),
            "v": rng.integers(-500, 500, size=n),
        }
    )
    df["w"] = df["v"] * 3 + df["cat"]
    g = df.groupby("key").agg(total=("v", "sum"), n=("v", "size"), top=("w", "max"))
    wide = df.groupby(["cat", "key"])["w"].sum().unstack(fill_value=0)
    means = [f"{m:.6g}" for m in df.groupby("cat")["v"].mean()]
    return (
        f"{int(g['total'].sum())} {int((g['n'] * g['top']).sum())} {int(wide.values.sum())} "
        f"{int((wide.values % 97).sum())} {means}"
    )
