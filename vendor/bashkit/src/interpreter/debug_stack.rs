//! bash's debug stack (`BASH_SOURCE`, `BASH_LINENO`, `FUNCNAME`) at O(1) per call.
//!
//! The three arrays are indexed from the innermost frame, so a function call renumbers every
//! entry. Upstream rebuilt all three arrays on every call and return: O(depth) string copies a
//! call, O(depth²) for a recursion (10,000 deep took 17 s). Here the stack is a persistent
//! list (a push or pop touches one node, a copy shares every node) and the arrays are views
//! of it, built when a script reads them and kept until the stack next changes.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, OnceLock};

/// One entry of bash's debug stack, the frames behind `BASH_SOURCE`,
/// `BASH_LINENO` and `FUNCNAME`: a function call (`funcname` is the
/// function, `file` where it was defined), a sourced file (`source`), or the
/// script file itself (`main`, line 0). `call_line` is the line the frame
/// was entered from.
#[derive(Debug, Clone)]
pub(super) struct SourceFrame {
    pub(super) file: Arc<str>,
    pub(super) funcname: String,
    pub(super) call_line: usize,
    pub(super) is_function: bool,
}

impl SourceFrame {
    pub(super) fn script(file: &str) -> Self {
        Self {
            file: Arc::from(file),
            funcname: "main".to_string(),
            call_line: 0,
            is_function: false,
        }
    }
}

#[derive(Debug)]
struct Node {
    frame: SourceFrame,
    parent: Option<Arc<Node>>,
    /// Frames in this node and below it.
    len: usize,
    /// Function frames in this node and below it.
    functions: usize,
}

/// The debug stack, innermost frame on top. Cloning shares every frame.
#[derive(Debug, Clone, Default)]
pub(super) struct DebugStack {
    top: Option<Arc<Node>>,
}

impl DebugStack {
    /// A stack holding only the script file's frame.
    pub(super) fn script(file: &str) -> Self {
        let mut stack = Self::default();
        stack.push(SourceFrame::script(file));
        stack
    }

    pub(super) fn push(&mut self, frame: SourceFrame) {
        let parent = self.top.take();
        let (len, functions) = parent.as_ref().map_or((0, 0), |p| (p.len, p.functions));
        let functions = functions + usize::from(frame.is_function);
        self.top = Some(Arc::new(Node {
            frame,
            parent,
            len: len + 1,
            functions,
        }));
    }

    pub(super) fn pop(&mut self) {
        if let Some(top) = self.top.take() {
            self.top = top.parent.clone();
            Self::release(Some(top));
        }
    }

    /// Pops frames until `len` are left.
    pub(super) fn truncate(&mut self, len: usize) {
        while self.len() > len {
            self.pop();
        }
    }

    pub(super) fn clear(&mut self) {
        Self::release(self.top.take());
    }

    /// The innermost frame.
    pub(super) fn last(&self) -> Option<&SourceFrame> {
        self.top.as_deref().map(|n| &n.frame)
    }

    pub(super) fn len(&self) -> usize {
        self.top.as_ref().map_or(0, |n| n.len)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.top.is_none()
    }

    /// A function runs (bash has `FUNCNAME` only then).
    fn in_function(&self) -> bool {
        self.top.as_ref().is_some_and(|n| n.functions > 0)
    }

    /// Frames from the innermost out: index 0 of the arrays first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &SourceFrame> {
        std::iter::successors(self.top.as_deref(), |n| n.parent.as_deref()).map(|n| &n.frame)
    }

    fn same(&self, other: &Self) -> bool {
        match (&self.top, &other.top) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    /// Drops a chain without recursing once per node (a deep chain would overflow the stack).
    fn release(mut next: Option<Arc<Node>>) {
        while let Some(node) = next {
            next = match Arc::try_unwrap(node) {
                Ok(mut node) => node.parent.take(),
                Err(_) => None,
            };
        }
    }
}

impl Drop for DebugStack {
    fn drop(&mut self) {
        Self::release(self.top.take());
    }
}

/// Names of the arrays that show the debug stack.
pub(super) const DEBUG_ARRAYS: [&str; 3] = ["BASH_SOURCE", "BASH_LINENO", "FUNCNAME"];

/// The same names as `String`s, for iterators over the table's names.
static DEBUG_ARRAY_NAMES: LazyLock<[String; 3]> = LazyLock::new(|| DEBUG_ARRAYS.map(String::from));

type IndexedArray = HashMap<usize, String>;

/// The shell's indexed arrays: the script's own (copy-on-write) and the debug stack's three,
/// built on first read after each change of the stack.
#[derive(Debug, Clone, Default)]
pub(super) struct ArrayTable {
    map: Arc<HashMap<String, IndexedArray>>,
    debug: DebugStack,
    views: [OnceLock<Arc<IndexedArray>>; 3],
}

impl ArrayTable {
    pub(super) fn from_map(map: HashMap<String, IndexedArray>) -> Self {
        Self {
            map: Arc::new(map),
            ..Self::default()
        }
    }

    /// The script's own arrays (debug arrays not included).
    pub(super) fn map(&self) -> &HashMap<String, IndexedArray> {
        &self.map
    }

