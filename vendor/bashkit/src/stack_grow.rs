//! Deep shell recursion on a small host stack.
//!
//! A shell function call nests the interpreter's poll frames once per level, so a recursive
//! function 10,000 deep needs far more than a 2 MiB thread stack. [`grow`] wraps a future so
//! that each poll that reaches it with little stack left runs on a fresh heap segment
//! (`stacker`), freed when the poll returns. Depth is then bounded by the function-depth limit
//! the embedder derives from its memory budget, not by the thread's stack.

use std::future::Future;
use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Stack left below which a poll moves to a new segment.
const RED_ZONE: usize = 256 * 1024;
/// Size of each new segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// `inner`, polled on a new stack segment whenever the current one runs low.
pub(crate) fn grow<F: Future>(inner: F) -> Grow<F> {
    Grow {
        inner: ManuallyDrop::new(inner),
    }
}

pub(crate) struct Grow<F> {
    inner: ManuallyDrop<F>,
}

impl<F: Future> Future for Grow<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned: it is never moved out of `self`.
        let inner = unsafe { self.map_unchecked_mut(|s| &mut *s.inner) };
        stacker::maybe_grow(RED_ZONE, SEGMENT, move || inner.poll(cx))
    }
}

impl<F> Drop for Grow<F> {
    /// A call stopped deep inside (the deadline, a cancel) drops its whole chain of nested
    /// futures at once, one drop frame per level: that recursion moves to new segments too.
    fn drop(&mut self) {
        let inner = &mut self.inner;
        // SAFETY: dropped once, in place (a pinned future is never moved), and never used
        // after: this is `Grow`'s own drop.
        stacker::maybe_grow(RED_ZONE, SEGMENT, move || unsafe {
            ManuallyDrop::drop(inner)
        });
    }
}
