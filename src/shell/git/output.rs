//! What a git command prints and its exit status.

/// What a command prints and its exit status.
#[derive(Default)]
pub struct Output {
    /// What goes to stdout.
    pub out: Vec<u8>,
    /// What goes to stderr.
    pub err: Vec<u8>,
    /// The exit status.
    pub code: i32,
}

impl Output {
    pub fn out(&mut self, s: impl AsRef<[u8]>) {
        self.out.extend_from_slice(s.as_ref());
    }

    pub fn err(&mut self, s: impl AsRef<[u8]>) {
        self.err.extend_from_slice(s.as_ref());
    }

    pub fn stdout(s: impl AsRef<[u8]>) -> Output {
        let mut o = Output::default();
        o.out(s);
        o
    }
}