    /// The script's own arrays, for writing. A write to a debug array while the stack shows
    /// it has no effect (bash ignores assignments to them): the next change of the stack
    /// drops it.
    pub(super) fn map_mut(&mut self) -> &mut HashMap<String, IndexedArray> {
        Arc::make_mut(&mut self.map)
    }

    /// Which view `name` is, if the stack shows it now.
    fn live_view(&self, name: &str) -> Option<usize> {
        let i = DEBUG_ARRAYS.iter().position(|n| *n == name)?;
        let live = if i == 2 {
            self.debug.in_function()
        } else {
            !self.debug.is_empty()
        };
        live.then_some(i)
    }

    fn view(&self, i: usize) -> &IndexedArray {
        self.views[i].get_or_init(|| {
            let values = self.debug.iter().map(|f| match i {
                0 => f.file.to_string(),
                1 => f.call_line.to_string(),
                _ => f.funcname.clone(),
            });
            Arc::new(values.enumerate().collect())
        })
    }

    /// Shows `stack` in the debug arrays from now on. Returns what the script had written to
    /// those arrays (entries, bytes), now dropped, so the caller can credit its budget.
    pub(super) fn set_debug(&mut self, stack: &DebugStack) -> (usize, usize) {
        if !self.debug.same(stack) {
            self.debug = stack.clone();
            self.views = Default::default();
        }
        let mut dropped = (0, 0);
        if DEBUG_ARRAYS.iter().any(|n| self.map.contains_key(*n)) {
            for name in DEBUG_ARRAYS {
                if let Some(arr) = self.map_mut().remove(name) {
                    dropped.0 += arr.len();
                    dropped.1 += arr.iter().map(|(_, v)| v.len()).sum::<usize>();
                }
            }
        }
        dropped
    }

    pub(super) fn get(&self, name: &str) -> Option<&IndexedArray> {
        match self.live_view(name) {
            Some(i) => Some(self.view(i)),
            None => self.map.get(name),
        }
    }

    pub(super) fn contains_key(&self, name: &str) -> bool {
        self.live_view(name).is_some() || self.map.contains_key(name)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.map.is_empty() && self.debug.is_empty()
    }

    /// Every array's name, the debug arrays' while the stack shows them.
    pub(super) fn keys(&self) -> impl Iterator<Item = &String> {
        let live = DEBUG_ARRAY_NAMES
            .iter()
            .filter(|n| self.live_view(n).is_some());
        self.map
            .keys()
            .filter(move |k| self.live_view(k).is_none())
            .chain(live)
    }

    /// Every array with its entries, as `keys`.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &IndexedArray)> {
        self.keys()
            .filter_map(move |k| self.get(k).map(|arr| (k, arr)))
    }

    /// A plain copy, the debug arrays included as they read now.
    pub(super) fn to_map(&self) -> HashMap<String, IndexedArray> {
        self.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

impl std::ops::Index<&str> for ArrayTable {
    type Output = IndexedArray;

    fn index(&self, name: &str) -> &IndexedArray {
        match self.get(name) {
            Some(arr) => arr,
            None => panic!("no array {name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, line: usize) -> SourceFrame {
        SourceFrame {
            file: Arc::from("f.sh"),
            funcname: name.to_string(),
            call_line: line,
            is_function: true,
        }
    }

    #[test]
    fn views_follow_the_stack_innermost_first() {
        let mut stack = DebugStack::script("main.sh");
        let mut table = ArrayTable::default();
        table.set_debug(&stack);
        assert!(table.get("FUNCNAME").is_none());
        assert_eq!(
            table.get("BASH_SOURCE").map(|a| a[&0].as_str()),
            Some("main.sh")
        );
        stack.push(call("f", 3));
        stack.push(call("g", 7));
        table.set_debug(&stack);
        let names = table.get("FUNCNAME").cloned().unwrap_or_default();
        assert_eq!(names[&0], "g");
        assert_eq!(names[&1], "f");
        assert_eq!(names[&2], "main");
        assert_eq!(table["BASH_LINENO"][&0], "7");
        stack.pop();
        table.set_debug(&stack);
        assert_eq!(table["FUNCNAME"].len(), 2);
        assert_eq!(table["FUNCNAME"][&0], "f");
    }

    #[test]
    fn writes_to_a_shown_debug_array_are_dropped_and_reported() {
        let mut stack = DebugStack::default();
        stack.push(call("f", 1));
        let mut table = ArrayTable::default();
        table.set_debug(&stack);
        table
            .map_mut()
            .insert("FUNCNAME".into(), HashMap::from([(5, "abc".to_string())]));
        assert_eq!(table["FUNCNAME"][&0], "f");
        stack.pop();
        assert_eq!(table.set_debug(&stack), (1, 3));
        assert!(!table.contains_key("FUNCNAME"));
    }

    #[test]
    fn a_deep_stack_drops_without_recursion() {
        let mut stack = DebugStack::default();
        for i in 0..1_000_000 {
            stack.push(call("f", i));
        }
        let mut copy = stack.clone();
        copy.truncate(10);
        assert_eq!(copy.len(), 10);
        assert_eq!(stack.len(), 1_000_000);
        drop(copy);
        drop(stack);
    }
}
