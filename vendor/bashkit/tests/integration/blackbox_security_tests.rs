//! Blackbox Security Tests for Bashkit
//!
//! Exploratory blackbox security testing — probing the interpreter as a hostile
//! attacker would, without relying on source code knowledge. Each test exercises
//! a specific abuse vector.
//!
//! Tests marked `#[ignore]` document confirmed security findings that currently
//! reproduce. They are tracked via GitHub issues and threat model IDs.
//!
//! Run passing tests: `cargo test --test blackbox_security_tests`
//! Run all (including findings): `cargo test --test blackbox_security_tests -- --ignored`

#![allow(unused_variables, clippy::single_match, clippy::match_single_binding)]

use bashkit::{Bash, ExecutionLimits};
use std::time::{Duration, Instant};

/// Helper: build a bash instance with tight resource limits
fn tight_bash() -> Bash {
    Bash::builder()
        .limits(
            ExecutionLimits::new()
                .max_commands(500)
                .max_loop_iterations(100)
                .max_total_loop_iterations(500)
                .max_function_depth(20)
                .max_subst_depth(15)
                .timeout(Duration::from_secs(5)),
        )
        .build()
}

/// Helper: build a bash with very tight limits for DoS testing
fn dos_bash() -> Bash {
    Bash::builder()
        .limits(
            ExecutionLimits::new()
                .max_commands(50)
                .max_loop_iterations(10)
                .max_total_loop_iterations(50)
                .max_function_depth(5)
                .max_subst_depth(3)
                .timeout(Duration::from_secs(3)),
        )
        .build()
}

// =============================================================================
// FINDING 1: STACK OVERFLOW — NESTED COMMAND SUBSTITUTION
// Threat: TM-DOS-044 (regression — was marked fixed via #492)
// Issue: Deeply nested $(echo $(...)) at depth ~50 causes stack overflow.
// The lexer fix in #492 may not cover the interpreter execution path.
// =============================================================================

mod finding_nested_cmd_subst_stack_overflow {
    use super::*;

    /// TM-DOS-044: depth-50 nested command substitution is bounded.
    #[tokio::test]
    async fn depth_50_is_bounded() {
        let mut bash = tight_bash();
        let depth = 50;
        let mut cmd = "echo hello".to_string();
        for _ in 0..depth {
            cmd = format!("echo $({})", cmd);
        }
        let result = bash.exec(&cmd).await;
        match &result {
            Ok(r) => assert!(!r.stdout.is_empty() || r.exit_code != 0),
            Err(_) => {}
        }
    }

    /// Moderate nesting (depth 10) works fine — confirms the boundary.
    #[tokio::test]
    async fn depth_10_works() {
        let mut bash = tight_bash();
        let depth = 10;
        let mut cmd = "echo hello".to_string();
        for _ in 0..depth {
            cmd = format!("echo $({})", cmd);
        }
        let result = bash.exec(&cmd).await;
        match &result {
            Ok(r) => assert!(!r.stdout.is_empty()),
            Err(_) => {}
        }
    }
    #[tokio::test]
    async fn hard_ast_cap_rejects_substitutions_and_session_recovers() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().max_ast_depth(usize::MAX))
            .build();
        let mut script = String::from("echo deep > /should-not-exist");
        for _ in 0..120 {
            script = format!("echo $({script})");
        }
        let diagnostic = match bash.exec(&script).await {
            Ok(result) => {
                assert_eq!(result.exit_code, 2);
                assert!(result.stdout.is_empty());
                result.stderr.to_string()
            }
            Err(err) => err.to_string(),
        };
        assert!(diagnostic.contains("AST nesting too deep"), "{diagnostic}");
        assert!(
            !bash
                .fs()
                .exists(std::path::Path::new("/should-not-exist"))
                .await
                .unwrap()
        );
        assert_eq!(
            bash.exec("echo recovered").await.unwrap().stdout,
            "recovered\n"
        );
    }

    #[tokio::test]
    async fn moderate_substitutions_match_real_bash() {
        for template in [
            "echo $(BODY)",
            "x=$(BODY); echo \"$x\"",
            "echo $(true; BODY)",
        ] {
            let mut script = String::from("echo hello");
            for _ in 0..6 {
                script = template.replace("BODY", &script);
            }
            let reference = std::process::Command::new("/bin/bash")
                .args(["--noprofile", "--norc", "-c", &script])
                .output()
                .unwrap();
            assert!(reference.status.success());
            let result = tight_bash().exec(&script).await.unwrap();
            assert_eq!(result.exit_code, 0);
            assert_eq!(result.stdout.as_bytes(), reference.stdout, "{template}");
            assert_eq!(result.stderr.as_bytes(), reference.stderr, "{template}");
        }
    }
}

// =============================================================================
// FINDING 2: STACK OVERFLOW — SOURCE SELF-RECURSION
// Threat: TM-DOS-056 (new)
// Issue: A script that sources itself causes unbounded recursion.
// Function depth limit does not apply to source/. commands.
// =============================================================================

mod finding_source_recursion_stack_overflow {
    use super::*;

    /// TM-DOS-056: source self-recursion hits depth limit instead of stack overflow.
    #[tokio::test]
    async fn source_self_recursion_hits_depth_limit() {
        let mut bash = dos_bash();
        let _ = bash
            .exec("echo 'source /tmp/recurse.sh' > /tmp/recurse.sh")
            .await;
        let result = bash.exec("source /tmp/recurse.sh").await;
        assert!(result.is_err(), "Self-sourcing must hit recursion limit");
    }

    /// TM-DOS-056: mutual recursion via source also hits depth limit.
    #[tokio::test]
    async fn source_mutual_recursion_hits_depth_limit() {
        let mut bash = dos_bash();
        let _ = bash
            .exec("echo 'source /tmp/recurse_b.sh' > /tmp/recurse_a.sh")
            .await;
        let _ = bash
            .exec("echo 'source /tmp/recurse_a.sh' > /tmp/recurse_b.sh")
            .await;
        let result = bash.exec("source /tmp/recurse_a.sh").await;
        assert!(
            result.is_err(),
            "Mutual source recursion must hit depth limit"
        );
    }
}

// =============================================================================
// FINDING 3: TIMEOUT BYPASS VIA SLEEP
// Threat: TM-DOS-057 (new)
// Issue: sleep in subshell, pipeline, or background+wait ignores execution
// timeout. The timeout mechanism doesn't propagate to these contexts.
// =============================================================================

mod finding_timeout_bypass {
    use super::*;

    /// TM-DOS-057: sleep in subshell respects execution timeout.
    #[tokio::test]
    async fn subshell_sleep_respects_timeout() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(2)))
            .build();
        let start = Instant::now();
        let result = bash.exec("(sleep 100)").await;
        let elapsed = start.elapsed();
        assert!(result.is_err(), "Should return timeout error");
        assert!(
            elapsed < Duration::from_secs(5),
            "Subshell sleep should respect timeout: took {:?}",
            elapsed
        );
    }

    /// TM-DOS-057: sleep in pipeline respects execution timeout.
    #[tokio::test]
    async fn pipeline_sleep_respects_timeout() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(2)))
            .build();
        let start = Instant::now();
        let result = bash.exec("echo x | sleep 100").await;
        let elapsed = start.elapsed();
        assert!(result.is_err(), "Should return timeout error");
        assert!(
            elapsed < Duration::from_secs(5),
            "Pipeline sleep should respect timeout: took {:?}",
            elapsed
        );
    }

    /// TM-DOS-057: sleep in background + wait respects execution timeout.
    #[tokio::test]
    async fn background_sleep_wait_respects_timeout() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(2)))
            .build();
        let start = Instant::now();
        let result = bash.exec("sleep 100 &\nwait").await;
        let elapsed = start.elapsed();
        assert!(result.is_err(), "Should return timeout error");
        assert!(
            elapsed < Duration::from_secs(5),
            "Background sleep+wait should respect timeout: took {:?}",
            elapsed
        );
    }

    /// TM-DOS-057: timeout builtin cannot override execution timeout.
    #[tokio::test]
    async fn timeout_builtin_cannot_override_execution_timeout() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(3)))
            .build();
        let start = Instant::now();
        let result = bash.exec("timeout 3600 sleep 3600").await;
        let elapsed = start.elapsed();
        assert!(result.is_err(), "Should return timeout error");
        assert!(
            elapsed < Duration::from_secs(6),
            "timeout builtin should not override execution timeout: {:?}",
            elapsed
        );
    }

    /// TM-DOS-057: direct sleep respects execution timeout.
    #[tokio::test]
    async fn direct_sleep_respects_timeout() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(2)))
            .build();
        let start = Instant::now();
        let result = bash.exec("sleep 100").await;
        let elapsed = start.elapsed();
        assert!(result.is_err(), "Should return timeout error");
        assert!(
            elapsed < Duration::from_secs(5),
            "Direct sleep should respect timeout: took {:?}",
            elapsed
        );
    }
}

