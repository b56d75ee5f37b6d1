//! Requests-per-minute and tokens-per-minute limits: token buckets that
//! refill continuously at the per-minute rate and start full. A bucket
//! holds [`BURST_SECONDS`] worth of units, so a run never fires a whole
//! minute's quota at once (providers often enforce their per-minute limits
//! over shorter windows).
//!
//! Token use is only known after a request, so a request takes an estimate
//! up front and [`RateLimiter::settle`] charges the difference afterwards
//! (a bucket may go negative, delaying later requests).

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Seconds of the per-minute rate a full bucket holds.
pub const BURST_SECONDS: f64 = 10.0;

/// One bucket: refilled at its per-minute rate, holding [`BURST_SECONDS`]
/// of it (at least one unit).
#[derive(Debug, Clone)]
pub struct Bucket {
    capacity: f64,
    per_second: f64,
    level: f64,
    updated: Instant,
}

impl Bucket {
    /// A full bucket allowing `per_minute` units a minute.
    pub fn new(per_minute: f64, now: Instant) -> Bucket {
        let per_second = per_minute / 60.0;
        let capacity = (per_second * BURST_SECONDS).max(1.0);
        Bucket {
            capacity,
            per_second,
            level: capacity,
            updated: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.level = (self.level + elapsed * self.per_second).min(self.capacity);
        self.updated = self.updated.max(now);
    }

    /// Takes `amount` units if the bucket holds them (an amount larger than
    /// the capacity is taken from a full bucket); otherwise says how long
    /// until it will.
    pub fn try_take(&mut self, amount: f64, now: Instant) -> Result<(), Duration> {
        self.refill(now);
        let needed = amount.min(self.capacity);
        if self.level >= needed {
            self.level -= amount;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (needed - self.level) / self.per_second,
            ))
        }
    }

    /// Adds (positive) or removes (negative) units without waiting.
    pub fn adjust(&mut self, delta: f64, now: Instant) {
        self.refill(now);
        self.level = (self.level + delta).min(self.capacity);
    }

    /// Units available now.
    pub fn level(&mut self, now: Instant) -> f64 {
        self.refill(now);
        self.level
    }
}

/// A model's limits: requests and tokens per minute, either optional.
#[derive(Debug)]
pub struct RateLimiter {
    requests: Option<Mutex<Bucket>>,
    tokens: Option<Mutex<Bucket>>,
}

impl RateLimiter {
    /// Limits of `requests_per_minute` and `tokens_per_minute` (none when absent).
    pub fn new(requests_per_minute: Option<u32>, tokens_per_minute: Option<u64>) -> RateLimiter {
        let now = Instant::now();
        RateLimiter {
            requests: requests_per_minute.map(|n| Mutex::new(Bucket::new(f64::from(n), now))),
            tokens: tokens_per_minute.map(|n| Mutex::new(Bucket::new(n as f64, now))),
        }
    }

    /// Waits until one request and `estimated_tokens` tokens may be spent.
    pub async fn acquire(&self, estimated_tokens: u64) {
        if let Some(tokens) = &self.tokens {
            wait_for(tokens, estimated_tokens as f64).await;
        }
        if let Some(requests) = &self.requests {
            wait_for(requests, 1.0).await;
        }
    }

    /// Charges the difference between the tokens used and the estimate.
    pub fn settle(&self, estimated_tokens: u64, used_tokens: u64) {
        if let Some(tokens) = &self.tokens {
            let delta = estimated_tokens as f64 - used_tokens as f64;
            lock(tokens).adjust(delta, Instant::now());
        }
    }
}

fn lock(bucket: &Mutex<Bucket>) -> std::sync::MutexGuard<'_, Bucket> {
    bucket
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn wait_for(bucket: &Mutex<Bucket>, amount: f64) {
    loop {
        let wait = match lock(bucket).try_take(amount, Instant::now()) {
            Ok(()) => return,
            Err(wait) => wait,
        };
        tokio::time::sleep(wait.max(Duration::from_millis(1))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_starts_full_and_refills_at_its_rate() {
        let t0 = Instant::now();
        let mut b = Bucket::new(60.0, t0); // one a second, ten at once
        for _ in 0..10 {
            assert!(b.try_take(1.0, t0).is_ok());
        }
        let wait = b.try_take(1.0, t0).unwrap_err();
        assert!((wait.as_secs_f64() - 1.0).abs() < 1e-9, "{wait:?}");
        assert!(b.try_take(1.0, t0 + Duration::from_millis(500)).is_err());
        assert!(b.try_take(1.0, t0 + Duration::from_millis(1000)).is_ok());
        // Refill stops at the capacity.
        assert!((b.level(t0 + Duration::from_secs(3600)) - 10.0).abs() < 1e-9);
        // A tiny rate still lets one request through.
        assert!(Bucket::new(1.0, t0).try_take(1.0, t0).is_ok());
    }

    #[test]
    fn oversized_requests_take_a_full_bucket_and_go_negative() {
        let t0 = Instant::now();
        let mut b = Bucket::new(600.0, t0); // 10 a second, 100 at once
        assert!(b.try_take(250.0, t0).is_ok());
        assert!((b.level(t0) + 150.0).abs() < 1e-9);
        let wait = b.try_take(10.0, t0).unwrap_err();
        assert!((wait.as_secs_f64() - 16.0).abs() < 1e-6, "{wait:?}"); // 160 units at 10 per s
    }

    #[test]
    fn settling_charges_the_difference() {
        let t0 = Instant::now();
        let mut b = Bucket::new(6000.0, t0); // holds 1000
        b.try_take(100.0, t0).unwrap();
        b.adjust(100.0 - 400.0, t0); // used 400, estimated 100
        assert!((b.level(t0) - 600.0).abs() < 1e-9);
        b.adjust(10_000.0, t0);
        assert!((b.level(t0) - 1000.0).abs() < 1e-9);
    }

    #[tokio::test]
    async fn limiter_spaces_requests() {
        // 600 a minute = one per 100 ms once the initial burst of 100 is spent.
        let limiter = RateLimiter::new(Some(600), None);
        for _ in 0..100 {
            limiter.acquire(0).await;
        }
        let start = Instant::now();
        limiter.acquire(0).await;
        limiter.acquire(0).await;
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(150), "{waited:?}");
    }
}
