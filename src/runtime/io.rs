//! Guest stdout/stderr capture with a byte cap that truncates and lets the guest go on.
//!
//! wasmtime-wasi's `MemoryOutputPipe` traps the guest when full; a model printing 100 MB should
//! instead get the first part of its output and a note that the rest was cut.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    cap: usize,
    dropped: u64,
}

impl Captured {
    fn push(&mut self, data: &[u8]) {
        let room = self.cap.saturating_sub(self.bytes.len());
        let take = room.min(data.len());
        self.bytes.extend_from_slice(&data[..take]);
        self.dropped += (data.len() - take) as u64;
    }
}

/// A cloneable handle to one captured output stream.
#[derive(Debug, Clone)]
pub struct CappedOutput(Arc<Mutex<Captured>>);

impl CappedOutput {
    /// A stream that keeps at most `cap` bytes and counts the rest.
    pub fn new(cap: usize) -> Self {
        Self(Arc::new(Mutex::new(Captured {
            bytes: Vec::new(),
            cap,
            dropped: 0,
        })))
    }

    fn with<R>(&self, f: impl FnOnce(&mut Captured) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Take the captured bytes and the number of bytes dropped past the cap.
    pub fn take(&self) -> (Vec<u8>, u64) {
        self.with(|c| (std::mem::take(&mut c.bytes), c.dropped))
    }
}

impl IsTerminal for CappedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CappedOutput {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }

    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CappedOutput {
    async fn ready(&mut self) {}
}

impl OutputStream for CappedOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.with(|c| c.push(&bytes));
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always accept: past the cap bytes are counted and dropped, the guest never blocks.
        Ok(1 << 20)
    }
}

impl AsyncWrite for CappedOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.with(|c| c.push(buf));
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_bytes_and_counts_the_rest() {
        let out = CappedOutput::new(4);
        let mut s = out.clone();
        OutputStream::write(&mut s, Bytes::from_static(b"abcdef")).ok();
        OutputStream::write(&mut s, Bytes::from_static(b"gh")).ok();
        assert_eq!(out.take(), (b"abcd".to_vec(), 4));
    }
}
