//! How many threads a generation can use now: the cores that other processes leave idle,
//! measured from `/proc/stat` between calls. llama.cpp's OpenMP threads spin at their barriers,
//! which is what makes two threads fast on an idle laptop and what makes them collapse when
//! another process holds a core (a spinning thread waits for one that is not running). So a
//! call runs on as many threads as there are free cores, at least one: tok/s then falls with the
//! CPU share, not tenfold (docs/benchmarks.md, Speed). The thread policy of every model call is here:
//! [`Threads`] (a fixed count, or the free cores up to the physical ones).

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A window shorter than this says little at 100 ticks a second; the decision is kept instead.
const MIN_WINDOW: Duration = Duration::from_millis(250);
/// The first measurement's window, taken when there is no earlier sample.
const FIRST_WINDOW: Duration = Duration::from_millis(100);

/// CPU time counters at one instant, in clock ticks.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    /// Busy time of every CPU (user, nice, system, irq, softirq, steal).
    all: u64,
    /// Time this process ran (user and system, all threads).
    own: u64,
}

impl Sample {
    fn now() -> Option<Sample> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        Some(Sample {
            at: Instant::now(),
            all: busy_ticks(&stat)?,
            own: own_ticks(&own)?,
        })
    }
}

/// The busy ticks on the aggregate `cpu` line of `/proc/stat`.
fn busy_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user already).
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some(at(0) + at(1) + at(2) + at(5) + at(6) + at(7))
}

/// utime + stime of `/proc/self/stat` (fields 14 and 15; the command name may hold spaces, so
/// fields are counted after its closing parenthesis).
fn own_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// The cores other processes used between two samples (ticks are 1/100 s on Linux).
fn others_busy(a: &Sample, b: &Sample) -> f64 {
    let wall = b.at.duration_since(a.at).as_secs_f64();
    if wall <= 0.0 {
        return 0.0;
    }
    let others = b
        .all
        .saturating_sub(a.all)
        .saturating_sub(b.own.saturating_sub(a.own));
    others as f64 / TICKS_PER_SEC / wall
}

const TICKS_PER_SEC: f64 = 100.0;

/// Threads for a call on `cpus` CPUs when other processes keep `busy` cores busy, between 1
/// and `max`: the free cores, rounded up from three quarters of one (a core another process
/// uses a quarter of is still worth a thread).
pub fn threads_for(cpus: usize, busy: f64, max: usize) -> usize {
    let free = cpus as f64 - busy;
    let n = (free + 0.25).floor();
    if n < 1.0 {
        1
    } else {
        (n as usize).clamp(1, max.max(1))
    }
}

/// The thread count of the next call, re-measured when a window of [`MIN_WINDOW`] has passed.
#[derive(Debug)]
pub struct CpuShare {
    max: usize,
    cpus: usize,
    last: Option<Sample>,
    /// The last decision; `None` before the first measurement.
    threads: Option<usize>,
}

impl CpuShare {
    /// At most `max` threads (the physical cores, or what the user set). The first window
    /// starts now.
    pub fn new(max: usize) -> CpuShare {
        CpuShare {
            max: max.max(1),
            cpus: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            last: Sample::now(),
            threads: None,
        }
    }

    /// Threads for the call about to start. Where `/proc` cannot be read, `max`.
    pub fn threads(&mut self) -> usize {
        let Some(last) = self.last else {
            return self.max;
        };
        let elapsed = last.at.elapsed();
        match self.threads {
            Some(n) if elapsed < MIN_WINDOW => return n,
            None if elapsed < FIRST_WINDOW => std::thread::sleep(FIRST_WINDOW - elapsed),
            _ => {}
        }
        let Some(now) = Sample::now() else {
            return self.max;
        };
        let busy = others_busy(&last, &now);
        let n = threads_for(self.cpus, busy, self.max);
        self.threads = Some(n);
        self.last = Some(now);
        tracing::debug!(
            busy = format!("{busy:.2}"),
            threads = n,
            "llama: cores other processes use, and threads for this call"
        );
        n
    }
}

/// How many threads each model call uses.
#[derive(Debug)]
pub enum Threads {
    /// Always this many (`--threads`, or a test).
    Fixed(usize),
    /// As many as there are cores other processes leave free, at most the physical cores.
    Share(Mutex<CpuShare>),
}

impl Threads {
    /// `Some(n)` (n > 0) → always `n`; `None` → each call's share of the free cores, at most
    /// [`physical_cores`].
    pub fn new(fixed: Option<usize>) -> Threads {
        match fixed.filter(|&n| n > 0) {
            Some(n) => Threads::Fixed(n),
            None => Threads::Share(Mutex::new(CpuShare::new(physical_cores()))),
        }
    }

    /// Threads for the call about to start.
    pub fn now(&self) -> usize {
        match self {
            Threads::Fixed(n) => *n,
            Threads::Share(share) => share
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .threads(),
        }
    }
}

/// Number of physical cores (Linux: distinct (physical id, core id) pairs), else logical CPUs.
pub fn physical_cores() -> usize {
    let logical = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let mut cores = std::collections::HashSet::new();
    let mut physical = "";
    for line in info.lines() {
        let mut parts = line.splitn(2, ':');
        let key = parts.next().unwrap_or("").trim();
        let value = parts.next().unwrap_or("").trim();
        match key {
            "physical id" => physical = value,
            "core id" => {
                cores.insert((physical, value));
            }
            _ => {}
        }
    }
    if cores.is_empty() {
        logical
    } else {
        cores.len().min(logical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_follow_the_free_cores() {
        // Idle two-core laptop: both threads.
        assert_eq!(threads_for(2, 0.05, 2), 2);
        // A compile job holding one core: one thread, no barrier waits on a descheduled one.
        assert_eq!(threads_for(2, 1.0, 2), 1);
        assert_eq!(threads_for(2, 0.8, 2), 1);
        // A light background load still leaves room for both.
        assert_eq!(threads_for(2, 0.2, 2), 2);
        // Both cores busy: one thread, never zero.
        assert_eq!(threads_for(2, 2.0, 2), 1);
        assert_eq!(threads_for(2, 3.5, 2), 1);
        // Never more than asked for.
        assert_eq!(threads_for(8, 0.0, 4), 4);
        assert_eq!(threads_for(8, 5.0, 4), 3);
    }

    #[test]
    fn counters_parse_from_proc() {
        let stat = "cpu  100 5 50 1000 7 3 2 1 0 0\ncpu0 50 2 25 500 3 1 1 0 0 0\n";
        assert_eq!(busy_ticks(stat), Some(100 + 5 + 50 + 3 + 2 + 1));
        let own = "4242 (my (odd) name) R 1 4242 4242 0 -1 4194304 100 0 0 0 17 4 0 0 20 0 3 0";
        assert_eq!(own_ticks(own), Some(21));
        assert!(Sample::now().is_some(), "this test runs on Linux");
    }

    #[test]
    fn others_exclude_this_process() {
        let at = Instant::now();
        let a = Sample {
            at,
            all: 1000,
            own: 100,
        };
        let b = Sample {
            at: at + Duration::from_secs(1),
            all: 1250,
            own: 250,
        };
        // 250 ticks busy in a second, 150 of them ours: others used one core.
        assert!((others_busy(&a, &b) - 1.0).abs() < 1e-9);
    }
}
