//! Matrix products done by the host for the guest (the door's `gemm` kind; the guest side is
//! [`super::relink`]).
//!
//! Why: numpy's OpenBLAS in the guest is the generic WebAssembly build, two doubles per vector
//! and one thread; a 400x400 float64 product took 17.6 ms there against 1.1 ms for the
//! reference's CPython (docs/performance.md). The host computes the same product with
//! `matrixmultiply`'s kernels for the machine's CPU, on the call's own thread.
//!
//! Safety against a hostile guest: every argument is read from guest memory with bounds
//! checks; the three matrices' extents (from their sizes and leading dimensions) must lie in
//! the guest's memory, be aligned for their element type, and the output must not overlap an
//! input, or the host declines and the guest's own code runs, as it would without a host
//! (which also gives BLAS's own argument errors). The work is cut into column blocks of about
//! [`BLOCK_FLOPS`], and the call yields between blocks, so the call's deadline, Ctrl-C and a
//! client going away stop a long product as they stop guest code. Nothing is allocated in the
//! guest; the host's packing buffers are `matrixmultiply`'s own, a few MB at most.

use wasmtime::Caller;

use super::GuestState;
use super::relink::gemm::{FORM_FORTRAN, FORM_SINGLE, REQUEST_BYTES, TAG};

/// The door's answer: the product is done.
const DONE: i32 = 0;
/// The door's answer: the guest runs its own code.
const DECLINED: i32 = 1;
/// Below this many multiply-adds (`m*n*k`), the guest's own code is as quick as a door call.
const MIN_WORK: u64 = 16 * 16 * 16;
/// About how many multiply-adds one block does before the call yields (~10-20 ms).
const BLOCK_FLOPS: u64 = 1 << 28;

/// Whether a request is a matrix product (its first bytes).
pub(super) fn is_request(head: &[u8]) -> bool {
    head.starts_with(TAG)
}

/// Whether the host does matrix products: `LLM_IN_SANDBOX_HOST_GEMM=off` leaves them to the
/// guest's own OpenBLAS (for comparisons; the module is the same either way).
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("LLM_IN_SANDBOX_HOST_GEMM").map_or(true, |v| v != "off" && v != "0")
    })
}

/// One product, described in the guest's terms: column-major strides in elements.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Product {
    single: bool,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    beta: f64,
    a: Operand,
    b: Operand,
    c: Operand,
}

/// A matrix operand: its address and the strides of its rows and columns (in elements).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Operand {
    at: usize,
    row_stride: usize,
    col_stride: usize,
}

/// Serve a `gemm` request at `req` (`len` bytes): [`DONE`] or [`DECLINED`].
///
/// # Errors
/// None of its own: a failure to reach the guest's memory declines.
pub(super) async fn serve(caller: &mut Caller<'_, GuestState>, req: i32, len: i32) -> i32 {
    if !enabled() {
        return DECLINED;
    }
    let Some(memory) = caller.get_export("memory").and_then(|e| e.into_memory()) else {
        return DECLINED;
    };
    let product = {
        let data = memory.data(&*caller);
        match read_request(data, req, len).and_then(|p| checked(p, data.len())) {
            Some(p) => p,
            None => return DECLINED,
        }
    };
    let per_column = (product.m as u64).saturating_mul(product.k as u64).max(1);
    let block = usize::try_from((BLOCK_FLOPS / per_column).max(1)).unwrap_or(usize::MAX);
    let mut j = 0;
    while j < product.n {
        let cols = block.min(product.n - j);
        let data = memory.data_mut(&mut *caller);
        multiply(data, &product, j, cols);
        j += cols;
        if j < product.n {
            tokio::task::yield_now().await;
        }
    }
    caller
        .data()
        .products
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    DONE
}