// =============================================================================
// FINDING 4: READONLY BYPASS
// Threats: TM-INJ-019, TM-INJ-020, TM-INJ-021 (new)
// Issue: readonly variables can be overwritten via unset, declare, and export.
// =============================================================================

mod finding_readonly_bypass {
    use super::*;

    /// TM-INJ-019: unset cannot remove readonly variables.
    #[tokio::test]
    async fn unset_cannot_remove_readonly() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=secret_value
                unset LOCKED 2>/dev/null
                echo "LOCKED=$LOCKED"
                LOCKED=overwritten 2>/dev/null
                echo "LOCKED=$LOCKED"
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stdout.contains("LOCKED=secret_value"),
            "readonly was bypassed via unset"
        );
    }

    /// Issue #1006: unset _READONLY_* marker cannot bypass readonly protection.
    #[tokio::test]
    async fn unset_readonly_marker_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly IMPORTANT=secret
                unset _READONLY_IMPORTANT 2>/dev/null
                IMPORTANT=hacked 2>/dev/null
                echo "IMPORTANT=$IMPORTANT"
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stdout.contains("IMPORTANT=secret"),
            "readonly was bypassed by unsetting _READONLY_ marker, got: {}",
            result.stdout
        );
    }

    /// Unset of normal non-readonly variables still works.
    #[tokio::test]
    async fn unset_normal_variable_works() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                FOO=hello
                unset FOO
                echo "FOO=${FOO:-empty}"
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stdout.contains("FOO=empty"),
            "expected FOO to be unset, got: {}",
            result.stdout
        );
    }

    /// TM-INJ-020: declare cannot overwrite readonly variables.
    #[tokio::test]
    async fn declare_cannot_overwrite_readonly() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                declare LOCKED=overwritten 2>/dev/null
                echo "$LOCKED"
                "#,
            )
            .await
            .unwrap();
        assert_eq!(
            result.stdout.trim(),
            "original",
            "readonly bypassed via declare"
        );
    }

    /// TM-INJ-021: export cannot overwrite readonly variables.
    #[tokio::test]
    async fn export_cannot_overwrite_readonly() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                export LOCKED=overwritten 2>/dev/null
                echo "$LOCKED"
                "#,
            )
            .await
            .unwrap();
        assert_eq!(
            result.stdout.trim(),
            "original",
            "readonly bypassed via export"
        );
    }

    /// TM-INJ-019: unset on a readonly variable reports the error and exits 1.
    /// Value preservation is already covered above; this guards against silent skips.
    #[tokio::test]
    async fn unset_readonly_reports_error_and_exit_1() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=v
                unset LOCKED
                echo "exit=$?"
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stderr.contains("LOCKED") && result.stderr.contains("readonly"),
            "expected stderr to mention readonly, got: {:?}",
            result.stderr
        );
        assert!(
            result.stdout.contains("exit=1"),
            "expected unset to exit 1, got: {:?}",
            result.stdout
        );
    }

    /// TM-INJ-020: declare on a readonly variable reports the error and exits 1.
    #[tokio::test]
    async fn declare_readonly_reports_error_and_exit_1() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                declare LOCKED=overwritten
                echo "exit=$?"
                echo "value=$LOCKED"
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stderr.contains("declare")
                && result.stderr.contains("LOCKED")
                && result.stderr.contains("readonly"),
            "expected stderr to mention declare/readonly, got: {:?}",
            result.stderr
        );
        assert!(
            result.stdout.contains("exit=1"),
            "expected declare to exit 1, got: {:?}",
            result.stdout
        );
        assert!(
            result.stdout.contains("value=original"),
            "value must be preserved, got: {:?}",
            result.stdout
        );
    }

    /// TM-INJ-021: export on a readonly variable reports the error and exits 1.
    #[tokio::test]
    async fn export_readonly_reports_error_and_exit_1() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                export LOCKED=overwritten
                echo "exit=$?"
                echo "value=$LOCKED"
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stderr.contains("export")
                && result.stderr.contains("LOCKED")
                && result.stderr.contains("readonly"),
            "expected stderr to mention export/readonly, got: {:?}",
            result.stderr
        );
        assert!(
            result.stdout.contains("exit=1"),
            "expected export to exit 1, got: {:?}",
            result.stdout
        );
        assert!(
            result.stdout.contains("value=original"),
            "value must be preserved, got: {:?}",
            result.stdout
        );
    }

    /// declare/export must keep processing remaining args even after a readonly hit.
    #[tokio::test]
    async fn declare_continues_after_readonly_error() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                declare LOCKED=skip OTHER=ok
                echo "exit=$?"
                echo "locked=$LOCKED"
                echo "other=$OTHER"
                "#,
            )
            .await
            .unwrap();
        assert!(result.stdout.contains("locked=original"));
        assert!(result.stdout.contains("other=ok"));
        assert!(result.stdout.contains("exit=1"));
    }

    /// export must still sync successful operands into env after a readonly error.
    #[tokio::test]
    async fn export_continues_after_readonly_error_and_exports_good_args() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                export LOCKED=skip GOOD=ok
                echo "exit=$?"
                printenv GOOD
                "#,
            )
            .await
            .unwrap();
        assert!(result.stdout.contains("exit=1"));
        assert!(result.stdout.contains("ok"));
    }

    /// export with invalid identifier must continue processing later valid operands.
    #[tokio::test]
    async fn export_continues_after_invalid_identifier_and_exports_good_args() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                GOOD=old
                export 1BAD=x GOOD=new
                echo "exit=$?"
                echo "var=$GOOD"
                printenv GOOD
                "#,
            )
            .await
            .unwrap();
        assert!(result.stdout.contains("exit=1"));
        assert!(result.stdout.contains("var=new"));
        assert!(result.stdout.contains("new"));
    }

    /// Non-finding: readonly via local in function is bash-compatible shadowing.
    #[tokio::test]
    async fn local_shadows_readonly_in_function() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                readonly LOCKED=original
                f() { local LOCKED=overwritten; echo "$LOCKED"; }
                f
                echo "$LOCKED"
                "#,
            )
            .await
            .unwrap();
        // In bash, local CAN shadow readonly in function scope.
        // After function returns, LOCKED should still be original.
        assert!(
            result.stdout.trim().ends_with("original"),
            "readonly not restored after function: got {}",
            result.stdout.trim()
        );
    }
}

// =============================================================================
// FINDING 5: STATE ISOLATION — TRAPS LEAK ACROSS exec()
// Threat: TM-ISO-021 (new)
// Issue: EXIT trap set in one exec() fires in subsequent exec() calls.
// =============================================================================

mod finding_trap_leak {
    use super::*;

    /// TM-ISO-005: EXIT trap from one exec() does not fire in the next exec().
    #[tokio::test]
    async fn exit_trap_does_not_leak_between_exec() {
        let mut bash = tight_bash();
        let _ = bash.exec("trap 'echo LEAKED_TRAP' EXIT").await.unwrap();
        let result = bash.exec("echo clean_execution").await.unwrap();
        assert!(
            !result.stdout.contains("LEAKED_TRAP"),
            "EXIT trap leaked between exec() calls"
        );
    }
}

// =============================================================================
// FINDING 6: STATE ISOLATION — $? LEAKS ACROSS exec()
// Threat: TM-ISO-022 (new)
// Issue: exit code from one exec() is visible as $? in the next exec().
// =============================================================================

mod finding_exit_code_leak {
    use super::*;

