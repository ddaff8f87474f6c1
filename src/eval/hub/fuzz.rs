//! Bounded fuzz loops over the dataset card's parsers (run by `cargo test`): a README's
//! front matter and `data_files` patterns come from whoever published the dataset. Never a
//! panic, never a loop; a pattern always matches itself when it holds no special character.

use super::glob::glob_match;
use super::layout::{pick, readme_configs};

/// A small deterministic generator (xorshift), so a failure repeats.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn text(&mut self, pieces: &[&str], max: usize) -> String {
        let n = self.below(max);
        (0..n).map(|_| pieces[self.below(pieces.len())]).collect()
    }
}

const ROUNDS: usize = 3000;

#[test]
fn readme_front_matter_never_panics() {
    let pieces = [
        "---\n",
        "---",
        "configs:\n",
        "- config_name: ",
        "default",
        "main",
        "\n",
        "  ",
        "    ",
        "data_files:\n",
        "- split: ",
        "train",
        "test",
        "path: ",
        "data/*.parquet",
        "**",
        "[",
        "]",
        "{",
        "}",
        ":",
        "'",
        "\"",
        "- ",
        "null",
        "~",
        "&a",
        "*a",
        "!!binary",
        "\t",
        "é",
        "\u{0}",
        "#",
        "default: true",
        "\r\n",
        "...",
    ];
    let files: Vec<String> = [
        "data/train-00000-of-00001.parquet",
        "data/test.jsonl",
        "main/test-0.parquet",
        "README.md",
    ]
    .map(String::from)
    .to_vec();
    let mut g = Gen(0x2545_f491_4f6c_dd1d);
    for _ in 0..ROUNDS {
        let text = g.text(&pieces, 40);
        if let Ok(Some(specs)) = readme_configs(&text) {
            // Whatever it read, picking a split from it answers.
            let _ = pick(&files, Some(&specs), None, "test");
            let _ = pick(&files, Some(&specs), Some("main"), "train");
        }
    }
}

#[test]
fn data_files_patterns_never_panic_and_plain_ones_match_themselves() {
    let pieces = [
        "a", "b", "/", "*", "**", "**/", "?", "[", "]", "[!", "[^", "-", "{", "}", ",", ".",
        "parquet", "é", "\\", "z-a",
    ];
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for _ in 0..ROUNDS {
        let pattern = g.text(&pieces, 24);
        let path = g.text(&pieces, 24);
        let _ = glob_match(&pattern, &path);
        let plain: String = pattern
            .chars()
            .filter(|c| !matches!(c, '*' | '?' | '[' | ']' | '\\'))
            .collect();
        assert!(
            glob_match(&plain, &plain),
            "{plain:?} does not match itself"
        );
    }
    // Long pathological patterns stay linear in pattern x path.
    let pattern = "*a".repeat(500) + "b";
    let path = "a".repeat(5000);
    assert!(!glob_match(&pattern, &path));
}