/// Columns `j..j + cols` of C = alpha * A * B + beta * C, in `data` (checked by [`checked`]).
fn multiply(data: &mut [u8], p: &Product, j: usize, cols: usize) {
    let base = data.as_mut_ptr();
    let signed = |x: usize| isize::try_from(x).unwrap_or(isize::MAX);
    let (a, b, c) = (p.a, p.b, p.c);
    let b_at = b.at + j * b.col_stride * elem(p.single);
    let c_at = c.at + j * c.col_stride * elem(p.single);
    // SAFETY: `checked` proved that every element of the three operands (for all columns,
    // so also for this block's) lies inside `data`, aligned for its type, and that C shares no
    // byte with A or B; `data` is borrowed mutably for the call, so nothing else touches it.
    unsafe {
        if p.single {
            matrixmultiply::sgemm(
                p.m,
                p.k,
                cols,
                p.alpha as f32,
                base.add(a.at).cast::<f32>(),
                signed(a.row_stride),
                signed(a.col_stride),
                base.add(b_at).cast::<f32>(),
                signed(b.row_stride),
                signed(b.col_stride),
                p.beta as f32,
                base.add(c_at).cast::<f32>(),
                signed(c.row_stride),
                signed(c.col_stride),
            );
        } else {
            matrixmultiply::dgemm(
                p.m,
                p.k,
                cols,
                p.alpha,
                base.add(a.at).cast::<f64>(),
                signed(a.row_stride),
                signed(a.col_stride),
                base.add(b_at).cast::<f64>(),
                signed(b.row_stride),
                signed(b.col_stride),
                p.beta,
                base.add(c_at).cast::<f64>(),
                signed(c.row_stride),
                signed(c.col_stride),
            );
        }
    }
}

fn elem(single: bool) -> usize {
    if single { 4 } else { 8 }
}

/// Little-endian reads from guest memory, `None` out of bounds.
fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

fn i32_at(data: &[u8], at: usize) -> Option<i32> {
    u32_at(data, at).map(|v| v as i32)
}

fn f64_at(data: &[u8], at: usize) -> Option<f64> {
    let bytes = data.get(at..at.checked_add(8)?)?;
    Some(f64::from_le_bytes(bytes.try_into().ok()?))
}

fn f32_at(data: &[u8], at: usize) -> Option<f64> {
    u32_at(data, at).map(|v| f64::from(f32::from_bits(v)))
}