    /// TM-ISO-006: $? from one exec() does not leak into the next.
    #[tokio::test]
    async fn exit_code_does_not_leak_between_exec() {
        let mut bash = tight_bash();
        let _ = bash.exec("exit 42").await.unwrap();
        let result = bash.exec("echo $?").await.unwrap();
        assert_eq!(
            result.stdout.trim(),
            "0",
            "$? leaked across exec() calls: got {}",
            result.stdout.trim()
        );
    }
}

// =============================================================================
// FINDING 7: STATE ISOLATION — set -e LEAKS ACROSS exec()
// Threat: TM-ISO-023 (new)
// Issue: Shell options (set -e) persist across exec() calls.
// =============================================================================

mod finding_shell_options_leak {
    use super::*;

    /// TM-ISO-007: set -e does not persist across exec() calls.
    #[tokio::test]
    async fn set_e_does_not_leak_between_exec() {
        let mut bash = tight_bash();
        let _ = bash.exec("set -e").await;
        let result = bash.exec("false; echo 'survived'").await.unwrap();
        assert!(
            result.stdout.contains("survived"),
            "set -e leaked across exec() calls — false aborted execution"
        );
    }

    /// TM-ISO-023: all `set` short options are per-exec transient state.
    #[tokio::test]
    async fn set_short_flags_do_not_leak_between_exec() {
        let mut bash = tight_bash();
        let result = bash.exec("set -bkm +hB; echo \"$-\"").await.unwrap();
        assert_eq!(result.exit_code, 0, "set -bkm +hB should succeed");
        assert_eq!(result.stdout.trim(), "bkmc");
        // The next exec starts from bash's defaults again (hashall and
        // braceexpand on, the `c` of `bash -c`).
        let result = bash.exec("echo \"$-\"").await.unwrap();
        assert_eq!(
            result.stdout.trim(),
            "hBc",
            "set -b/-k/-m/+h/+B leaked across exec() calls through $-"
        );
    }

    /// TM-ISO-023: unsupported short options must not mint persistent SHOPT_* state.
    #[tokio::test]
    async fn set_invalid_short_option_does_not_create_shopt_state() {
        let mut bash = tight_bash();
        let result = bash.exec("set -Z").await.unwrap();
        assert_eq!(result.exit_code, 2);

        let result = bash.exec("echo \"$SHOPT_Z\"").await.unwrap();
        assert_eq!(
            result.stdout.trim(),
            "",
            "invalid set option created SHOPT_Z state"
        );
    }
}

// =============================================================================
// FINDING 7b: STATE ISOLATION — $? LEAKS INTO VFS SUBPROCESS
// Threat: TM-ISO-024 (new)
// Issue: Within one exec(), the parent's $? leaks into a VFS-script subprocess
// and trips `set -e`.
// =============================================================================

mod finding_subprocess_exit_code_leak {
    use super::*;

    /// TM-ISO-024: $? must reset to 0 inside a VFS-script subprocess regardless
    /// of the parent's last exit code. Otherwise a child running `set -e` aborts
    /// on its first command for no reason.
    #[tokio::test]
    async fn parent_exit_code_does_not_leak_into_subprocess() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                cat > /tmp/child.sh <<'EOF'
#!/bin/bash
echo "child_dollar_q=$?"
EOF
                chmod +x /tmp/child.sh
                false
                /tmp/child.sh
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stdout.contains("child_dollar_q=0"),
            "parent's $?=1 leaked into VFS subprocess; got: {}",
            result.stdout
        );
    }

    /// TM-ISO-024: combined with `set -e`, a leaked parent exit code would abort
    /// the child immediately. This pins that the child runs to completion.
    #[tokio::test]
    async fn set_e_in_subprocess_does_not_trip_on_parent_exit_code() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                cat > /tmp/child.sh <<'EOF'
#!/bin/bash
set -e
echo "child_first_line"
echo "child_second_line"
EOF
                chmod +x /tmp/child.sh
                false
                /tmp/child.sh
                "#,
            )
            .await
            .unwrap();
        assert!(
            result.stdout.contains("child_first_line")
                && result.stdout.contains("child_second_line"),
            "child aborted under set -e; got: {}",
            result.stdout
        );
    }
}

// =============================================================================
// FINDING 8: /dev/urandom RETURNS EMPTY WITH head -c
// Threat: TM-INT-007 (new)
// Issue: head -c N /dev/urandom returns empty output.
// =============================================================================

mod finding_urandom_empty {
    use super::*;

    /// TM-INT-004: /dev/urandom via head -c produces data.
    #[tokio::test]
    async fn urandom_head_c_returns_data() {
        let mut bash = tight_bash();
        let result = bash.exec("head -c 16 /dev/urandom | base64").await.unwrap();
        assert!(
            !result.stdout.trim().is_empty(),
            "/dev/urandom produced empty output"
        );
    }

    /// TM-INT-007: `head -c N /dev/urandom` (path argument form) produces data,
    /// not the empty string the original threat-model entry described.
    /// The byte count via `wc -c` may exceed N because non-ASCII bytes inflate
    /// to multi-byte UTF-8 sequences when stdout is captured as a string;
    /// the safety property is that *some* data flows through.
    #[tokio::test]
    async fn urandom_head_c_path_form_produces_data() {
        let mut bash = tight_bash();
        let result = bash.exec("head -c 16 /dev/urandom | wc -c").await.unwrap();
        let count: usize = result.stdout.trim().parse().unwrap_or(0);
        assert!(
            count >= 16,
            "head -c 16 /dev/urandom must produce at least 16 bytes of stdout, got: {:?}",
            result.stdout
        );
    }

    /// TM-INT-007: `cat /dev/urandom | head -c N` (pipe form) does not lose
    /// data — pipe forwarding from a virtual device into a builtin must
    /// produce non-empty stdout.
    #[tokio::test]
    async fn urandom_pipe_into_head_c_produces_data() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat /dev/urandom | head -c 16 | wc -c")
            .await
            .unwrap();
        let count: usize = result.stdout.trim().parse().unwrap_or(0);
        assert!(
            count >= 16,
            "cat /dev/urandom | head -c 16 must produce at least 16 bytes, got: {:?}",
            result.stdout
        );
    }
}

// =============================================================================
// FINDING 9: seq PRODUCES UNBOUNDED OUTPUT (relates to #648)
// Threat: TM-DOS-058 (new — specific instance of missing output limits)
// Issue: seq 1 1000000 produces 1M lines despite 50-command limit.
// Related to #648 (feat: add stdout/stderr output capture size limits).
// =============================================================================

mod finding_seq_output_dos {
    use super::*;

    /// TM-DOS-058: seq output is bounded even with large range.
    #[tokio::test]
    async fn seq_output_is_bounded() {
        let mut bash = dos_bash();
        let result = bash.exec("seq 1 1000000").await;
        match &result {
            Ok(r) => {
                // Output should be truncated: max 100K iterations or 1MB output
                assert!(
                    r.stdout.len() <= 1_200_000,
                    "seq output too large: {} bytes",
                    r.stdout.len()
                );
                let lines = r.stdout.lines().count();
                assert!(lines <= 100_001, "seq produced too many lines: {}", lines);
            }
            Err(_) => {} // timeout is also acceptable
        }
    }
}

// =============================================================================
// NON-FINDING TESTS — PASSING SECURITY PROBES
// These tests verify that security controls ARE working correctly.
// Organized by attack category.
// =============================================================================

mod resource_exhaustion_passing {
    use super::*;

    /// Eval chains respect command limits
    #[tokio::test]
    async fn eval_chain_respects_command_limits() {
        let mut bash = dos_bash();
        let result = bash
            .exec(r#"eval 'eval "eval \"eval \\\"for i in $(seq 1 1000); do echo x; done\\\"\""'"#)
            .await;
        match &result {
            Ok(r) => {
                let lines = r.stdout.lines().count();
                assert!(lines <= 50, "eval chain produced {} lines", lines);
            }
            Err(_) => {}
        }
    }

    /// Nested function loops respect limits
    #[tokio::test]
    async fn nested_function_loop_limits() {
        let mut bash = dos_bash();
        let result = bash
            .exec(
                r#"
                f() { for i in 1 2 3 4 5 6 7 8 9 10 11; do echo "$1:$i"; done; }
                g() { f a; f b; f c; f d; f e; }
                g
                "#,
            )
            .await;
        match &result {
            Ok(r) => {
                let lines = r.stdout.lines().count();
                assert!(
                    lines <= 50,
                    "Nested function loops produced {} lines",
                    lines
                );
            }
            Err(_) => {}
        }
    }

    /// Exponential variable expansion doesn't OOM
    #[tokio::test]
    async fn exponential_variable_expansion() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                a="AAAAAAAAAA"
                b="$a$a$a$a$a$a$a$a$a$a"
                c="$b$b$b$b$b$b$b$b$b$b"
                d="$c$c$c$c$c$c$c$c$c$c"
                echo ${#d}
                "#,
            )
            .await;
        match &result {
            Ok(r) => {
                let len: usize = r.stdout.trim().parse().unwrap_or(0);
                assert!(len <= 100_000_000, "Variable grew to {} chars", len);
            }
            Err(_) => {}
        }
    }

