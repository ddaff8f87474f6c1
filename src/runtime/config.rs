//! The runtime's settings: cache root, pool size, preloaded modules, extra packages.

use std::path::PathBuf;

/// Settings of the shared runtime.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// Where compiled modules are cached (the same root as the artifacts).
    pub cache_root: PathBuf,
    /// How many instances may be live at once (pooling allocator slots). Default 256. More
    /// calls at once wait for a free slot (up to their deadline).
    pub max_instances: u32,
    /// Modules imported into a pre-initialized snapshot made once at setup, so every call
    /// starts with them loaded. Default [`DEFAULT_PRELOAD`] (or `$LLM_IN_SANDBOX_PRELOAD`, a
    /// comma list; `none` for the stock snapshot). [`Runtime::load`](super::Runtime::load) refuses names that are not
    /// dotted Python names. If the snapshot cannot be made, the stock one is used and a message
    /// says why.
    pub preload: Vec<String>,
    /// Extra pure-Python packages for the read-only site layer every sandbox mounts, as a
    /// comma list (`math-verify,pint==0.24`; see [`crate::packages::parse_list`]). Default:
    /// `$LLM_IN_SANDBOX_WITH`, else what `setup --with` recorded in the cache, else none.
    pub with: String,
    /// How the host's pip is run, for the layer and for `pip install` in episodes.
    pub pip: crate::packages::PipSettings,
}

impl RuntimeConfig {
    /// Defaults for a cache root.
    pub fn new(cache_root: impl Into<PathBuf>) -> Self {
        Self {
            cache_root: cache_root.into(),
            max_instances: 256,
            preload: default_preload(),
            with: String::new(),
            pip: crate::packages::PipSettings::from_env(),
        }
        .with_requested()
    }
}

impl RuntimeConfig {
    fn with_requested(mut self) -> Self {
        self.with = crate::packages::requested(&self.cache_root);
        self
    }
}

/// The modules preloaded by default, chosen by measurement (README, "Choosing the preloaded
/// modules"): each costs 4 ms to 1 s to import from the stock snapshot on every call, and all
/// of them together add ~0.3 ms to a fresh call and ~0.4 MiB to an active sandbox.
pub const DEFAULT_PRELOAD: &str = "numpy,sympy,scipy,scipy.optimize,scipy.integrate,scipy.stats,\
     scipy.linalg,scipy.special,pandas,matplotlib.pyplot,mpmath,networkx,fractions,decimal,\
     statistics";

fn default_preload() -> Vec<String> {
    let spec = std::env::var("LLM_IN_SANDBOX_PRELOAD").unwrap_or_else(|_| DEFAULT_PRELOAD.into());
    parse_preload(&spec)
}

/// A comma list of module names; `+a,b` for the default list plus `a` and `b`; `none` or
/// empty for none. Names are checked when the runtime loads ([`RuntimeError::BadPreload`](super::RuntimeError::BadPreload)).
pub fn parse_preload(spec: &str) -> Vec<String> {
    let (base, extra) = match spec.trim().strip_prefix('+') {
        Some(extra) => (DEFAULT_PRELOAD, extra),
        None => ("", spec),
    };
    let mut modules: Vec<String> = Vec::new();
    for m in base.split(',').chain(extra.split(',')).map(str::trim) {
        if !m.is_empty() && m != "none" && !modules.iter().any(|x| x == m) {
            modules.push(m.to_string());
        }
    }
    modules
}

/// A dotted Python name (`scipy.stats`): the names end up in guest code.
pub(super) fn is_module_name(name: &str) -> bool {
    name.split('.').all(|p| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preload_lists_parse_extend_and_check_names() {
        assert_eq!(
            parse_preload(" numpy , scipy.stats,,"),
            ["numpy", "scipy.stats"]
        );
        assert!(parse_preload("none").is_empty());
        let defaults = parse_preload(DEFAULT_PRELOAD);
        assert!(defaults.iter().any(|m| m == "pandas"), "{defaults:?}");
        let extended = parse_preload("+sklearn,numpy");
        assert_eq!(extended.len(), defaults.len() + 1, "numpy is not repeated");
        assert_eq!(extended.last().map(String::as_str), Some("sklearn"));
        assert!(defaults.iter().all(|m| is_module_name(m)));
        for bad in ["os;print(1)", "a..b", "1x", "x-y", ".x", "x y"] {
            assert!(!is_module_name(bad), "{bad}");
        }
    }
}
