//! `python3 ...` command lines, parsed the way CPython's launcher reads them.

/// What a `python3` command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Invocation {
    /// `python3 -c CODE args...`
    Code {
        /// The program text.
        code: String,
        /// `sys.argv[1:]`.
        args: Vec<String>,
    },
    /// `python3 -m MODULE args...`
    Module {
        /// The module to run as `__main__`.
        module: String,
        /// `sys.argv[1:]`.
        args: Vec<String>,
    },
    /// `python3 FILE args...` (FILE relative to the working directory)
    File {
        /// The script path as given.
        path: String,
        /// `sys.argv[1:]`.
        args: Vec<String>,
    },
    /// `python3`, `python3 -`, `... | python3`: the program is read from stdin.
    Stdin {
        /// `sys.argv[0]`: `-` when given, else empty.
        argv0: String,
        /// `sys.argv[1:]`.
        args: Vec<String>,
    },
    /// `python3 -V` / `--version`.
    Version,
    /// `python3 -h` / `--help`.
    Help,
}

/// A command line CPython would refuse; the message is what the shell should print (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Options that take a value and only tune the interpreter; accepted and ignored.
const OPTIONS_WITH_VALUE: &[&str] = &["-W", "-X", "--check-hash-based-pycs"];

impl Invocation {
    /// Parse the arguments after the program name.
    ///
    /// # Errors
    /// [`UsageError`] for an unknown option or a missing option value.
    pub fn parse(args: &[String]) -> Result<Invocation, UsageError> {
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            let rest = || args[i + 1..].to_vec();
            match a {
                "-c" | "-m" => {
                    let Some(value) = args.get(i + 1) else {
                        return Err(UsageError(format!("Argument expected for the {a} option")));
                    };
                    let args = args[i + 2..].to_vec();
                    return Ok(if a == "-c" {
                        Invocation::Code {
                            code: value.clone(),
                            args,
                        }
                    } else {
                        Invocation::Module {
                            module: value.clone(),
                            args,
                        }
                    });
                }
                "-" => {
                    return Ok(Invocation::Stdin {
                        argv0: "-".into(),
                        args: rest(),
                    });
                }
                "-V" | "--version" => return Ok(Invocation::Version),
                "-h" | "--help" | "-?" => return Ok(Invocation::Help),
                "--" => {
                    return Ok(match args.get(i + 1) {
                        Some(path) => Invocation::File {
                            path: path.clone(),
                            args: args[i + 2..].to_vec(),
                        },
                        None => Invocation::Stdin {
                            argv0: String::new(),
                            args: Vec::new(),
                        },
                    });
                }
                _ if OPTIONS_WITH_VALUE.contains(&a) => {
                    if i + 1 >= args.len() {
                        return Err(UsageError(format!("Argument expected for the {a} option")));
                    }
                    i += 2;
                }
                _ if a.starts_with("-c") && a.len() > 2 => {
                    return Ok(Invocation::Code {
                        code: a[2..].to_string(),
                        args: rest(),
                    });
                }
                _ if a.starts_with("-m") && a.len() > 2 => {
                    return Ok(Invocation::Module {
                        module: a[2..].to_string(),
                        args: rest(),
                    });
                }
                _ if a.starts_with("-W") || a.starts_with("-X") => i += 1,
                _ if a.starts_with("--") => {
                    return Err(UsageError(format!(
                        "unknown option {a}\nusage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ..."
                    )));
                }
                _ if a.starts_with('-') && a.len() > 1 => {
                    // Bundled single-letter flags such as -u, -B, -E, -I, -s, -S, -O, -q, -i.
                    if let Some(bad) = a[1..].chars().find(|c| !"bBdEiIOPqsSuvx".contains(*c)) {
                        return Err(UsageError(format!(
                            "Unknown option: -{bad}\nusage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ..."
                        )));
                    }
                    i += 1;
                }
                _ => {
                    return Ok(Invocation::File {
                        path: a.to_string(),
                        args: rest(),
                    });
                }
            }
        }
        Ok(Invocation::Stdin {
            argv0: String::new(),
            args: Vec::new(),
        })
    }

    /// Whether the program text comes from stdin (so stdin is not also the program's input).
    pub fn reads_program_from_stdin(&self) -> bool {
        matches!(self, Invocation::Stdin { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Invocation, UsageError> {
        Invocation::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn parses_the_common_forms() {
        assert_eq!(
            p(&["-u", "-c", "print(1)", "a", "-x"]).ok(),
            Some(Invocation::Code {
                code: "print(1)".into(),
                args: vec!["a".into(), "-x".into()]
            })
        );
        assert_eq!(
            p(&["-m", "json.tool", "f.json"]).ok(),
            Some(Invocation::Module {
                module: "json.tool".into(),
                args: vec!["f.json".into()]
            })
        );
        assert_eq!(
            p(&["-W", "ignore", "s.py", "-c"]).ok(),
            Some(Invocation::File {
                path: "s.py".into(),
                args: vec!["-c".into()]
            })
        );
        assert_eq!(
            p(&["-"]).ok(),
            Some(Invocation::Stdin {
                argv0: "-".into(),
                args: vec![]
            })
        );
        assert!(matches!(p(&[]), Ok(Invocation::Stdin { .. })));
        assert_eq!(p(&["--version"]).ok(), Some(Invocation::Version));
    }

    #[test]
    fn refuses_bad_options() {
        assert!(p(&["-c"]).is_err());
        assert!(p(&["-Z"]).is_err());
        assert!(p(&["--frobnicate"]).is_err());
    }
}
