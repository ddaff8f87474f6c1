//! Guest compute the host speeds up (docs/performance.md, "Matrix products and fmod"): numpy's
//! and scipy's matrix products done by the host (`src/runtime/gemm.rs`) must give what the
//! guest's own OpenBLAS gives, in every layout BLAS accepts, and stop at the call's deadline
//! like guest code; `fmod`'s fast path (`src/runtime/relink/fmod.rs`) must give fmod's bits.

use std::time::Duration;

use llm_in_sandbox::runtime::{Limits, Outcome};
use llm_in_sandbox::sandbox::Sandbox;

use crate::common::{ok, own_runtime, py, show};

/// Each case computes a product with numpy or scipy and checks it against the same product
/// summed exactly in pure Python (small integers: every sum is exact, so any difference is a
/// wrong product, not rounding). Prints one line per case.
const PRODUCTS: &str = r#"
import numpy as np
from scipy.linalg import blas
rng = np.random.default_rng(7)

def ints(shape, dtype=np.float64, order="C"):
    return np.asarray(rng.integers(-9, 10, size=shape), dtype=dtype, order=order)

def exact(a, b):
    a, b = a.tolist(), b.tolist()
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]

def check(name, got, a, b):
    print(name, "ok" if got.tolist() == exact(a, b) else "WRONG")

a, b = ints((64, 80)), ints((80, 48))
check("c-order", a @ b, a, b)
check("a.T @ b", a.T.copy().T @ b, a, b)
at = ints((80, 64))
check("transposed view", at.T @ b, at.T, b)
bt = ints((48, 80))
check("both transposed", at.T @ bt.T, at.T, bt.T)
af, bf = ints((70, 90), order="F"), ints((90, 50), order="F")
check("fortran order", af @ bf, af, bf)
big = ints((200, 600))
s = big[::2, ::2]
check("strided view", s @ s.T, s, s.T)
a32, b32 = ints((60, 70), np.float32), ints((70, 30), np.float32)
check("float32", a32 @ b32, a32, b32)
x = ints((120, 100), order="F")
y = ints((120, 90), order="F")
check("scipy dgemm trans_a", blas.dgemm(1.0, x, y, trans_a=1), x.T, y)
c0 = ints((100, 90), order="F")
got = blas.dgemm(2.0, x, y, beta=3.0, c=c0.copy(order="F"), trans_a=1)
want = [[2 * v + 3 * w for v, w in zip(r1, r2)] for r1, r2 in zip(exact(x.T, y), c0.tolist())]
print("scipy dgemm alpha beta", "ok" if got.tolist() == want else "WRONG")
xs, ys = ints((50, 40), np.float32, "F"), ints((40, 60), np.float32, "F")
check("scipy sgemm", blas.sgemm(1.0, xs, ys), xs, ys)
tiny = ints((3, 3))
check("tiny (the guest's own code)", tiny @ tiny, tiny, tiny)
n = np.full((40, 40), np.nan)
z = ints((40, 40))
print("nan propagates", "ok" if np.isnan(n @ z).all() else "WRONG")
"#;

#[tokio::test]
async fn matrix_products_on_the_host_equal_exact_products_in_every_layout() {
    let rt = own_runtime(1).await;
    let sb = Sandbox::builder(rt.clone()).build().expect("sandbox");
    let before = rt.host_products();
    let r = py(&sb, &["-c", PRODUCTS]).await;
    let out = ok(&r);
    eprint!("{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 12, "{}", show(&r));
    for line in &lines {
        assert!(line.ends_with(" ok"), "{line}\n{}", show(&r));
    }
    // Every case but the 3x3 one is big enough for the host to take.
    let done = rt.host_products() - before;
    assert!(done >= 11, "the host did {done} of the products");
}

#[tokio::test]
async fn a_long_product_stops_at_the_calls_deadline() {
    let rt = own_runtime(1).await;
    let limits = Limits {
        timeout: Duration::from_secs(2),
        ..Limits::default()
    };
    let sb = Sandbox::builder(rt.clone())
        .limits(limits)
        .build()
        .expect("sandbox");
    // The host takes products of this runtime's guests (so the long one below is the host's,
    // cut between its blocks, not the guest's OpenBLAS cut by an epoch check).
    let warm = "import numpy as np; print(int((np.ones((600, 600)) @ np.ones((600, 600)))[0, 0]))";
    assert_eq!(ok(&py(&sb, &["-c", warm]).await).trim(), "600");
    assert_eq!(
        rt.host_products(),
        1,
        "the host did not take a 600x600 product"
    );
    // One product of ~0.5 TFLOP: minutes even on the host; the deadline must cut it.
    let src = "import numpy as np\na = np.ones((5000, 5000))\nprint('start', flush=True)\n\
               c = a @ a\nprint('finished')";
    let r = py(&sb, &["-c", src]).await;
    assert_eq!(r.outcome, Outcome::Deadline, "{}", show(&r));
    assert_eq!(r.exit_code, 124, "{}", show(&r));
    assert!(r.stdout_text().contains("start") && !r.stdout_text().contains("finished"));
    assert_eq!(
        rt.host_products(),
        1,
        "a product cut by the deadline is not counted as done"
    );
    eprintln!("stopped after {:?}", r.duration);
    // The sandbox goes on.
    let r = py(
        &sb,
        &[
            "-c",
            "import numpy as np; print(int((np.ones((50, 50)) @ np.ones((50, 50)))[0, 0]))",
        ],
    )
    .await;
    assert_eq!(ok(&r).trim(), "50");
}

#[tokio::test]
async fn float_remainders_give_fmods_answers() {
    // Python's own float `%` and math.fmod over data-like and awkward values, against the
    // host's CPython; numpy's %, // and fmod against exact fractions.
    let pure = r#"
import math
xs = [7.5, -7.5, 1e17 + 3, 5e-324, -0.0, 0.0, 2.0**60, 123456.789, 1e308, 33.0]
ys = [10.0, -3.0, 0.1, 360.0, 2.0**-20, 7.0, 0.5]
print(" ".join(repr(math.fmod(x, y)) + " " + repr(x % y) for x in xs for y in ys))
"#;
    let r = crate::common::code(pure).await;
    let out = ok(&r);
    let host = std::process::Command::new("python3")
        .args(["-c", pure])
        .output()
        .expect("the host's python3");
    assert!(
        host.status.success(),
        "{}",
        String::from_utf8_lossy(&host.stderr)
    );
    assert_eq!(out, String::from_utf8_lossy(&host.stdout));
    let numpy = r#"
import numpy as np
from fractions import Fraction as F
import math
c = np.arange(-50, 50, 0.25)
for y in (10.0, 3.0, 0.5, -7.0):
    mod = [F(x) - F(y) * math.floor(F(x) / F(y)) for x in c.tolist()]
    div = [math.floor(F(x) / F(y)) for x in c.tolist()]
    fm = [F(x) - F(y) * math.trunc(F(x) / F(y)) for x in c.tolist()]
    print(y, (c % y).tolist() == [float(v) for v in mod], (c // y).tolist() == [float(v) for v in div],
          np.fmod(c, y).tolist() == [float(v) for v in fm])
"#;
    let out = ok(&crate::common::code(numpy).await);
    assert_eq!(
        out,
        "10.0 True True True\n3.0 True True True\n0.5 True True True\n-7.0 True True True\n"
    );
}
