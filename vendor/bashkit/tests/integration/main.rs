//! Consolidated integration test binary.
//!
//! Each `tests/*.rs` would normally become its own integration-test binary,
//! statically linking every embedded interpreter (monty, zapcode, turso,
//! russh, jaq, reqwest+rustls, ed25519-dalek). With ~80 such files the link
//! step alone blew out CI disk on the hosted runner (`rustc-LLVM ERROR: IO
//! failure on output stream: No space left on device`).
//!
//! Per `knowledge/operations/testing.md`, default integration tests live as `mod`s under
//! `tests/integration/`, declared here. Tests that genuinely need their own
//! binary (process-global env mutation, `--test-threads=1`, feature-isolation
//! sweeps) stay as siblings at `tests/<name>.rs`.

#![allow(clippy::single_component_path_imports)]

pub mod agent_skills_publication_tests;
pub mod allexport_tests;
pub mod archive_bzip2_tests;
pub mod arithmetic_fuzz_scaffold_tests;
pub mod arithmetic_resource_tests;
pub mod array_budget_security_tests;
pub mod awk_field_depth_tests;
pub mod awk_fuzz_scaffold_tests;
pub mod awk_newline_tests;
pub mod awk_pattern_tests;
pub mod awk_printf_expr_test;
pub mod awk_range_pattern_tests;
pub mod background_exec_tests;
pub mod backtick_quote_tests;
pub mod base64_binary_tests;
pub mod bash_source_tests;
pub mod blackbox_security_tests;
pub mod bounded_child_launcher_scan_tests;
pub mod builtin_cap_security_tests;
pub mod builtin_error_security_tests;
pub mod builtin_fs_error_tests;
pub mod builtin_registry_tests;
pub mod builtin_validation_tests;
pub mod byte_range_panic_tests;
pub mod byte_stream_tests;
pub mod cancellation_tests;
pub mod close_brace_word_tests;
pub mod closed_fd_tests;
pub mod cmdsub_quote_test;
pub mod command_resolver_tests;
pub mod competitor_regression_tests;
pub mod compgen_tests;
pub mod coproc_tests;
pub mod core_extension_point_tests;
pub mod coreutils_differential_tests;
pub mod cp_directory_dot_tests;
pub mod credential_injection_tests;
pub mod curl_data_compat_tests;
pub mod custom_builtins_tests;
pub mod custom_fs_tests;
pub mod function_metadata_security_tests;
pub mod http_binary_output_tests;
pub mod input_redirect_budget_tests;
pub mod interactive_builtins_tests;
pub mod make_substitution_tests;
pub mod memory_growth_security_tests;
pub mod streaming_command_tests;
pub mod tar_files_from_budget_tests;
// Both assert named-IANA-zone behavior, which only exists with `tzdata`.
// `date_timezone_no_tzdata_tests` covers the closed-to-UTC side.
pub mod cpython_capability_tests;
pub mod cpython_http_tests;
pub mod cpython_integration_tests;
pub mod cpython_security_tests;
#[cfg(feature = "tzdata")]
pub mod date_timezone_differential_tests;
#[cfg(not(feature = "tzdata"))]
pub mod date_timezone_no_tzdata_tests;
#[cfg(feature = "tzdata")]
pub mod date_timezone_tests;
pub mod dd_tests;
pub mod dev_fd_path_tests;
pub mod dev_null_tests;
pub mod diagnostic_prefix_tests;
pub mod exec_options_tests;
pub mod execution_budget_tests;
pub mod execution_capability_tests;
pub mod execution_profile_tests;
pub mod fdvar_array_tests;
pub mod filesystem_security_conformance_tests;
pub mod final_env_tests;
pub mod find_multi_path_tests;
pub mod fmt_resource_tests;
pub mod for_in_reserved_word_tests;
pub mod git_advanced_tests;
pub mod git_inspection_tests;
pub mod git_integration_tests;
pub mod git_remote_security_tests;
pub mod git_security_tests;
pub mod glob_fuzz_scaffold_tests;
pub mod glob_intermediate_component_tests;
pub mod grep_gnu_output_tests;
pub mod grep_gnu_parity_tests;
pub mod grep_recursive_security_tests;
pub mod harness_example_tests;
pub mod headtail_resource_tests;
pub mod history_tests;
pub mod host_call_execution_tests;
pub mod host_mounts_tests;
pub mod indirect_reference_tests;
pub mod issue_1175_test;
pub mod issue_1776_test;
pub mod issue_1777_test;
pub mod issue_274_test;
pub mod issue_275_279_282_test;
pub mod issue_276_test;
pub mod issue_277_test;
pub mod issue_289_test;
pub mod issue_290_test;
pub mod issue_291_test;
pub mod issue_853_test;
pub mod issue_872_test;
pub mod issue_873_test;
pub mod issue_875_test;
pub mod join_resource_tests;
pub mod jq_fuzz_scaffold_tests;
pub mod limitations_doc_tests;
pub mod limitations_evidence_tests;
pub mod live_mount_tests;
pub mod mkfifo_tests;
pub mod namespace_fs_tests;
pub mod nested_subscript_tests;
pub mod network_security_tests;
pub mod od_resource_tests;
pub mod output_truncation_tests;
pub mod parallel_sessions_tests;
pub mod partial_parse_tests;
pub mod pipeline_admission_tests;
pub mod pipeline_tests;
pub mod pr_resource_tests;
pub mod process_substitution_fd_tests;
pub mod prompt_resource_tests;
pub mod proptest_differential;
pub mod python_integration_tests;
pub mod python_security_tests;
pub mod redirect_error_tests;
pub mod regex_limit_tests;
pub mod release_profile_tests;
pub mod request_lifecycle_contract_tests;
pub mod runtime_env_tests;
pub mod script_analysis;
pub mod script_execution_tests;
pub mod security_audit_pocs;
mod sed_fuzz_scaffold_tests;
mod sed_inplace_policy_tests;
mod sed_resource_tests;
pub mod set_e_and_or_tests;
pub mod shlvl_tests;
pub mod shuf_resource_tests;
pub mod signal_trap_depth_tests;
pub mod skills_tests;
pub mod snapshot_fixture_tests;
pub mod snapshot_history_tests;
pub mod snapshot_tests;
pub mod source_function_tests;
pub mod spec_runner;
pub mod spec_tests;
pub mod sqlite_compat_tests;
pub mod sqlite_differential_tests;
pub mod sqlite_fuzz_tests;
pub mod sqlite_integration_tests;
pub mod sqlite_security_tests;
pub mod stack_overflow_regression_tests;
pub mod stderr_fidelity_tests;
pub mod streaming_audit_tests;
pub mod subst_depth_limit_tests;
pub mod symlink_overlay_security_tests;
#[cfg(feature = "terminal")]
pub mod terminal_tests;
pub mod thirdparty_adoption_tests;
pub mod threat_model_doc_tests;
pub mod threat_model_tests;
pub mod time_command_tests;
pub mod time_compat_scan_tests;
pub mod tty_tests;
pub mod typescript_integration_tests;
pub mod typescript_security_tests;
pub mod unicode_security_tests;
pub mod unset_function_tests;
pub mod urandom_tests;
pub mod workflow_security_tests;
pub mod yq_integration_tests;