    /// Recursive function via alias hits depth limit
    #[tokio::test]
    async fn recursive_function_via_alias() {
        let mut bash = dos_bash();
        let result = bash
            .exec(
                r#"
                shopt -s expand_aliases
                alias boom='f'
                f() { boom; }
                f
                "#,
            )
            .await;
        assert!(
            result.is_err() || result.unwrap().exit_code != 0,
            "Recursive alias should hit depth limit"
        );
    }

    /// Mutual recursion hits depth limit
    #[tokio::test]
    async fn mutual_recursion_depth_limit() {
        let mut bash = dos_bash();
        let result = bash.exec("ping() { pong; }\npong() { ping; }\nping").await;
        assert!(result.is_err(), "Mutual recursion must hit depth limit");
    }

    /// Fork bomb pattern caught by limits
    #[tokio::test]
    async fn fork_bomb_pattern() {
        let mut bash = dos_bash();
        let result = bash.exec(r#":(){ :|:& };:"#).await;
        match &result {
            Ok(r) => assert!(
                r.exit_code != 0 || r.stderr.contains("limit") || r.stderr.contains("error"),
                "Fork bomb pattern should be blocked"
            ),
            Err(_) => {}
        }
    }

    /// Many heredocs don't exhaust memory
    #[tokio::test]
    async fn many_heredocs_memory() {
        let mut bash = tight_bash();
        let mut script = String::new();
        for i in 0..100 {
            script.push_str(&format!("cat <<'EOF{i}'\n{}\nEOF{i}\n", "A".repeat(1000),));
        }
        let result = bash.exec(&script).await;
        match &result {
            Ok(r) => {
                assert!(
                    r.stdout.len() < 200_000,
                    "Too much heredoc output: {}",
                    r.stdout.len()
                );
            }
            Err(_) => {}
        }
    }

    /// bash -c respects limits
    #[tokio::test]
    async fn bash_c_respects_limits() {
        let mut bash = dos_bash();
        let result = bash
            .exec("bash -c 'for i in $(seq 1 1000); do echo $i; done'")
            .await;
        match &result {
            Ok(r) => {
                let lines = r.stdout.lines().count();
                assert!(lines <= 50, "bash -c bypassed limits: {} lines", lines);
            }
            Err(_) => {}
        }
    }

    /// sh -c respects limits
    #[tokio::test]
    async fn sh_c_respects_limits() {
        let mut bash = dos_bash();
        let result = bash.exec("sh -c 'while true; do echo x; done'").await;
        assert!(
            result.is_err() || result.as_ref().unwrap().stdout.lines().count() <= 50,
            "sh -c bypassed limits"
        );
    }
}

// =============================================================================
// FORK BOMB / RESOURCE LIMITS
// =============================================================================

mod fork_bomb_and_budget {
    use super::*;

    /// Fork bomb pattern must not crash the process.
    #[tokio::test]
    async fn fork_bomb_does_not_segfault() {
        let mut bash = dos_bash();
        let result = bash.exec(":(){ :|:& };:").await;
        // Must not crash — either error or non-zero exit
        match &result {
            Ok(r) => assert!(r.exit_code != 0 || !r.stderr.is_empty()),
            Err(_) => {} // error is acceptable
        }
    }

    /// max_commands budget resets per exec() call.
    #[tokio::test]
    async fn max_commands_resets_per_exec() {
        let mut bash = Bash::builder()
            .limits(
                ExecutionLimits::new()
                    .max_commands(10)
                    .timeout(Duration::from_secs(5)),
            )
            .build();

        // First exec uses some budget
        let r1 = bash.exec("echo a; echo b; echo c").await.unwrap();
        assert!(r1.stdout.contains("a"), "first exec should produce output");

        // Second exec should also work (budget resets)
        let r2 = bash.exec("echo x; echo y; echo z").await.unwrap();
        assert!(
            r2.stdout.contains("x"),
            "second exec must work — budget should reset per exec()"
        );
    }
}

mod variable_injection_passing {
    use super::*;

    /// PS1/PS2/PS4 don't execute command substitution in non-interactive mode
    #[tokio::test]
    async fn ps_variables_safe() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                PS1='$(cat /etc/passwd)'
                PS4='+ $(date) '
                set -x
                echo test
                "#,
            )
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("root:"),
            "PS1 executed command substitution"
        );
    }

    /// IFS manipulation doesn't crash
    #[tokio::test]
    async fn ifs_manipulation_safe() {
        let mut bash = tight_bash();
        let result = bash
            .exec("IFS=\"/\"\ncmd=\"echo/hello/world\"\n$cmd")
            .await
            .unwrap();
        // Exit 127 is expected (word splitting creates invalid command)
        assert!(result.exit_code == 0 || result.exit_code == 127);
    }

    /// PATH hijack doesn't override builtins
    #[tokio::test]
    async fn path_hijack_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                mkdir -p /tmp/evil
                echo '#!/bin/bash
                echo "HIJACKED"' > /tmp/evil/cat
                chmod +x /tmp/evil/cat
                PATH="/tmp/evil:$PATH"
                echo "test" > /tmp/file.txt
                cat /tmp/file.txt
                "#,
            )
            .await
            .unwrap();
        assert_eq!(
            result.stdout.trim(),
            "test",
            "PATH hijack overrode builtins"
        );
    }

    /// BASH_ENV doesn't auto-execute scripts
    #[tokio::test]
    async fn bash_env_safe() {
        let mut bash = tight_bash();
        let _ = bash.exec("echo 'echo INJECTED' > /tmp/evil_env.sh").await;
        let mut bash2 = tight_bash();
        let result = bash2
            .exec("export BASH_ENV=/tmp/evil_env.sh\nbash -c 'echo clean'")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("INJECTED"),
            "BASH_ENV auto-executed"
        );
    }

    /// PROMPT_COMMAND doesn't fire in non-interactive mode
    #[tokio::test]
    async fn prompt_command_safe() {
        let mut bash = tight_bash();
        let result = bash
            .exec("PROMPT_COMMAND='echo INJECTED'\necho clean")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("INJECTED"),
            "PROMPT_COMMAND fired in non-interactive mode"
        );
    }

    /// Variable name with semicolon doesn't cause injection
    #[tokio::test]
    async fn variable_name_injection_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec("declare \"a;echo EVIL=test\"\necho clean")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("EVIL"),
            "Variable name caused injection"
        );
    }

    /// Indirect expansion respects internal variable protection
    #[tokio::test]
    async fn indirect_expansion_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec("secret=\"hidden\"\nvarname=\"_NAMEREF_secret\"\necho \"${!varname}\"")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("hidden"),
            "Indirect expansion leaked internal variable"
        );
    }
}

mod filesystem_escape_passing {
    use super::*;

