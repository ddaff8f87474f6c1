//! One integration test binary, so the engine and the compiled Python module are loaded once
//! per test run and shared by every test (see `common::runtime`).

mod agent;
mod benchmark;
mod c_toolchain;
mod ci;
mod cli;
mod common;
mod differential;
mod editor;
mod escapes;
mod faults;
mod fuzz;
mod git;
mod guest_compute;
mod hostile;
mod hub;
mod interrupts;
mod judge;
mod limits;
mod linux_box;
mod linux_signals;
mod linux_system;
mod mcp;
mod observations;
mod packages;
mod pynet;
mod python;
mod python_client;
mod readme;
mod reference;
mod serve;
mod setup;
mod shell;
mod shell_data;
mod view;
mod watching;
