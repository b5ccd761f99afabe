//! Plays sandbox scenarios on the virtual clock: a journey that started at real time `S`
//! has reached virtual hour `(now - S) × speed / 1 h`; every step up to there is applied through
//! the ordinary merge path, with its times shifted to start at `S`.

use std::collections::BTreeMap;

use boxtrack_core::tracking::Observation;
use boxtrack_sources::scenarios::{self, shift};
use boxtrack_store::{Db, StoreError, sandbox};

/// One simulated hour per real second.
pub const DEFAULT_SPEED: f64 = 3600.0;

const H: i64 = 3_600_000_000;

/// Which steps of a scenario are due: `(first, end)` indexes into its steps.
pub fn due_steps(
    step_hours: &[i64],
    next_step: usize,
    started_us: i64,
    now_us: i64,
    speed: f64,
) -> (usize, usize) {
    let elapsed_virtual_us = ((now_us - started_us).max(0) as f64 * speed) as i64;
    let end = step_hours
        .iter()
        .enumerate()
        .skip(next_step)
        .take_while(|(_, h)| **h * H <= elapsed_virtual_us)
        .map(|(i, _)| i + 1)
        .last()
        .unwrap_or(next_step);
    (next_step, end)
}

/// Applies every due step of every live run; returns how many steps were applied.
pub async fn play_due(db: &Db, now_us: i64, speed: f64) -> Result<usize, StoreError> {
    let mut applied = 0;
    for run in sandbox::live_runs(db).await? {
        applied += play_run(db, &run, now_us, speed).await?.0;
    }
    Ok(applied)
}

/// Applies the due steps of one run (a sandbox shipment's journey): how many steps were
/// applied and what they changed in each container (nothing when another worker played them
/// first).
pub async fn play_run(
    db: &Db,
    run: &sandbox::RunRow,
    now_us: i64,
    speed: f64,
) -> Result<(usize, sandbox::Advanced), StoreError> {
    let Some(scenario) = scenarios::by_number(&run.scenario) else {
        sandbox::advance(db, run, &[], run.next_step, true).await?;
        return Ok((0, Vec::new()));
    };
    let hours: Vec<i64> = scenario.steps.iter().map(|s| s.at_h).collect();
    let (from, to) = due_steps(
        &hours,
        run.next_step.max(0) as usize,
        run.started_us,
        now_us,
        speed,
    );
    if from == to {
        return Ok((0, Vec::new()));
    }
    let mut by_container: BTreeMap<usize, Vec<Observation>> = BTreeMap::new();
    for step in &scenario.steps[from..to] {
        by_container
            .entry(step.container)
            .or_default()
            .push(shift(&step.observation, run.started_us));
    }
    let batches: Vec<(usize, Vec<Observation>)> = by_container.into_iter().collect();
    let done = to >= scenario.steps.len();
    Ok(
        match sandbox::advance(db, run, &batches, to as i64, done).await? {
            Some(changed) => (to - from, changed),
            None => (0, Vec::new()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_come_due_with_virtual_time() {
        let hours = [0, 1, 1, 5, 24];
        let s = 1_000_000;
        // at the start only hour-0 steps are due
        assert_eq!(due_steps(&hours, 0, 0, 0, 3600.0), (0, 1));
        // one real second = one simulated hour
        assert_eq!(due_steps(&hours, 1, 0, s, 3600.0), (1, 3));
        assert_eq!(due_steps(&hours, 3, 0, 4 * s, 3600.0), (3, 3));
        assert_eq!(due_steps(&hours, 3, 0, 24 * s, 3600.0), (3, 5));
        // real time (speed 1): a day later
        assert_eq!(due_steps(&hours, 0, 0, 24 * 3600 * s, 1.0), (0, 5));
    }
}
