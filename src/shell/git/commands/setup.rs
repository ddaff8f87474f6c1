//! `git init` and `git config`.

use super::super::config::{ConfigFile, Key};
use super::super::files::{normalize, root_of};
use super::super::refs::valid_ref_name;
use super::super::repo::{Invocation, check_inside};
use super::super::{GitError, Output};
use super::args::unknown_option;

const CONFIG: &str = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

const DESCRIPTION: &str =
    "Unnamed repository; edit this file 'description' to name the repository.\n";

const EXCLUDE: &str = "# git ls-files --others --exclude-from=.git/info/exclude\n\
# Lines that start with '#' are comments.\n\
# For a project mostly in C, the following would be a good set of\n\
# exclude patterns (uncomment them if you want to use them):\n\
# *.[oa]\n\
# *~\n";

/// `git init [-q] [-b NAME | --initial-branch=NAME] [DIR]`.
pub(super) async fn init(inv: Invocation, args: &[String]) -> Result<Output, GitError> {
    let (quiet, branch, dir) = parse_init_options(args)?;
    let top = match &dir {
        Some(d) => normalize(&inv.cwd, d),
        None => inv.cwd.clone(),
    };
    check_inside(&top)?;
    if root_of(&top).is_none() {
        return Err(GitError::Outside(top));
    }
    let files = &inv.files;
    files.mkdirs(&top).await?;
    let git_dir = format!("{top}/.git");
    let again = files.is_dir(&format!("{git_dir}/objects")).await?
        && files.lstat(&format!("{git_dir}/HEAD")).await?.is_some();
    for d in [
        "objects/info",
        "objects/pack",
        "refs/heads",
        "refs/tags",
        "info",
        "hooks",
        "branches",
    ] {
        files.mkdirs(&format!("{git_dir}/{d}")).await?;
    }
    if !again {
        write_new_repo(&inv, &git_dir, branch.clone()).await?;
    }
    let mut o = Output::default();
    if again && branch.is_some() {
        o.err(format!(
            "warning: re-init: ignored --initial-branch={}\n",
            branch.unwrap_or_default()
        ));
    }
    if !quiet {
        let word = if again {
            "Reinitialized existing"
        } else {
            "Initialized empty"
        };
        o.out(format!("{word} Git repository in {git_dir}/\n"));
    }
    Ok(o)
}

/// `-q`, the initial branch, and the folder.
fn parse_init_options(args: &[String]) -> Result<(bool, Option<String>, Option<String>), GitError> {
    let (mut quiet, mut branch, mut dir) = (false, None, None);
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if let Some(v) = super::args::option_value(args, &mut i, "--initial-branch", Some("-b"))? {
            branch = Some(v);
        } else {
            match a {
                "-q" | "--quiet" => quiet = true,
                "--bare" => {
                    return Err(GitError::Failed {
                        text: "fatal: bare repositories are not supported in this sandbox\n".into(),
                        code: 128,
                    });
                }
                a if a.starts_with("--template") || a.starts_with("--shared") => {}
                a if a.starts_with('-') => return Err(unknown_option("init", a)),
                a => {
                    if dir.is_some() {
                        return Err(GitError::Usage(
                            "usage: git init [-q | --quiet] [--bare] [-b <branch-name>] [<directory>]\n".into(),
                        ));
                    }
                    dir = Some(a.to_string());
                }
            }
        }
        i += 1;
    }
    Ok((quiet, branch, dir))
}

/// The files of a new repository: `HEAD` on the initial branch, `config`, `description` and
/// `info/exclude`.
async fn write_new_repo(
    inv: &Invocation,
    git_dir: &str,
    branch: Option<String>,
) -> Result<(), GitError> {
    let files = &inv.files;
    let base = inv.base_config().await?;
    let name = branch
        .or_else(|| base.get("init.defaultBranch").map(str::to_string))
        .unwrap_or_else(|| "master".into());
    if !valid_ref_name(&name) {
        return Err(GitError::Fatal(format!(
            "invalid initial branch name: '{name}'"
        )));
    }
    files
        .write(
            &format!("{git_dir}/HEAD"),
            format!("ref: refs/heads/{name}\n").as_bytes(),
        )
        .await?;
    files
        .write(&format!("{git_dir}/config"), CONFIG.as_bytes())
        .await?;
    files
        .write(&format!("{git_dir}/description"), DESCRIPTION.as_bytes())
        .await?;
    files
        .write(&format!("{git_dir}/info/exclude"), EXCLUDE.as_bytes())
        .await?;
    Ok(())
}

