//! A small mutation fuzzer for boxtrack's parsers of outside input, on the stable toolchain
//! (cargo-fuzz needs nightly, which this project's machines do not have).
//!
//! Each target is a function of bytes that must never panic, however wrong the bytes. The
//! engine starts from seed inputs (real upstream files from `fixtures/`), applies random
//! mutations (bit flips, byte changes, insertions and deletions, repeated and spliced ranges,
//! dictionary tokens, truncation) and runs the target on each, catching panics. A panic writes
//! the input to `target/fuzz-crashes/NAME-HASH.bin` and fails with the path; the file becomes
//! a regression test by adding it to the target's seeds.
//!
//! Budget: `BOXTRACK_FUZZ_SECS` (run each target that long) or `BOXTRACK_FUZZ_RUNS`
//! (executions per target; default [`DEFAULT_RUNS`], what `cargo test` runs in CI).
//! `BOXTRACK_FUZZ_SEED` picks the random sequence (default fixed, so a CI failure
//! reproduces). See `docs/hardening.md`.

use std::hash::{Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Executions per target when no budget is given.
pub const DEFAULT_RUNS: u64 = 3_000;

/// How long, or how many times, to run a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// For this long.
    Time(Duration),
    /// This many executions.
    Runs(u64),
}

impl Budget {
    /// From `BOXTRACK_FUZZ_SECS` / `BOXTRACK_FUZZ_RUNS`.
    pub fn from_env() -> Budget {
        let var = |n: &str| {
            std::env::var(n)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        match (var("BOXTRACK_FUZZ_SECS"), var("BOXTRACK_FUZZ_RUNS")) {
            (Some(s), _) => Budget::Time(Duration::from_secs(s)),
            (None, Some(n)) => Budget::Runs(n),
            (None, None) => Budget::Runs(DEFAULT_RUNS),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The target's name.
    pub name: String,
    /// Inputs run.
    pub executions: u64,
    /// How long it took.
    pub elapsed: Duration,
    /// The random seed.
    pub seed: u64,
}

/// A panic the target raised, with the input that raised it.
#[derive(Debug)]
pub struct Crash {
    /// The input.
    pub input: Vec<u8>,
    /// Where it was written.
    pub saved: Option<PathBuf>,
    /// The panic's message.
    pub message: String,
}

/// Applies one to eight random mutations to a copy of `seed`.
pub fn mutate(rng: &mut StdRng, seed: &[u8], others: &[Vec<u8>], dict: &[&[u8]]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..rng.random_range(1..=8) {
        let len = v.len();
        match rng.random_range(0..9) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] = *[0u8, 0xff, b'\n', b'*', b'~', b',', b'"', b'\\', b'{', 0x80]
                    .get(rng.random_range(0..10))
                    .unwrap_or(&0);
            }
            2 => {
                let i = rng.random_range(0..=len);
                let n = rng.random_range(1..=16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                v.splice(i..i, bytes);
            }
            3 if len > 0 => {
                let a = rng.random_range(0..len);
                let b = (a + rng.random_range(1..=64)).min(len);
                v.drain(a..b);
            }
            4 if len > 0 => {
                let a = rng.random_range(0..len);
                let b = (a + rng.random_range(1..=64)).min(len);
                let chunk = v[a..b].to_vec();
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, chunk);
            }
            5 if !others.is_empty() => {
                let o = &others[rng.random_range(0..others.len())];
                if !o.is_empty() {
                    let a = rng.random_range(0..o.len());
                    let b = (a + rng.random_range(1..=256)).min(o.len());
                    let at = rng.random_range(0..=v.len());
                    v.splice(at..at, o[a..b].iter().copied());
                }
            }
            6 if !dict.is_empty() => {
                let t = dict[rng.random_range(0..dict.len())];
                let at = rng.random_range(0..=v.len());
                v.splice(at..at, t.iter().copied());
            }
            7 if len > 0 => v.truncate(rng.random_range(0..len)),
            _ => {
                // a number made extreme: digits replaced by many digits
                if let Some(i) = (0..len).find(|&i| v[i].is_ascii_digit() && rng.random_bool(0.05))
                {
                    v.splice(i..i, b"99999999999999999999".iter().copied());
                }
            }
        }
    }
    v
}

