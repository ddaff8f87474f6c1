//! ls builtin - list directory contents.

// Uses unwrap() for validated single-char strings.
#![allow(clippy::unwrap_used)]

use crate::builtins::clap_cache::cached_command;
use async_trait::async_trait;
use std::ffi::OsString;
use std::path::Path;

use crate::builtins::clap_env::apply_env_defaults;
use crate::builtins::generated::ls_args::LS_ENV_DEFAULTS;
use crate::builtins::{Builtin, Context, resolve_path};
use crate::error::Result;
use crate::fs::FileType;
use crate::fs::vfs_join;
use crate::interpreter::ExecResult;

use super::quoting::{QuotingStyle, quote_name};

/// Argument IDs from the generated `ls_command()` that bashkit currently
/// implements. Anything else clap accepts is reported as "not yet
/// implemented" so scripts get a deterministic error instead of silently
/// missing behavior. See spec `coreutils-args-port.md`.
const LS_SUPPORTED_IDS: &[&str] = &[
    // The 8 short flags the original bashkit ls accepted.
    "long",           // -l
    "all",            // -a
    "almost-all",     // -A (as -a without . and ..)
    "human-readable", // -h
    "1",              // -1
    "recursive",      // -R
    "t",              // -t
    "classify",       // -F / --classify
    "C",              // -C
    "directory",      // -d / --directory
    "quoting-style",  // --quoting-style (not locale/clocale)
    "literal",        // -N
    "escape",         // -b
    "quote-name",     // -Q
    // Non-flag positional + always-supported infrastructure.
    "paths",
    "help",
];

/// Options for ls command
pub(super) struct LsOptions {
    pub(super) long: bool,
    pub(super) all: bool,
    /// `-a` (not `-A`): `.` and `..` are listed first.
    pub(super) dots: bool,
    pub(super) human: bool,
    pub(super) one_per_line: bool,
    pub(super) recursive: bool,
    pub(super) sort_by_time: bool,
    pub(super) classify: bool,
    pub(super) columns: bool,
    pub(super) directory: bool,
    pub(super) quoting: QuotingStyle,
}

/// The ls builtin - list directory contents.
///
/// Usage: ls [-l] [-a] [-h] [-1] [-R] [-t] [-F] [-C] [-d] [PATH...]
///
/// Options:
///   -l   Use long listing format
///   -a   Show hidden files (starting with .)
///   -A   Same as -a (bashkit never lists . and ..)
///   -h   Human-readable sizes (with -l)
///   -1   One entry per line
///   -R   List subdirectories recursively
///   -t   Sort by modification time, newest first
///   -F   Append indicator (/ for dirs, * for executables, @ for symlinks, | for FIFOs)
///   -C   List entries in columns (multi-column output)
///   -d   List directories themselves, not their contents
pub struct Ls;

// Cached `ls` arg surface: pre-built once, cloned per invocation.
// See `builtins::clap_cache` for why it is built, not just constructed.
cached_command!(ls_cmd, super::super::generated::ls_args::ls_command());