    /// Symlink doesn't traverse to host filesystem
    #[tokio::test]
    async fn symlink_traversal_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec("ln -s /etc/passwd /tmp/link\ncat /tmp/link")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("root:x:"),
            "Symlink accessed host /etc/passwd"
        );
    }

    /// Path traversal via .. blocked
    #[tokio::test]
    async fn dotdot_traversal_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cd /tmp\ncat ../../../etc/passwd\ncat /tmp/../../../etc/shadow")
            .await
            .unwrap();
        // `..` clamps at the VFS root, so this reads the synthetic
        // /etc/passwd (virtual identity only), never the host's.
        assert!(
            !result.stdout.contains("daemon:")
                && !result.stdout.contains("root:x:0:0:root:/root:/bin/sh\n"),
            "Dot-dot traversal accessed host files"
        );
    }

    /// /proc/self not accessible
    #[tokio::test]
    async fn proc_self_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat /proc/self/environ\ncat /proc/self/cmdline")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("PATH=") && !result.stdout.contains("HOME="),
            "/proc/self leaked host environment"
        );
    }

    /// /dev/tcp doesn't open real connections
    #[tokio::test]
    async fn dev_tcp_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec("echo test > /dev/tcp/127.0.0.1/80 2>/dev/null\necho test > /dev/udp/127.0.0.1/53 2>/dev/null\necho clean")
            .await;
        match &result {
            Ok(r) => assert!(r.stdout.contains("clean")),
            Err(_) => {}
        }
    }

    /// find doesn't discover host files
    #[tokio::test]
    async fn find_confined_to_vfs() {
        let mut bash = tight_bash();
        let result = bash
            .exec("find / -name \"*.conf\" 2>/dev/null\nfind / -name \"passwd\" 2>/dev/null")
            .await
            .unwrap();
        // Only the synthetic root filesystem is visible: no host config.
        assert!(
            !result.stdout.contains(".conf"),
            "find discovered host files: {}",
            result.stdout
        );
        assert_eq!(result.stdout.trim(), "/etc/passwd");
    }

    /// Null byte in filename doesn't crash
    #[tokio::test]
    async fn null_byte_filename_safe() {
        let mut bash = tight_bash();
        let result = bash
            .exec("echo test > $'/tmp/file\\x00.txt'\necho clean")
            .await;
        match &result {
            Ok(_) => {}
            Err(e) => assert!(!e.to_string().contains("panic"), "Null byte caused panic"),
        }
    }

    /// CDPATH doesn't escape VFS
    #[tokio::test]
    async fn cdpath_confined() {
        let mut bash = tight_bash();
        let result = bash
            .exec("CDPATH=\"/:..:/../../..\"\ncd etc 2>/dev/null && cat passwd")
            .await
            .unwrap();
        assert!(!result.stdout.contains("root:"), "CDPATH allowed escape");
    }
}

mod command_injection_passing {
    use super::*;

    /// Eval executes in sandbox (expected bash behavior)
    #[tokio::test]
    async fn eval_sandboxed() {
        let mut bash = tight_bash();
        let result = bash
            .exec("user_input='hello; echo INJECTED'\neval \"echo $user_input\"")
            .await
            .unwrap();
        // eval DOES execute the injection — that's normal bash.
        // The point is it stays in the sandbox.
        assert!(result.stdout.contains("INJECTED"));
    }

    /// Traps fire within sandbox
    #[tokio::test]
    async fn trap_sandboxed() {
        let mut bash = tight_bash();
        let result = bash
            .exec("trap 'echo TRAP_FIRED' EXIT\necho normal")
            .await
            .unwrap();
        assert!(result.stdout.contains("normal"));
    }

    /// eval runs in the current shell and must NOT fire the EXIT trap when the
    /// eval'd code finishes — the trap fires once, at actual shell exit.
    #[tokio::test]
    async fn eval_does_not_fire_exit_trap_early() {
        let mut bash = tight_bash();
        let result = bash
            .exec("trap 'echo BYE' EXIT\neval 'echo hi'\necho done")
            .await
            .unwrap();
        assert_eq!(
            result.stdout.matches("BYE").count(),
            1,
            "EXIT trap should fire exactly once, got: {:?}",
            result.stdout
        );
        // BYE must come after `done` (end of script), not after `hi`.
        let bye = result.stdout.find("BYE").unwrap();
        let done = result.stdout.find("done").unwrap();
        assert!(done < bye, "EXIT trap fired early: {:?}", result.stdout);
    }

    /// An EXIT trap that runs `eval` must not recurse unboundedly. Before the
    /// fix, eval re-ran the (unguarded) EXIT trap, recursing one command per
    /// level until the budget aborted — risking a stack overflow first.
    #[tokio::test]
    async fn exit_trap_eval_recursion_terminates() {
        let mut bash = tight_bash();
        // Must return (Ok or budget Err), never hang or stack-overflow.
        let _ = bash.exec("trap 'eval :' EXIT\necho go").await;
    }

    /// Array subscript command substitution stays sandboxed
    #[tokio::test]
    async fn array_subscript_cmd_subst_sandboxed() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                declare -a arr
                x='$(echo PWNED > /tmp/pwned.txt)'
                arr[$x]=1
                cat /tmp/pwned.txt 2>/dev/null
                echo clean
                "#,
            )
            .await
            .unwrap();
        assert!(result.stdout.contains("clean"));
    }

    /// xargs respects command limits
    #[tokio::test]
    async fn xargs_respects_limits() {
        let mut bash = dos_bash();
        let result = bash.exec("seq 1 100 | xargs -I{} echo line_{}").await;
        match &result {
            Ok(r) => {
                let lines = r.stdout.lines().count();
                assert!(lines <= 50, "xargs bypassed limits: {} lines", lines);
            }
            Err(_) => {}
        }
    }
}

mod parser_edge_cases_passing {
    use super::*;

    /// Deep nested parentheses don't stack overflow
    #[tokio::test]
    async fn deep_parens_safe() {
        let mut bash = tight_bash();
        let deep = "(".repeat(100) + "echo hi" + &")".repeat(100);
        let result = bash.exec(&deep).await;
        match &result {
            Ok(_) => {}
            Err(e) => assert!(
                !e.to_string().contains("stack overflow"),
                "Deep parens caused stack overflow"
            ),
        }
    }

    /// Unterminated constructs don't hang
    #[tokio::test]
    async fn unterminated_constructs_dont_hang() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(2)))
            .build();
        let start = Instant::now();
        let _ = bash.exec("echo \"unterminated string").await;
        let _ = bash.exec("echo 'unterminated single").await;
        let _ = bash.exec("echo $(unterminated subshell").await;
        let _ = bash.exec("if true; then echo").await;
        let _ = bash.exec("case x in").await;
        let elapsed = start.elapsed();
        assert!(
            elapsed < Duration::from_secs(5),
            "Unterminated constructs took {:?}",
            elapsed
        );
    }

    /// Very long line handled
    #[tokio::test]
    async fn very_long_line() {
        let mut bash = tight_bash();
        let long_echo = format!("echo '{}'", "X".repeat(100_000));
        let result = bash.exec(&long_echo).await;
        match &result {
            Ok(r) => assert_eq!(r.stdout.trim().len(), 100_000),
            Err(_) => {}
        }
    }

    /// Many empty commands (semicolons) handled
    #[tokio::test]
    async fn many_empty_commands() {
        let mut bash = tight_bash();
        let semis = ";".repeat(1000);
        let result = bash.exec(&format!("echo start; {} echo end", semis)).await;
        match &result {
            Ok(r) => assert!(r.stdout.contains("start") && r.stdout.contains("end")),
            Err(_) => {}
        }
    }

    /// Heredoc with delimiter in content
    #[tokio::test]
    async fn heredoc_delimiter_in_content() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat <<EOF\nThis contains EOF but not at start\nEOF in middle\nEOF\n")
            .await
            .unwrap();
        assert!(result.stdout.contains("EOF but not at start"));
    }

    /// Single-quoted heredoc prevents expansion
    #[tokio::test]
    async fn heredoc_single_quoted_no_expansion() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat <<'EOF'\n$(echo INJECTED)\n`echo INJECTED2`\nEOF\n")
            .await
            .unwrap();
        assert!(
            result.stdout.contains("$(echo INJECTED)"),
            "Single-quoted heredoc expanded command substitution"
        );
    }

    /// Any quoted byte in the delimiter disables heredoc body expansion.
    #[tokio::test]
    async fn heredoc_partially_quoted_delimiter_no_expansion() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat <<\"EOF\"x\n$(echo INJECTED)\nEOFx\n")
            .await
            .unwrap();
        assert_eq!(
            result.stdout, "$(echo INJECTED)\n",
            "partially quoted heredoc delimiter expanded command substitution"
        );
    }
}

mod finding_mixed_quoted_word_quote_metadata {
    use super::*;