/// Runs `target` on the seeds as they are, then on mutations of them, within `budget`.
/// Returns the report, or the first input that panicked.
pub fn run(
    name: &str,
    seeds: &[Vec<u8>],
    dict: &[&[u8]],
    budget: Budget,
    seed: u64,
    target: impl Fn(&[u8]),
) -> Result<Report, Crash> {
    let mut rng = StdRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut executions = 0u64;
    quiet_hook();
    let mut seeds_first = seeds.iter().cloned();
    let outcome = loop {
        let done = match budget {
            Budget::Time(d) => started.elapsed() >= d,
            Budget::Runs(n) => executions >= n,
        };
        if done {
            break Ok(());
        }
        let input = seeds_first.next().unwrap_or_else(|| {
            let base: &[u8] = if seeds.is_empty() || rng.random_bool(0.02) {
                &[]
            } else {
                &seeds[rng.random_range(0..seeds.len())]
            };
            mutate(&mut rng, base, seeds, dict)
        });
        executions += 1;
        QUIET.with(|q| q.set(true));
        let result = catch_unwind(AssertUnwindSafe(|| target(&input)));
        QUIET.with(|q| q.set(false));
        if let Err(p) = result {
            let message = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_else(|| "a panic without a message".to_string());
            break Err((input, message));
        }
    };
    match outcome {
        Ok(()) => Ok(Report {
            name: name.to_string(),
            executions,
            elapsed: started.elapsed(),
            seed,
        }),
        Err((input, message)) => {
            let saved = save(name, &input);
            Err(Crash {
                input,
                saved,
                message,
            })
        }
    }
}

thread_local! {
    /// Set while this thread runs a target: its panics are reported once, with their input,
    /// not printed as they happen.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs, once per process, a panic hook that is silent on threads running a target and
/// the previous hook everywhere else (other tests' failures still print).
fn quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
}

fn save(name: &str, input: &[u8]) -> Option<PathBuf> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    input.hash(&mut h);
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("fuzz-crashes");
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{name}-{:016x}.bin", h.finish()));
    std::fs::write(&path, input).ok()?;
    Some(path)
}

/// [`run`] with the budget and seed from the environment; panics (failing the test) on a
/// crash, naming the file that holds the input. Prints what it ran.
pub fn check(name: &str, seeds: &[Vec<u8>], dict: &[&[u8]], target: impl Fn(&[u8])) {
    let seed = std::env::var("BOXTRACK_FUZZ_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0x_b0c5_7ac4);
    match run(name, seeds, dict, Budget::from_env(), seed, target) {
        Ok(r) => eprintln!(
            "fuzz {}: {} executions in {:.1} s, no crash (seed {})",
            r.name,
            r.executions,
            r.elapsed.as_secs_f64(),
            r.seed
        ),
        Err(c) => panic!(
            "fuzz {name}: the target panicked ({}) on an input of {} bytes saved at {:?} (seed {seed}); \
             add it to the target's seeds as a regression test once fixed. Input: {:?}",
            c.message,
            c.input.len(),
            c.saved,
            String::from_utf8_lossy(&c.input[..c.input.len().min(400)])
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_target_is_caught_with_its_input() {
        let seeds = vec![b"hello".to_vec()];
        let crash = run("t", &seeds, &[b"BOOM"], Budget::Runs(100_000), 1, |b| {
            if b.windows(4).any(|w| w == b"BOOM") {
                panic!("found it");
            }
        })
        .unwrap_err();
        assert!(crash.input.windows(4).any(|w| w == b"BOOM"));
        assert_eq!(crash.message, "found it");
    }

    #[test]
    fn the_same_seed_gives_the_same_inputs() {
        let seeds = vec![b"ISA*00*~".to_vec()];
        let gather = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            (0..50)
                .map(|_| mutate(&mut rng, &seeds[0], &seeds, &[]))
                .collect::<Vec<_>>()
        };
        assert_eq!(gather(7), gather(7));
        assert_ne!(gather(7), gather(8));
    }

    #[test]
    fn a_quiet_target_runs_its_budget() {
        let r = run("q", &[b"x".to_vec()], &[], Budget::Runs(500), 3, |_| {}).unwrap();
        assert_eq!(r.executions, 500);
    }
}