/// The product a request describes, in column-major terms, or `None` for anything the host
/// leaves to the guest (unknown flags, negative sizes, a zero `alpha`, tiny products).
fn read_request(data: &[u8], req: i32, len: i32) -> Option<Product> {
    let at = usize::try_from(req).ok()?;
    if usize::try_from(len).ok()? < 16 || len as u32 > REQUEST_BYTES {
        return None;
    }
    let form = u32_at(data, at + 8)?;
    let single = form & FORM_SINGLE != 0;
    let slot = |i: usize| at + 16 + 8 * i;
    let float_at = |data: &[u8], at: usize| {
        if single {
            f32_at(data, at)
        } else {
            f64_at(data, at)
        }
    };
    let (row_major, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if form & FORM_FORTRAN != 0 {
        let ptr = |i: usize| u32_at(data, slot(i)).map(|p| p as usize);
        let byte = |i: usize| data.get(ptr(i)?).copied();
        let int = |i: usize| i32_at(data, ptr(i)?);
        row_major = false;
        ta = fortran_trans(byte(0)?)?;
        tb = fortran_trans(byte(1)?)?;
        (m, n, k) = (int(2)?, int(3)?, int(4)?);
        alpha = float_at(data, ptr(5)?)?;
        (a, lda) = (ptr(6)?, int(7)?);
        (b, ldb) = (ptr(8)?, int(9)?);
        beta = float_at(data, ptr(10)?)?;
        (c, ldc) = (ptr(11)?, int(12)?);
    } else {
        let int = |i: usize| i32_at(data, slot(i));
        let ptr = |i: usize| u32_at(data, slot(i)).map(|p| p as usize);
        row_major = match int(0)? {
            101 => true,
            102 => false,
            _ => return None,
        };
        ta = cblas_trans(int(1)?)?;
        tb = cblas_trans(int(2)?)?;
        (m, n, k) = (int(3)?, int(4)?, int(5)?);
        alpha = float_at(data, slot(6))?;
        (a, lda) = (ptr(7)?, int(8)?);
        (b, ldb) = (ptr(9)?, int(10)?);
        beta = float_at(data, slot(11))?;
        (c, ldc) = (ptr(12)?, int(13)?);
    }
    let size = |v: i32| usize::try_from(v).ok().filter(|v| *v > 0);
    let (m, n, k) = (size(m)?, size(n)?, size(k)?);
    let (lda, ldb, ldc) = (size(lda)?, size(ldb)?, size(ldc)?);
    let work = (m as u64).saturating_mul(n as u64).saturating_mul(k as u64);
    if work < MIN_WORK || alpha == 0.0 || !alpha.is_finite() {
        return None;
    }
    // op(A) is m x k, op(B) is k x n, C is m x n; stored transposed, or row-major, the roles
    // of the two strides swap, and the leading dimension must cover the stored rows.
    let a = operand(a, lda, m, k, ta, row_major)?;
    let b = operand(b, ldb, k, n, tb, row_major)?;
    let c = operand(c, ldc, m, n, false, row_major)?;
    Some(Product {
        single,
        m,
        n,
        k,
        alpha,
        beta,
        a,
        b,
        c,
    })
}

/// The operand of logical size `rows` x `cols` stored at `at` with leading dimension `ld`,
/// transposed or not, in row- or column-major order; `None` when `ld` is too small.
fn operand(
    at: usize,
    ld: usize,
    rows: usize,
    cols: usize,
    transposed: bool,
    row_major: bool,
) -> Option<Operand> {
    // The stored matrix's leading extent: its rows when column-major, its columns otherwise.
    let (stored_rows, stored_cols) = if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let leading = if row_major { stored_cols } else { stored_rows };
    if ld < leading {
        return None;
    }
    let (row_stride, col_stride) = if transposed != row_major {
        (ld, 1)
    } else {
        (1, ld)
    };
    Some(Operand {
        at,
        row_stride,
        col_stride,
    })
}

fn cblas_trans(v: i32) -> Option<bool> {
    match v {
        111 | 114 => Some(false),
        112 | 113 => Some(true),
        _ => None,
    }
}

fn fortran_trans(c: u8) -> Option<bool> {
    match c.to_ascii_uppercase() {
        b'N' => Some(false),
        b'T' | b'C' => Some(true),
        _ => None,
    }
}

/// The operand's bytes as a range of guest memory, if they fit in `memory` bytes and are
/// aligned for `elem`-byte elements.
fn extent(
    o: &Operand,
    rows: usize,
    cols: usize,
    elem: usize,
    memory: usize,
) -> Option<(usize, usize)> {
    let last = (rows - 1)
        .checked_mul(o.row_stride)?
        .checked_add((cols - 1).checked_mul(o.col_stride)?)?;
    let end = last.checked_add(1)?.checked_mul(elem)?.checked_add(o.at)?;
    (end <= memory && o.at.is_multiple_of(elem)).then_some((o.at, end))
}

/// `p` when all three operands lie in `memory` bytes, aligned, and C overlaps neither input.
fn checked(p: Product, memory: usize) -> Option<Product> {
    let e = elem(p.single);
    let a = extent(&p.a, p.m, p.k, e, memory)?;
    let b = extent(&p.b, p.k, p.n, e, memory)?;
    let c = extent(&p.c, p.m, p.n, e, memory)?;
    let overlaps = |x: (usize, usize), y: (usize, usize)| x.0 < y.1 && y.0 < x.1;
    (!overlaps(c, a) && !overlaps(c, b)).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CBLAS request for `dgemm` at byte 0 of a buffer, with the matrices after it.
    fn cblas_request(args: [i32; 12], alpha: f64, beta: f64) -> Vec<u8> {
        let mut data = vec![0u8; 4096];
        data[..8].copy_from_slice(TAG);
        let ints = [
            args[0], args[1], args[2], args[3], args[4], args[5], 0, args[6], args[7], args[8],
            args[9], 0, args[10], args[11],
        ];
        for (i, v) in ints.iter().enumerate() {
            data[16 + 8 * i..20 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        data[16 + 48..16 + 56].copy_from_slice(&alpha.to_le_bytes());
        data[16 + 88..16 + 96].copy_from_slice(&beta.to_le_bytes());
        data
    }

    #[test]
    fn row_major_and_transposes_map_to_strides() {
        // Row-major, A transposed: A is stored k x m (lda >= m), op(A)(i, l) at l*lda + i.
        let data = cblas_request(
            [101, 112, 111, 20, 30, 40, 512, 24, 1024, 30, 2048, 32],
            1.0,
            0.0,
        );
        let p = read_request(&data, 0, 128).expect("a product");
        assert_eq!((p.m, p.n, p.k), (20, 30, 40));
        assert_eq!((p.a.row_stride, p.a.col_stride), (1, 24));
        assert_eq!((p.b.row_stride, p.b.col_stride), (30, 1));
        assert_eq!((p.c.row_stride, p.c.col_stride), (32, 1));
        // Column-major, no transposes.
        let data = cblas_request(
            [102, 111, 111, 20, 30, 40, 512, 20, 1024, 40, 2048, 20],
            1.0,
            0.0,
        );
        let p = read_request(&data, 0, 128).expect("a product");
        assert_eq!((p.a.row_stride, p.a.col_stride), (1, 20));
        assert_eq!((p.c.row_stride, p.c.col_stride), (1, 20));
    }

    #[test]
    fn what_blas_would_refuse_or_the_host_cannot_prove_safe_is_declined() {
        const A: i32 = 1 << 16;
        const B: i32 = 2 << 16;
        const C: i32 = 3 << 16;
        let ok = [102, 111, 111, 20, 30, 40, A, 20, B, 40, C, 20];
        let declined = |args: [i32; 12], alpha: f64, memory: usize| {
            let data = cblas_request(args, alpha, 0.0);
            read_request(&data, 0, 128)
                .and_then(|p| checked(p, memory))
                .is_none()
        };
        assert!(!declined(ok, 1.0, 1 << 20));
        // lda smaller than the stored rows, a bad order flag, a negative size, alpha 0.
        assert!(declined(
            [102, 111, 111, 20, 30, 40, A, 19, B, 40, C, 20],
            1.0,
            1 << 20
        ));
        assert!(declined(
            [7, 111, 111, 20, 30, 40, A, 20, B, 40, C, 20],
            1.0,
            1 << 20
        ));
        assert!(declined(
            [102, 111, 111, -20, 30, 40, A, 20, B, 40, C, 20],
            1.0,
            1 << 20
        ));
        assert!(declined(ok, 0.0, 1 << 20));
        // The matrices past the end of memory, misaligned, or C over A.
        assert!(declined(ok, 1.0, C as usize + 20 * 30 * 8 - 1));
        assert!(!declined(ok, 1.0, C as usize + 20 * 30 * 8));
        assert!(declined(
            [102, 111, 111, 20, 30, 40, A + 1, 20, B, 40, C, 20],
            1.0,
            1 << 20
        ));
        assert!(declined(
            [102, 111, 111, 20, 30, 40, A, 20, B, 40, A + 8, 20],
            1.0,
            1 << 20
        ));
        // A request shorter than its header, or at an address past memory.
        let data = cblas_request(ok, 1.0, 0.0);
        assert!(read_request(&data, 0, 8).is_none());
        assert!(read_request(&data, 4090, 128).is_none());
        assert!(read_request(&data, -1, 128).is_none());
    }

    #[test]
    fn a_product_in_blocks_equals_the_naive_one() {
        // Column-major 7x5 = (7x3)(3x5), beta 0.5 over a C of ones, done in blocks of 2.
        let (m, n, k) = (7usize, 5usize, 3usize);
        let mut data = vec![0u8; 1024];
        let (a_at, b_at, c_at) = (0, 256, 512);
        let put =
            |data: &mut [u8], at: usize, v: f64| data[at..at + 8].copy_from_slice(&v.to_le_bytes());
        for i in 0..m * k {
            put(&mut data, a_at + 8 * i, i as f64);
        }
        for i in 0..k * n {
            put(&mut data, b_at + 8 * i, (i % 4) as f64 - 1.0);
        }
        for i in 0..m * n {
            put(&mut data, c_at + 8 * i, 1.0);
        }
        let op = |at, ld| Operand {
            at,
            row_stride: 1,
            col_stride: ld,
        };
        let p = Product {
            single: false,
            m,
            n,
            k,
            alpha: 2.0,
            beta: 0.5,
            a: op(a_at, m),
            b: op(b_at, k),
            c: op(c_at, m),
        };
        let p = checked(p, data.len()).expect("in bounds");
        let before = data.clone();
        multiply(&mut data, &p, 0, 2);
        multiply(&mut data, &p, 2, 3);
        let get = |data: &[u8], at: usize| f64::from_le_bytes(data[at..at + 8].try_into().unwrap());
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for l in 0..k {
                    s +=
                        get(&before, a_at + 8 * (i + l * m)) * get(&before, b_at + 8 * (l + j * k));
                }
                let want = 2.0 * s + 0.5;
                assert_eq!(get(&data, c_at + 8 * (i + j * m)), want, "C[{i},{j}]");
            }
        }
    }
}