    #[tokio::test]
    async fn quoted_glob_metacharacter_with_unquoted_suffix_stays_literal() {
        let mut bash = tight_bash();
        // Create a file that *x would match if the quoted * were expanded.
        bash.exec("touch ax").await.unwrap();
        let result = bash.exec(r#"echo "*"x"#).await.unwrap();

        assert_eq!(
            result.stdout, "*x\n",
            "glob metacharacter from quoted segment was expanded"
        );
    }

    #[tokio::test]
    async fn quoted_brace_expression_with_unquoted_suffix_stays_literal() {
        let mut bash = tight_bash();
        // Create a file that {1..3}x would match if brace expansion of the quoted
        // segment fired; the literal pattern should be echoed instead.
        bash.exec("touch 1x").await.unwrap();
        let result = bash.exec(r#"echo "{1..3}"x"#).await.unwrap();

        assert_eq!(
            result.stdout, "{1..3}x\n",
            "brace expression from quoted segment was expanded"
        );
    }

    #[tokio::test]
    async fn unquoted_expansion_backslash_dot_in_glob_dir_stays_literal() {
        // THREAT[TM-ESC-001]: glob directory unescape only removes parser-inserted
        // metacharacter escapes. Literal backslashes produced by expansion must not
        // turn `.\.` into `..` and redirect lookup outside the trusted prefix
        // (path traversal).
        let mut bash = tight_bash();
        bash.exec("mkdir -p /tmp/safe /tmp/secret && touch /tmp/secret/flag.txt")
            .await
            .unwrap();

        let result = bash
            .exec(r#"shopt -s nullglob; p='/tmp/safe/.\./secret/*'; for f in $p; do printf '<%s>\n' "$f"; done"#)
            .await
            .unwrap();

        assert_eq!(
            result.stdout, "",
            "literal backslash-dot from expansion traversed during glob lookup"
        );
    }

    #[tokio::test]
    async fn literal_brace_expression_in_quoted_glob_prefix_stays_literal() {
        // "{a,b}"/*/ is a QuotedGlobWord (unquoted glob suffix `*/`).  The quoted
        // segment `{a,b}` must NOT brace-expand: the pattern should match the literal
        // directory name `{a,b}`, not `a` and `b`.
        //
        // We create:
        //   /tmp/tqgb/{a,b}/child   (literal dir named {a,b})
        //   /tmp/tqgb/a/            (would match if brace-expansion fired)
        //   /tmp/tqgb/b/            (would match if brace-expansion fired)
        //
        // Correct result: only /tmp/tqgb/{a,b}/child found.
        let mut bash = tight_bash();
        bash.exec("mkdir -p '/tmp/tqgb/{a,b}/child' /tmp/tqgb/a /tmp/tqgb/b")
            .await
            .unwrap();
        let result = bash
            .exec(
                r#"shopt -s nullglob; res=(); for d in "/tmp/tqgb/{a,b}"/*/; do res+=("${d%/}"); done; echo "${res[*]}""#,
            )
            .await
            .unwrap();
        let stdout = result.stdout.trim().to_string();
        // If brace-expansion fired incorrectly: matches /tmp/tqgb/a and /tmp/tqgb/b
        // (but those dirs are empty so nullglob drops them → empty output).
        // Either way, the literal {a,b}/child should be found.
        assert!(
            stdout.contains("/tmp/tqgb/{a,b}/child"),
            "literal {{a,b}} in quoted glob prefix should not brace-expand; got: {stdout}"
        );
    }

    #[tokio::test]
    async fn subscript_var_expansion_in_quoted_glob_prefix_not_corrupted() {
        // Regression: escape_glob_metas_in_quoted_ranges was escaping [ ] inside
        // ${arr[0]}, producing ${arr\[0\]} which is not a valid subscript at runtime.
        let mut bash = tight_bash();
        bash.exec("mkdir -p /tmp/tqg4/sub").await.unwrap();
        let result = bash
            .exec(r#"dirs=("/tmp/tqg4"); for d in "${dirs[0]}"/sub; do echo "$d"; done"#)
            .await
            .unwrap();
        assert_eq!(
            result.stdout.trim(),
            "/tmp/tqg4/sub",
            "${{dirs[0]}} subscript in quoted glob prefix was not expanded \
             (brackets escaped by escape_glob_metas_in_quoted_ranges)"
        );
    }

    #[tokio::test]
    async fn var_expansion_in_quoted_glob_prefix_not_corrupted() {
        // Regression: escape_glob_metas_in_quoted_ranges was escaping { and }
        // inside ${ } variable references, producing $\{VAR\} which is not
        // recognised as a variable reference at runtime.  Pattern:
        //   "${VAR}"/suffix   — quoted prefix + unquoted suffix
        let mut bash = tight_bash();
        bash.exec("mkdir -p /tmp/tqg/sub").await.unwrap();
        let result = bash
            .exec(r#"MYDIR=/tmp/tqg; for d in "${MYDIR}"/sub; do echo "$d"; done"#)
            .await
            .unwrap();
        assert_eq!(
            result.stdout.trim(),
            "/tmp/tqg/sub",
            "${{MYDIR}} in quoted glob prefix was not expanded (braces escaped by escape_glob_metas_in_quoted_ranges)"
        );
    }

    #[tokio::test]
    async fn var_expansion_in_quoted_glob_prefix_with_star() {
        // Same regression but with an actual glob in the unquoted suffix.
        let mut bash = tight_bash();
        bash.exec("mkdir -p /tmp/tqg2/a /tmp/tqg2/b").await.unwrap();
        let result = bash
            .exec(
                r##"MYDIR=/tmp/tqg2; dirs=(); for d in "${MYDIR}"/*/; do dirs+=("${d%/}"); done; echo "${dirs[*]}""##,
            )
            .await
            .unwrap();
        let stdout = result.stdout.trim().to_string();
        assert!(
            stdout.contains("/tmp/tqg2/a") && stdout.contains("/tmp/tqg2/b"),
            "glob \"${{MYDIR}}\"/*/  did not expand correctly, got: {stdout}"
        );
    }
}

mod state_isolation_passing {
    use super::*;

    /// Subshell variables don't leak to parent
    #[tokio::test]
    async fn subshell_variable_isolation() {
        let mut bash = tight_bash();
        let result = bash
            .exec("x=parent\n(x=child; echo \"inner: $x\")\necho \"outer: $x\"")
            .await
            .unwrap();
        assert!(result.stdout.contains("inner: child"));
        assert!(
            result.stdout.contains("outer: parent"),
            "Subshell variable leaked to parent"
        );
    }

    /// Cross-instance isolation
    #[tokio::test]
    async fn cross_instance_isolation() {
        let mut bash1 = tight_bash();
        let mut bash2 = tight_bash();
        let _ = bash1.exec("SECRET=from_instance_1").await;
        let result = bash2.exec("echo \"SECRET=$SECRET\"").await.unwrap();
        assert_eq!(
            result.stdout.trim(),
            "SECRET=",
            "Variable leaked between instances"
        );
    }

    /// History doesn't leak between instances
    #[tokio::test]
    async fn history_cross_session() {
        let mut bash1 = tight_bash();
        let _ = bash1.exec("SECRET_CMD=password123").await;
        let mut bash2 = tight_bash();
        let result = bash2.exec("history").await.unwrap();
        assert!(
            !result.stdout.contains("password123"),
            "History leaked between instances"
        );
    }
}

mod unicode_attacks_passing {
    use super::*;

    /// RTL override character handled safely
    #[tokio::test]
    async fn rtl_override() {
        let mut bash = tight_bash();
        let result = bash.exec("echo \u{202E}test\u{202C}").await.unwrap();
        assert_eq!(result.exit_code, 0);
    }

    /// Long Unicode strings handled
    #[tokio::test]
    async fn long_unicode_string() {
        let mut bash = tight_bash();
        let emoji_bomb = "\u{1F4A3}".repeat(10000);
        let result = bash.exec(&format!("echo '{}'", emoji_bomb)).await;
        match &result {
            Ok(r) => assert_eq!(r.exit_code, 0),
            Err(_) => {}
        }
    }

    /// Multi-byte substring doesn't panic
    #[tokio::test]
    async fn multibyte_substring() {
        let mut bash = tight_bash();
        let result = bash
            .exec("x=\"héllo wörld\"\necho \"${x:0:5}\"\necho \"${#x}\"")
            .await;
        match &result {
            Ok(_) => {}
            Err(e) => assert!(
                !e.to_string().contains("byte index"),
                "Multi-byte substring panic: {}",
                e
            ),
        }
    }

    /// Null bytes don't cause panics
    #[tokio::test]
    async fn null_bytes_safe() {
        let mut bash = tight_bash();
        for test in ["echo $'\\x00'", "x=$'hello\\x00world'; echo \"$x\""] {
            let result = bash.exec(test).await;
            match &result {
                Ok(_) => {}
                Err(e) => assert!(
                    !e.to_string().contains("panic"),
                    "Null byte panic: {} for: {}",
                    e,
                    test
                ),
            }
        }
    }
}

mod creative_abuse_passing {
    use super::*;

    /// printf format string attack doesn't crash
    #[tokio::test]
    async fn printf_format_string() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                printf "%s%s%s%s%s%s%s%s%s%s"
                printf "%n" 2>/dev/null
                printf "%.99999999s" "x"
                echo clean
                "#,
            )
            .await;
        match &result {
            Ok(r) => assert!(r.stdout.contains("clean") || r.exit_code == 0),
            Err(_) => {}
        }
    }

    /// read -t doesn't hang
    #[tokio::test]
    async fn read_timeout() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(3)))
            .build();
        let start = Instant::now();
        let _ = bash.exec("read -t 1 x; echo done").await;
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(5), "read hung: {:?}", elapsed);
    }

    /// yes|head respects limits
    #[tokio::test]
    async fn yes_head() {
        let mut bash = dos_bash();
        let result = bash.exec("yes | head -5").await;
        match &result {
            Ok(r) => {
                let lines = r.stdout.lines().count();
                assert!(lines <= 50, "yes produced {} lines", lines);
            }
            Err(_) => {}
        }
    }

    /// env/printenv don't leak host secrets
    #[tokio::test]
    async fn env_no_secret_leak() {
        let mut bash = tight_bash();
        let result = bash.exec("env; printenv; set").await.unwrap();
        for key in [
            "DOPPLER_TOKEN",
            "AWS_SECRET",
            "GITHUB_TOKEN",
            "ANTHROPIC_API_KEY",
        ] {
            assert!(!result.stdout.contains(key), "env leaked: {}", key);
        }
    }

    /// Arithmetic overflow doesn't panic
    #[tokio::test]
    async fn arithmetic_overflow() {
        let mut bash = tight_bash();
        for test in [
            "echo $((9223372036854775807 + 1))",
            "echo $((-9223372036854775808 - 1))",
            "echo $((9223372036854775807 * 2))",
            "echo $((1 / 0))",
            "echo $((1 % 0))",
        ] {
            let result = bash.exec(test).await;
            match &result {
                Ok(_) => {}
                Err(e) => assert!(
                    !e.to_string().contains("panic") && !e.to_string().contains("overflow"),
                    "Arithmetic panic: {} for: {}",
                    e,
                    test
                ),
            }
        }
    }

    /// Signal handling safe (kill $$ is no-op)
    #[tokio::test]
    async fn signal_handling_safe() {
        let mut bash = tight_bash();
        let _ = bash.exec("kill -9 $$\nkill -15 $$\necho alive").await;
    }

    /// compgen doesn't expose host commands
    #[tokio::test]
    async fn compgen_no_host_commands() {
        let mut bash = tight_bash();
        let result = bash.exec("compgen -c | sort").await;
        match &result {
            Ok(r) => assert!(
                !r.stdout.contains("systemctl"),
                "compgen showed host commands"
            ),
            Err(_) => {}
        }
    }

    /// Regex DoS completes in time
    #[tokio::test]
    async fn regex_dos_bounded() {
        let mut bash = Bash::builder()
            .limits(ExecutionLimits::new().timeout(Duration::from_secs(5)))
            .build();
        let start = Instant::now();
        let _ = bash
            .exec(&format!("echo '{}' | grep -E '(a+)+b'", "a".repeat(30)))
            .await;
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(5), "Regex DoS: {:?}", elapsed);
    }

    /// Error messages don't leak host paths
    #[tokio::test]
    async fn error_messages_safe() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat /nonexistent/path 2>&1\nls /real/host/path 2>&1")
            .await
            .unwrap();
        assert!(
            !result.stdout.contains("/usr/") && !result.stdout.contains("/home/"),
            "Error messages leaked host paths: {}",
            result.stdout
        );
    }

    /// Massive pipeline chain handled
    #[tokio::test]
    async fn massive_pipeline() {
        let mut bash = tight_bash();
        let mut cmd = "echo x".to_string();
        for _ in 0..200 {
            cmd.push_str(" | cat");
        }
        let result = bash.exec(&cmd).await;
        match &result {
            Ok(r) => assert_eq!(r.stdout.trim(), "x"),
            Err(_) => {}
        }
    }

    /// Concurrent exec calls safe
    #[tokio::test]
    async fn concurrent_exec_safety() {
        let mut bash = tight_bash();
        for i in 0..20 {
            let result = bash.exec(&format!("echo {}", i)).await.unwrap();
            assert_eq!(result.stdout.trim(), &i.to_string());
        }
    }

    /// /dev/tcp redirect doesn't open network connection
    #[tokio::test]
    async fn dev_tcp_redirect_blocked() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                exec 3<>/dev/tcp/127.0.0.1/80 2>/dev/null
                echo -e "GET / HTTP/1.0\r\n\r\n" >&3 2>/dev/null
                cat <&3 2>/dev/null
                echo "done"
                "#,
            )
            .await;
        match &result {
            Ok(r) => assert!(
                !r.stdout.contains("HTTP/"),
                "/dev/tcp opened a real connection"
            ),
            Err(_) => {}
        }
    }

    /// Timing side-channel negligible
    #[tokio::test]
    async fn timing_side_channel() {
        let mut bash = tight_bash();
        let start = Instant::now();
        let _ = bash.exec("test -f /etc/passwd").await;
        let t1 = start.elapsed();
        let start = Instant::now();
        let _ = bash.exec("test -f /nonexistent/file").await;
        let t2 = start.elapsed();
        let diff = t1.abs_diff(t2);
        assert!(
            diff < Duration::from_millis(100),
            "Timing side-channel: existing={:?} vs nonexistent={:?}",
            t1,
            t2
        );
    }

    /// Dollar-sign special variables don't crash
    #[tokio::test]
    async fn dollar_sign_edges() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                echo "$$"
                echo "$!"
                echo "$-"
                echo "$_"
                echo "${#}"
                echo "${?}"
                echo "${$}"
                "#,
            )
            .await
            .unwrap();
        // Some may not be fully supported but none should crash.
    }

    /// Parameter expansion edge cases
    #[tokio::test]
    async fn parameter_expansion_edges() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                x="hello_world_test_string"
                echo "${x/hello/goodbye}"
                echo "${x//o/0}"
                echo "${x^^}"
                echo "${x,,}"
                echo "${x:0:5}"
                echo "${x#*_}"
                echo "${x##*_}"
                echo "${x%_*}"
                echo "${x%%_*}"
                "#,
            )
            .await
            .unwrap();
        assert!(result.stdout.contains("goodbye_world_test_string"));
    }

    /// Array expansion edge cases
    #[tokio::test]
    async fn array_expansion_edges() {
        let mut bash = tight_bash();
        let result = bash
            .exec(
                r#"
                arr=()
                echo "empty: ${#arr[@]}"
                arr[999]="sparse"
                echo "sparse: ${arr[999]}"
                echo "indices: ${!arr[@]}"
                unset 'arr[999]'
                echo "after unset: ${#arr[@]}"
                "#,
            )
            .await
            .unwrap();
        assert!(result.stdout.contains("empty: 0"));
        assert!(result.stdout.contains("sparse: sparse"));
    }

    // --- Input redirect from missing file (#2050) ---

    /// Missing input-redirect target fails the command (exit 1) but does not
    /// abort the whole exec() call; the script continues.
    #[tokio::test]
    async fn input_redirect_missing_file_is_nonfatal() {
        let mut bash = tight_bash();
        let result = bash
            .exec("cat < /no-such-file; echo after=$?")
            .await
            .unwrap(); // must NOT return Err
        assert!(
            !result.stderr.is_empty(),
            "expected file-not-found message in stderr, got empty stderr"
        );
        assert!(
            result.stdout.contains("after=1"),
            "script must continue and report exit 1, got stdout: {:?}",
            result.stdout
        );
        assert_eq!(
            result.exit_code, 0,
            "overall exit code must be 0 (from trailing echo), got {}",
            result.exit_code
        );
    }

    /// Compound command with missing input redirect is also non-fatal.
    #[tokio::test]
    async fn compound_input_redirect_missing_file_is_nonfatal() {
        let mut bash = tight_bash();
        let result = bash
            .exec("{ cat; } < /no-such-file; echo after=$?")
            .await
            .unwrap();
        assert!(
            !result.stderr.is_empty(),
            "expected file-not-found message in stderr, got empty stderr"
        );
        assert!(
            result.stdout.contains("after=1"),
            "script must continue and report exit 1, got stdout: {:?}",
            result.stdout
        );
        assert_eq!(
            result.exit_code, 0,
            "overall exit code must be 0 (from trailing echo), got {}",
            result.exit_code
        );
    }
}

