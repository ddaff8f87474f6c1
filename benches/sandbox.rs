//! Criterion benchmarks: a fresh sandbox per Python command, against a native `python3`
//! subprocess measured in the same run. For the full table (process start, imports, cached
//! load, compile) use `llm-in-sandbox bench`.

use std::process::Command;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use llm_in_sandbox::artifacts::{self, SetupOptions};
use llm_in_sandbox::runtime::RuntimeConfig;
use llm_in_sandbox::sandbox::Sandbox;

fn bench(c: &mut Criterion) {
    let setup = SetupOptions {
        cache_root: artifacts::cache_root(None),
        source: None,
    };
    let config = RuntimeConfig::new(setup.cache_root.clone());
    let runtime = Arc::new(
        llm_in_sandbox::load_runtime(&setup, &config, &|m| eprintln!("{m}"))
            .expect("runtime (run `llm-in-sandbox setup` first)"),
    );
    let rt = tokio::runtime::Runtime::new().expect("tokio");
    let mut g = c.benchmark_group("print(1)");
    g.sample_size(30);
    g.bench_function("native python3 subprocess", |b| {
        b.iter(|| {
            let out = Command::new("python3")
                .args(["-c", "print(1)"])
                .output()
                .expect("python3");
            assert_eq!(out.stdout, b"1\n");
        })
    });
    g.bench_function("fresh sandbox + python3 -c", |b| {
        b.iter(|| {
            let sb = Sandbox::builder(runtime.clone()).build().expect("sandbox");
            let r = rt
                .block_on(sb.python(&["-c".into(), "print(1)".into()], b""))
                .expect("run");
            assert_eq!(r.stdout, b"1\n");
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