#[async_trait]
impl Builtin for Ls {
    async fn execute(&self, ctx: Context<'_>) -> Result<ExecResult> {
        // clap expects argv[0] = program name; bashkit's ctx.args excludes it.
        let argv: Vec<OsString> = std::iter::once(OsString::from("ls"))
            .chain(ctx.args.iter().map(OsString::from))
            .collect();
        // Layer bashkit's virtual env over argv before clap parses it.
        // Mirrors uutils' `Arg::env(...)` precedence (argv > env > default)
        // but sources values from `ctx.env` instead of the host process —
        // see TM-INF-024 and `builtins/clap_env.rs`.
        let argv = apply_env_defaults(argv, LS_ENV_DEFAULTS, ctx.env);

        let matches = match ls_cmd().try_get_matches_from(argv) {
            Ok(m) => m,
            Err(e) => {
                let kind = e.kind();
                let rendered = e.render().to_string();
                if matches!(
                    kind,
                    clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                ) {
                    return Ok(ExecResult::ok(rendered));
                }
                return Ok(ExecResult::err(rendered, 2));
            }
        };

        // Reject any uu_ls flag bashkit hasn't implemented yet. Reporting
        // them up front beats silently parsing them and producing GNU-
        // incompatible output. Same pattern as `tac -b/-r/-s`.
        let unsupported: Vec<String> = matches
            .ids()
            .filter(|id| {
                let name = id.as_str();
                !LS_SUPPORTED_IDS.contains(&name)
                    && matches.value_source(name) != Some(clap::parser::ValueSource::DefaultValue)
            })
            .map(|id| id.as_str().to_string())
            .collect();
        if !unsupported.is_empty() {
            return Ok(ExecResult::err(
                format!(
                    "ls: option(s) not yet implemented in bashkit: {}\n",
                    unsupported.join(", ")
                ),
                2,
            ));
        }

        // -F/--classify takes an optional value (`always`/`auto`/`never`).
        // The bashkit implementation only knows "classify or not"; treat
        // an explicit `never` as off and anything else (including the
        // default "always") as on.
        let classify = matches.contains_id("classify")
            && matches
                .get_one::<String>("classify")
                .map(|v| v != "never")
                .unwrap_or(true);

        // The four quoting flags override each other in clap, so at most
        // one is present.
        let quoting = if matches.get_flag("escape") {
            QuotingStyle::Escape
        } else if matches.get_flag("quote-name") {
            QuotingStyle::C
        } else if let Some(style) = matches.get_one::<String>("quoting-style") {
            match QuotingStyle::from_name(style) {
                Some(q) => q,
                None => {
                    return Ok(ExecResult::err(
                        format!("ls: quoting style '{style}' not yet implemented in bashkit\n"),
                        2,
                    ));
                }
            }
        } else {
            QuotingStyle::Literal
        };

        let opts = LsOptions {
            long: matches.get_flag("long"),
            all: matches.get_flag("all") || matches.get_flag("almost-all"),
            dots: matches.get_flag("all"),
            human: matches.get_flag("human-readable"),
            one_per_line: matches.get_flag("1"),
            recursive: matches.get_flag("recursive"),
            sort_by_time: matches.get_flag("t"),
            classify,
            columns: matches.get_flag("C"),
            directory: matches.get_flag("directory"),
            quoting,
        };

        // PATHS holds OsString values; convert to owned strings for the
        // existing rendering loop.
        let paths_owned: Vec<String> = matches
            .get_many::<OsString>("paths")
            .map(|vs| vs.map(|v| v.to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        let mut paths: Vec<&str> = paths_owned.iter().map(String::as_str).collect();

        // Default to current directory
        if paths.is_empty() {
            paths.push(".");
        }

        let mut output = String::new();
        // GNU ls reports an operand it cannot access and goes on with the others (exit 2).
        let mut errors = String::new();
        let multiple_paths = paths.len() > 1 || opts.recursive;

        // Separate file and directory arguments (like real ls)
        let mut file_args: Vec<(&str, std::path::PathBuf, crate::fs::Metadata)> = Vec::new();
        let mut dir_args: Vec<(&str, std::path::PathBuf)> = Vec::new();

        for path_str in paths.iter() {
            let path = resolve_path(ctx.cwd, path_str);

            // lstat: a dangling link still lists as itself.
            let lmeta = match ctx.fs.lstat(&path).await {
                Ok(m) => m,
                Err(e) => {
                    let reason = match &e {
                        crate::Error::Io(io) if io.kind() == std::io::ErrorKind::NotADirectory => {
                            "Not a directory"
                        }
                        _ => "No such file or directory",
                    };
                    errors.push_str(&format!("ls: cannot access '{}': {reason}\n", path_str));
                    continue;
                }
            };
            // GNU: a link operand is followed unless -l, -d or -F describe
            // the link itself.
            let metadata = if lmeta.file_type.is_symlink()
                && !(opts.long || opts.directory || opts.classify)
            {
                ctx.fs.stat(&path).await.unwrap_or(lmeta)
            } else {
                lmeta
            };

            // With -d/--directory, list the directory entry itself rather than
            // descending into it: treat directory arguments like ordinary
            // non-directory entries. classify_suffix() still appends "/" under
            // -F because it keys off the metadata. (POSIX; common `ls -d */`.)
            if !metadata.file_type.is_dir() || opts.directory {
                file_args.push((path_str, path, metadata));
            } else {
                dir_args.push((path_str, path));
            }
        }

        // Sort file arguments by time if -t, preserving original paths
        if opts.sort_by_time {
            file_args.sort_by_key(|entry| std::cmp::Reverse(entry.2.modified));
        }

        // Output file arguments first (preserving path as given by user)
        if opts.long {
            let mut rows = Vec::with_capacity(file_args.len());
            for (path_str, path, metadata) in &file_args {
                let name = quote_name(path_str, opts.quoting);
                rows.push(long_row(&ctx, path, &name, metadata, &opts).await);
            }
            output.push_str(&render_long(&rows));
        } else if !file_args.is_empty() {
            let names: Vec<String> = file_args
                .iter()
                .map(|(path_str, _, metadata)| {
                    let mut name = quote_name(path_str, opts.quoting).into_owned();
                    if opts.classify {
                        name.push_str(classify_suffix(metadata));
                    }
                    name
                })
                .collect();
            if opts.columns && !opts.one_per_line {
                output.push_str(&format_columns(&names, 80));
            } else {
                for name in &names {
                    output.push_str(name);
                    output.push('\n');
                }
            }
        }

        // Then output directory listings
        // A blank line between listings: after the file operands, then after each folder.
        let mut listed_before = !file_args.is_empty();
        for (path_str, path) in &dir_args {
            if let Err(e) = list_directory(
                &ctx,
                path,
                path_str,
                &mut output,
                &opts,
                multiple_paths,
                listed_before,
            )
            .await
            {
                errors.push_str(&format!("ls: {}\n", e));
            }
            listed_before = true;
        }

        if errors.is_empty() {
            Ok(ExecResult::ok(output))
        } else {
            let mut result = ExecResult::with_code(output, 2);
            result.stderr = errors.into();
            Ok(result)
        }
    }
}

async fn list_directory(
    ctx: &Context<'_>,
    path: &Path,
    display_path: &str,
    output: &mut String,
    opts: &LsOptions,
    show_header: bool,
    add_newline: bool,
) -> std::result::Result<(), String> {
    if add_newline {
        output.push('\n');
    }

    if show_header {
        // GNU quotes headers in every style except `escape`.
        let header = if opts.quoting == QuotingStyle::Escape {
            std::borrow::Cow::Borrowed(display_path)
        } else {
            quote_name(display_path, opts.quoting)
        };
        output.push_str(&format!("{}:\n", header));
    }

    let entries = ctx
        .fs
        .read_dir(path)
        .await
        .map_err(|e| format!("cannot open directory '{}': {}", display_path, e))?;

    // Sort entries
    let mut sorted_entries = entries;
    if opts.sort_by_time {
        // Sort by modification time, newest first
        sorted_entries.sort_by_key(|entry| std::cmp::Reverse(entry.metadata.modified));
    } else {
        // Sort alphabetically
        sorted_entries.sort_by(|a, b| a.name.cmp(&b.name));
    }

    // Filter hidden files unless -a
    // `-a`: the folder itself and its parent come first, as GNU lists them.
    let mut dots = Vec::new();
    if opts.dots {
        let parent = path.parent().unwrap_or(path);
        for (name, at) in [(".", path), ("..", parent)] {
            if let Ok(metadata) = ctx.fs.stat(at).await {
                dots.push(crate::fs::DirEntry {
                    name: name.to_string(),
                    metadata,
                });
            }
        }
    }
    let filtered: Vec<_> = dots
        .iter()
        .chain(
            sorted_entries
                .iter()
                .filter(|e| opts.all || !e.name.starts_with('.')),
        )
        .collect();

    // Collect subdirectories for recursive listing
    let mut subdirs: Vec<(std::path::PathBuf, String)> = Vec::new();

    if opts.long {
        // GNU: the listed entries' disk use in KiB first, then aligned columns.
        let total: u64 = filtered.iter().map(|e| blocks_kib(&e.metadata)).sum();
        if opts.human {
            output.push_str(&format!("total {}\n", gnu_human(total * 1024)));
        } else {
            output.push_str(&format!("total {total}\n"));
        }
        let mut rows = Vec::with_capacity(filtered.len());
        for entry in &filtered {
            let name = quote_name(&entry.name, opts.quoting);
            let entry_path = vfs_join(path, &entry.name);
            rows.push(long_row(ctx, &entry_path, &name, &entry.metadata, opts).await);
        }
        output.push_str(&render_long(&rows));
        for entry in &filtered {
            if opts.recursive
                && entry.metadata.file_type.is_dir()
                && entry.name != "."
                && entry.name != ".."
            {
                subdirs.push((
                    vfs_join(path, &entry.name),
                    format!("{}/{}", display_path, entry.name),
                ));
            }
        }
    } else {
        // Collect entry names for potential column formatting
        let mut names: Vec<String> = Vec::new();
        for entry in &filtered {
            let mut name = quote_name(&entry.name, opts.quoting).into_owned();
            if opts.classify {
                name.push_str(classify_suffix(&entry.metadata));
            }
            names.push(name);
            if opts.recursive
                && entry.metadata.file_type.is_dir()
                && entry.name != "."
                && entry.name != ".."
            {
                subdirs.push((
                    vfs_join(path, &entry.name),
                    format!("{}/{}", display_path, entry.name),
                ));
            }
        }

        // Precedence: -l > -1 > -C > default (one-per-line)
        if opts.columns && !opts.one_per_line {
            output.push_str(&format_columns(&names, 80));
        } else {
            for name in &names {
                output.push_str(name);
                output.push('\n');
            }
        }
    }

    // Recursive listing
    if opts.recursive {
        for (subpath, display) in subdirs {
            // Box the future to avoid infinite recursion type size
            Box::pin(list_directory(
                ctx, &subpath, &display, output, opts, true, true,
            ))
            .await?;
        }
    }

    Ok(())
}

/// One `ls -l` line before its columns are aligned: GNU's mode, link count, owner, group,
/// size, date and name (with `-> target` and the `-F` suffix).
pub(super) struct LongRow {
    mode: String,
    links: u64,
    size: String,
    date: String,
    name: String,
}

/// The row of one entry at `path`.
async fn long_row(
    ctx: &Context<'_>,
    path: &Path,
    name: &str,
    metadata: &crate::fs::Metadata,
    opts: &LsOptions,
) -> LongRow {
    let mut name = name.to_string();
    if metadata.file_type.is_symlink()
        && let Ok(target) = ctx.fs.read_link(path).await
    {
        name.push_str(&format!(" -> {}", target.display()));
    }
    if opts.classify {
        name.push_str(classify_suffix(metadata));
    }
    // A folder's links: its own entry, its `.`, and each subfolder's `..`.
    let links = if metadata.file_type.is_dir() {
        let subdirs = match ctx.fs.read_dir(path).await {
            Ok(entries) => entries
                .iter()
                .filter(|e| e.metadata.file_type.is_dir())
                .count(),
            Err(_) => 0,
        };
        2 + subdirs as u64
    } else {
        1
    };
    let size = if metadata.file_type.is_dir() && metadata.size == 0 {
        4096
    } else {
        metadata.size
    };
    LongRow {
        mode: mode_string(metadata),
        links,
        size: if opts.human {
            gnu_human(size)
        } else {
            size.to_string()
        },
        date: gnu_date(metadata.modified),
        name,
    }
}

/// Rows as GNU prints them: the link counts and sizes right-aligned to the widest, the
/// owner and group (one user owns everything: root).
pub(super) fn render_long(rows: &[LongRow]) -> String {
    let links_w = rows
        .iter()
        .map(|r| r.links.to_string().len())
        .max()
        .unwrap_or(1);
    let size_w = rows.iter().map(|r| r.size.len()).max().unwrap_or(1);
    let mut out = String::new();
    for r in rows {
        out.push_str(&format!(
            "{} {:>links_w$} root root {:>size_w$} {} {}\n",
            r.mode, r.links, r.size, r.date, r.name
        ));
    }
    out
}

/// The 1 KiB blocks an entry takes on an ext4 disk, as `total` counts them: whole 4 KiB
/// blocks for a file's bytes, one block for a folder, none for a link.
fn blocks_kib(metadata: &crate::fs::Metadata) -> u64 {
    match metadata.file_type {
        FileType::Directory => 4,
        FileType::Symlink | FileType::Fifo => 0,
        FileType::File => metadata.size.div_ceil(4096) * 4,
    }
}

/// GNU's date column: `Mon DD HH:MM` within the last six months, `Mon DD  YYYY` otherwise
/// (UTC, the container's zone).
fn gnu_date(modified: std::time::SystemTime) -> String {
    let t = crate::time_compat::to_chrono_utc(modified);
    let now = crate::time_compat::to_chrono_utc(std::time::SystemTime::now());
    let half_year = chrono::Duration::seconds(31_556_952 / 2);
    if t > now - half_year && t <= now + chrono::Duration::seconds(1) {
        t.format("%b %e %H:%M").to_string()
    } else {
        t.format("%b %e  %Y").to_string()
    }
}

/// `-h` sizes as GNU prints them: bytes under 1 KiB, else one decimal below 10 and none
/// above, rounded up (`4.0K`, `827`, `1.5M`, `15M`).
fn gnu_human(size: u64) -> String {
    if size < 1024 {
        return size.to_string();
    }
    let mut value = size as f64;
    let mut unit = ' ';
    for u in ['K', 'M', 'G', 'T', 'P'] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    if value < 10.0 {
        let tenths = (value * 10.0).ceil() / 10.0;
        if tenths < 10.0 {
            return format!("{tenths:.1}{unit}");
        }
        return format!("10{unit}");
    }
    format!("{}{unit}", value.ceil() as u64)
}

fn mode_string(metadata: &crate::fs::Metadata) -> String {
    let file_type = match metadata.file_type {
        FileType::Directory => 'd',
        FileType::Symlink => 'l',
        FileType::Fifo => 'p',
        FileType::File => '-',
    };
    let mode = metadata.mode;
    let bit = |mask: u32, c: char| if mode & mask != 0 { c } else { '-' };
    [
        file_type,
        bit(0o400, 'r'),
        bit(0o200, 'w'),
        bit(0o100, 'x'),
        bit(0o040, 'r'),
        bit(0o020, 'w'),
        bit(0o010, 'x'),
        bit(0o004, 'r'),
        bit(0o002, 'w'),
        bit(0o001, 'x'),
    ]
    .iter()
    .collect()
}

/// Return the classify indicator character for a file type.
/// `/` for directories, `*` for executables, `@` for symlinks, `|` for FIFOs.
pub(super) fn classify_suffix(metadata: &crate::fs::Metadata) -> &'static str {
    match metadata.file_type {
        FileType::Directory => "/",
        FileType::Symlink => "@",
        FileType::Fifo => "|",
        FileType::File => {
            // Executable if any execute bit is set
            if metadata.mode & 0o111 != 0 { "*" } else { "" }
        }
    }
}

/// Format entries in column-major order, like `ls -C`.
/// Uses a fixed terminal width (80) since VFS has no real terminal.
/// Per-column widths match GNU coreutils behavior.
pub(super) fn format_columns(entries: &[String], terminal_width: usize) -> String {
    if entries.is_empty() {
        return String::new();
    }

    // Try fitting as many columns as possible, starting from the maximum
    let max_width = entries.iter().map(|e| e.len()).max().unwrap_or(0);
    let max_possible_cols = (terminal_width / (max_width.min(1) + 2)).max(1);

    let mut num_cols = 1;
    let mut col_widths: Vec<usize> = vec![0];
    let mut num_rows = entries.len();

    // Try increasing column counts to find the best fit
    for try_cols in 2..=max_possible_cols.min(entries.len()) {
        let try_rows = entries.len().div_ceil(try_cols);
        // Calculate per-column widths (max entry width in each column)
        let mut widths = vec![0usize; try_cols];
        for (i, entry) in entries.iter().enumerate() {
            let col = i / try_rows;
            if col < try_cols {
                widths[col] = widths[col].max(entry.len());
            }
        }
        // Total width: each column except last gets 2-space padding
        let total: usize = widths.iter().sum::<usize>() + (try_cols - 1) * 2;
        if total <= terminal_width {
            num_cols = try_cols;
            col_widths = widths;
            num_rows = try_rows;
        }
    }

    let mut output = String::new();
    for row in 0..num_rows {
        for (col, col_w) in col_widths.iter().enumerate() {
            // Column-major order: fill columns top-to-bottom, left-to-right
            let idx = col * num_rows + row;
            if idx < entries.len() {
                let is_last = col == num_cols - 1 || idx + num_rows >= entries.len();
                if is_last {
                    output.push_str(&entries[idx]);
                } else {
                    let width = col_w + 2; // entry width + 2 spaces
                    output.push_str(&format!("{:<width$}", entries[idx], width = width));
                }
            }
        }
        output.push('\n');
    }
    output
}