// =============================================================================
// FINDING: STACK OVERFLOW — CONDITIONAL PRINTING (`[[ ! ]]` + `declare -f`)
// Threat: TM-DOS-044 (conditional-expression recursion).
// Issue: `f() { [[ ! ]]; }; declare -f f` overflowed the stack in
// `cond_term` recursion during function printing (SIGSEGV). The parser now
// rejects a bare `!` (and bare `(`/unbalanced nesting) up front with a
// syntax error, and caps nesting depth (COND_MAX_DEPTH), so the printer is
// only ever reached with a bounded, valid conditional. These tests lock in:
// the PoC is a clean non-fatal syntax error (no crash/hang), deep `!`
// nesting is rejected, and the valid `[[ ! ... ]]` form still prints.
// =============================================================================

mod finding_cond_bare_not_print_overflow {
    use super::*;

    /// PoC: defining a function whose body is `[[ ! ]]` is a clean parse-time
    /// rejection, never a stack overflow in function printing; shell stays alive.
    #[tokio::test]
    async fn bare_not_in_function_print_is_bounded() {
        let mut bash = tight_bash();
        let err = format!("{:?}", bash.exec("f() { [[ ! ]]; }").await.unwrap_err());
        assert!(
            err.contains("syntax error in conditional expression"),
            "expected conditional syntax error, got: {}",
            err
        );
        let alive = bash.exec("echo alive").await.unwrap();
        assert!(
            alive.stdout.contains("alive"),
            "shell must survive the PoC, got stdout: {:?}",
            alive.stdout
        );
    }

