//! The machine's limits a density run can meet, read from /proc: open files, memory maps and
//! available memory. When one stops the run, its error names the limit and where it stood.

/// How many files this process has open.
pub(super) fn open_files() -> usize {
    procfs::process::Process::myself()
        .and_then(|p| p.fd_count())
        .unwrap_or(0)
}

/// The soft limit on open files (what `ulimit -n` shows; `u64::MAX` when unlimited).
pub(super) fn open_file_limit() -> u64 {
    llm_in_sandbox::runtime::open_file_limit().map_or(0, |l| l.soft)
}

/// How many memory maps this process has (lines of /proc/self/maps).
pub(super) fn memory_maps() -> usize {
    std::fs::read_to_string("/proc/self/maps").map_or(0, |s| s.lines().count())
}

/// The kernel's cap on a process's memory maps (`vm.max_map_count`).
pub(super) fn max_memory_maps() -> Option<usize> {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// The machine's memory: total and available now (MemAvailable), in bytes.
pub(super) fn machine_memory() -> Option<(u64, u64)> {
    use procfs::Current;
    let info = procfs::Meminfo::current().ok()?;
    Some((info.mem_total, info.mem_available?))
}

/// Below this much available memory the run stops rather than let the kernel kill the
/// process: 2% of the machine (at least 512 MiB), plus the compiled modules this process maps.
/// MemAvailable counts their pages as cache it could drop, but every instance runs from them:
/// dropped, they are read back from disk on every call and the machine thrashes before the
/// kernel's OOM killer ends the process.
pub(super) fn memory_floor(total: u64) -> u64 {
    (total / 50).max(512 << 20) + mapped_modules()
}

/// Bytes of the compiled modules (`.cwasm`) this process maps, read once.
fn mapped_modules() -> u64 {
    static BYTES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
        let mut files: Vec<&str> = maps
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .filter(|p| p.ends_with(".cwasm"))
            .collect();
        files.sort_unstable();
        files.dedup();
        files
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    })
}

/// The machine's memory when it is short (available under [`memory_floor`]): said as the
/// limit reached.
pub(super) fn memory_short() -> Option<String> {
    let (total, avail) = machine_memory()?;
    let floor = memory_floor(total);
    (avail < floor).then(|| {
        format!(
            "the machine's memory: {} MiB available of {} MiB (MemAvailable), under the {} MiB \
             kept free (2% of the machine, and the {} MiB of compiled module every instance \
             runs from)",
            avail >> 20,
            total >> 20,
            floor >> 20,
            mapped_modules() >> 20
        )
    })
}

/// Where each limit stands now, for an error message.
pub(super) fn standing() -> String {
    let mib = |b: u64| b >> 20;
    let memory = machine_memory().map_or(String::new(), |(total, avail)| {
        format!(
            "; available memory {} MiB of {} MiB",
            mib(avail),
            mib(total)
        )
    });
    format!(
        "open files {} of {} (ulimit -n); memory maps {} of {} (vm.max_map_count){memory}",
        open_files(),
        open_file_limit(),
        memory_maps(),
        max_memory_maps().map_or("?".into(), |m| m.to_string()),
    )
}

/// The limit that is (nearly) reached, if one is: open files, memory maps or memory.
pub(super) fn reached() -> Option<String> {
    let (files, file_limit) = (open_files() as u64, open_file_limit());
    if file_limit > 0 && files * 100 >= file_limit * 98 {
        return Some(format!(
            "the open-files limit: {files} open of {file_limit} (ulimit -n)"
        ));
    }
    let maps = memory_maps();
    if let Some(max) = max_memory_maps().filter(|&m| maps * 100 >= m * 98) {
        return Some(format!(
            "the kernel's cap on memory maps: {maps} of vm.max_map_count = {max}"
        ));
    }
    memory_short()
}