/// What `git config` was asked to do.
#[derive(Default)]
struct ConfigOptions {
    global: bool,
    local: bool,
    list: bool,
    get: bool,
    unset: bool,
    add: bool,
    get_all: bool,
    /// The key and the value.
    rest: Vec<String>,
}

/// `git config [--global|--local] [--get|--get-all|--unset|--add|--list] KEY [VALUE]`.
pub(super) async fn config(inv: Invocation, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_config_options(args)?;
    let (global, local, rest) = (opts.global, opts.local, &opts.rest);
    let global_path = inv.global_config_path();
    let local_path = inv.find().await.ok().map(|(g, _)| format!("{g}/config"));
    // What is read: one file with a scope, else global, repository, then `-c` values.
    let mut seen: Vec<(String, String)> = Vec::new();
    if !local {
        seen.extend(read_config(&inv, global_path.clone()).await?.entries());
    }
    if !global && let Some(p) = &local_path {
        if local {
            seen.clear();
        }
        seen.extend(read_config(&inv, p.clone()).await?.entries());
    }
    if !global && !local {
        seen.extend(inv.overrides.iter().cloned());
    }
    if opts.list {
        let text: String = seen.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        return Ok(Output::stdout(text));
    }
    let Some(key_text) = rest.first() else {
        return Err(GitError::Usage(
            "usage: git config [<options>] <name> [<value>]\n".into(),
        ));
    };
    let key = Key::parse(key_text).ok_or_else(|| GitError::Failed {
        text: format!("error: invalid key: {key_text}\n"),
        code: 1,
    })?;
    let writing = opts.unset || (rest.len() > 1 && !opts.get && !opts.get_all);
    if !writing {
        return config_values(&seen, &key, opts.get_all);
    }
    let path = if global {
        check_inside(&global_path)?;
        global_path
    } else {
        local_path.ok_or_else(|| GitError::Fatal("not in a git directory".into()))?
    };
    let mut file = read_config(&inv, path.clone()).await?;
    if opts.unset {
        if file.unset(&key) == 0 {
            return Err(GitError::Failed {
                text: String::new(),
                code: 5,
            });
        }
    } else {
        file.set(&key, &rest[1], opts.add);
    }
    if let Some((dir, _)) = path.rsplit_once('/')
        && !dir.is_empty()
    {
        inv.files.mkdirs(dir).await?;
    }
    inv.files
        .write_atomic(&path, file.text().as_bytes())
        .await?;
    Ok(Output::default())
}

fn parse_config_options(args: &[String]) -> Result<ConfigOptions, GitError> {
    let mut o = ConfigOptions::default();
    for a in args {
        match a.as_str() {
            "--global" => o.global = true,
            "--local" => o.local = true,
            "--system" => {
                return Err(GitError::Failed {
                    text: "error: the system config file cannot be used in this sandbox (use --global or the repository's config)\n".into(),
                    code: 1,
                });
            }
            "-l" | "--list" => o.list = true,
            "--get" => o.get = true,
            "--get-all" => o.get_all = true,
            "--unset" | "--unset-all" => o.unset = true,
            "--add" => o.add = true,
            "--replace-all" | "--bool" | "--int" | "--path" | "--type=bool" | "--type=int"
            | "--type=path" | "--no-includes" => {}
            a if a.starts_with('-') => return Err(unknown_option("config", a)),
            a => o.rest.push(a.to_string()),
        }
    }
    Ok(o)
}

/// A config file, empty when it is missing or outside the sandbox's roots.
async fn read_config(inv: &Invocation, path: String) -> Result<ConfigFile, GitError> {
    if root_of(&path).is_none() {
        return Ok(ConfigFile::default());
    }
    Ok(inv
        .files
        .read_opt(&path)
        .await?
        .map(|t| ConfigFile::parse(&String::from_utf8_lossy(&t)))
        .unwrap_or_default())
}

/// `--get` (the last value) or `--get-all` of `key` among the values read; exit code 1 and
/// no output when there is none.
fn config_values(seen: &[(String, String)], key: &Key, get_all: bool) -> Result<Output, GitError> {
    let values: Vec<&String> = seen
        .iter()
        .filter(|(k, _)| Key::parse(k).is_some_and(|k| k.text() == key.text()))
        .map(|(_, v)| v)
        .collect();
    let Some(last) = values.last() else {
        return Err(GitError::Failed {
            text: String::new(),
            code: 1,
        });
    };
    let text = if get_all {
        values.iter().map(|v| format!("{v}\n")).collect()
    } else {
        format!("{last}\n")
    };
    Ok(Output::stdout(text))
}