    /// Bare `(` as the whole conditional is likewise a clean rejection.
    #[tokio::test]
    async fn bare_open_paren_is_bounded() {
        let mut bash = tight_bash();
        let err = format!("{:?}", bash.exec("f() { [[ ( ]]; }").await.unwrap_err());
        assert!(
            err.contains("syntax error in conditional expression"),
            "expected conditional syntax error, got: {}",
            err
        );
        let alive = bash.exec("echo alive").await.unwrap();
        assert!(
            alive.stdout.contains("alive"),
            "shell must survive, got stdout: {:?}",
            alive.stdout
        );
    }

    /// Deep `!` nesting (300x) is rejected by the depth cap, not a crash.
    #[tokio::test]
    async fn deep_not_nesting_is_bounded() {
        let mut bash = tight_bash();
        let script = format!("f() {{ [[ {} ]]; }}", "! ".repeat(300));
        let err = format!("{:?}", bash.exec(&script).await.unwrap_err());
        assert!(
            err.contains("nested too deeply")
                || err.contains("syntax error in conditional expression"),
            "expected depth/syntax rejection, got: {}",
            err
        );
        let alive = bash.exec("echo alive").await.unwrap();
        assert!(
            alive.stdout.contains("alive"),
            "shell must survive deep nesting, got stdout: {:?}",
            alive.stdout
        );
    }

    /// The valid negated form still defines, evaluates, and prints.
    #[tokio::test]
    async fn valid_negated_conditional_still_prints() {
        let mut bash = tight_bash();
        let result = bash
            .exec("f() { [[ ! -n x ]]; }; declare -f f")
            .await
            .unwrap();
        assert!(
            result.stderr.is_empty(),
            "valid conditional must not error, got stderr: {:?}",
            result.stderr
        );
        assert!(
            result.stdout.contains("[[ ! -n x ]]"),
            "declare -f must print the negated conditional, got stdout: {:?}",
            result.stdout
        );
    }

    /// Exact PoC shape: repeated parenthesized conditionals in an unexecuted
    /// function, then `declare -f`. Deep-but-valid nesting (200x) must define
    /// and print without overflowing; the shell stays alive and the function
    /// is never executed.
    #[tokio::test]
    async fn repeated_paren_nesting_valid_max_prints() {
        let mut bash = tight_bash();
        let script = format!(
            "f() {{ [[ {}-n x{} ]]; }}; declare -f f",
            "( ".repeat(200),
            " )".repeat(200)
        );
        let result = bash.exec(&script).await.unwrap();
        assert!(
            result.stderr.is_empty(),
            "valid nested parens must not error, got stderr: {:?}",
            result.stderr
        );
        assert!(
            result.stdout.contains("declare -f") || result.stdout.contains("f ()"),
            "declare -f must print the function, got stdout: {:?}",
            result.stdout
        );
        let alive = bash.exec("echo alive").await.unwrap();
        assert!(alive.stdout.contains("alive"));
    }

    /// Exact PoC shape via `type`, and excessive nesting (300x) rejected
    /// cleanly on both the `declare -f` and `type` paths — no crash, no hang.
    #[tokio::test]
    async fn repeated_paren_nesting_excessive_is_bounded() {
        for printer in ["declare -f f", "type f"] {
            let mut bash = tight_bash();
            let script = format!(
                "f() {{ [[ {}-n x{} ]]; }}; {}",
                "( ".repeat(300),
                " )".repeat(300),
                printer
            );
            let err = format!("{:?}", bash.exec(&script).await.unwrap_err());
            assert!(
                err.contains("nested too deeply")
                    || err.contains("syntax error in conditional expression"),
                "{}: expected depth/syntax rejection, got: {}",
                printer,
                err
            );
            let alive = bash.exec("echo alive").await.unwrap();
            assert!(
                alive.stdout.contains("alive"),
                "{}: shell must survive, got stdout: {:?}",
                printer,
                alive.stdout
            );
        }
    }

    /// Valid nested parens resolve through `type` as well.
    #[tokio::test]
    async fn repeated_paren_nesting_valid_type_prints() {
        let mut bash = tight_bash();
        let script = format!(
            "f() {{ [[ {}-n x{} ]]; }}; type f",
            "( ".repeat(80),
            " )".repeat(80)
        );
        let result = bash.exec(&script).await.unwrap();
        assert!(
            result.stderr.is_empty(),
            "valid nested parens must not error, got stderr: {:?}",
            result.stderr
        );
        assert!(
            result.stdout.contains("-n x"),
            "type must print the conditional body, got stdout: {:?}",
            result.stdout
        );
    }
}

/// Default value with command substitution ${VAR:-$(cmd)}
#[tokio::test]
async fn parameter_expansion_default_with_cmdsubst() {
    let mut bash = tight_bash();

    // Unset variable - should run command substitution
    let result = bash
        .exec(r#"unset VAR; echo ${VAR:-$(echo hello)}"#)
        .await
        .unwrap();
    assert!(result.stdout.contains("hello"));

    // Empty variable - should run command substitution (:- means unset OR empty)
    let result = bash
        .exec(r#"VAR=""; echo ${VAR:-$(echo hello)}"#)
        .await
        .unwrap();
    assert!(result.stdout.contains("hello"));

    // Set variable - should NOT run command substitution
    let result = bash
        .exec(r#"VAR="value"; echo ${VAR:-$(echo hello)}"#)
        .await
        .unwrap();
    assert!(result.stdout.contains("value"));
    assert!(!result.stdout.contains("hello"));

    // Also test without colon (:-) - only unset, not empty
    let result = bash
        .exec(r#"VAR=""; echo ${VAR-$(echo hello)}"#)
        .await
        .unwrap();
    // Empty is considered set, so should print empty
    assert!(result.stdout.trim().is_empty() || result.stdout == "\n");
}
