//! Retry timing: capped exponential backoff with jitter, and the
//! `Retry-After` header (delay in seconds, or an HTTP date).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::util::time::days_from_civil;

/// When to retry a failed request and how long to wait first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Requests per task at most, the first included.
    pub max_attempts: u32,
    /// Delay before the first retry; doubles for each further one.
    pub base: Duration,
    /// Longest backoff delay.
    pub cap: Duration,
    /// Longest wait a server's `Retry-After` may ask for; a longer request
    /// is clamped to this.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 5,
            base: Duration::from_secs(1),
            cap: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// The backoff ceiling before retry number `retry` (1 for the first
    /// retry): `min(cap, base · 2^(retry-1))`.
    pub fn ceiling(&self, retry: u32) -> Duration {
        let factor = 1u32
            .checked_shl(retry.saturating_sub(1).min(31))
            .unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// The wait before retry number `retry`: "equal jitter", uniformly in
    /// `[ceiling/2, ceiling]`, so waits stay spread out yet never collapse to
    /// zero; at least the server's `Retry-After` (clamped to
    /// `max_retry_after`) when it sent one.
    pub fn delay(
        &self,
        retry: u32,
        retry_after: Option<Duration>,
        rng: &mut fastrand::Rng,
    ) -> Duration {
        let ceiling = self.ceiling(retry);
        let half = ceiling / 2;
        let jitter = Duration::from_nanos(
            rng.u64(0..=(ceiling - half).as_nanos().min(u64::MAX as u128) as u64),
        );
        let backoff = half + jitter;
        match retry_after {
            Some(wait) => backoff.max(wait.min(self.max_retry_after)),
            None => backoff,
        }
    }
}

/// Reads a `Retry-After` value: a number of seconds, or an HTTP date (the
/// wait is then the time from `now` to that date, zero if it has passed).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    // Some servers send fractional seconds.
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::from_secs_f64(seconds.min(1e9)));
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// Parses the three HTTP date forms (RFC 9110 §5.6.7): IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`
/// and asctime `Sun Nov  6 08:49:37 1994`.
pub fn parse_http_date(text: &str) -> Option<SystemTime> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (day, month, year, time) = match words.as_slice() {
        // IMF-fixdate: weekday, DD Mon YYYY HH:MM:SS GMT
        [_, d, m, y, t, "GMT"] => (d.parse().ok()?, month_number(m)?, y.parse().ok()?, *t),
        // RFC 850: weekday, DD-Mon-YY HH:MM:SS GMT
        [_, date, t, "GMT"] => {
            let mut parts = date.split('-');
            let d = parts.next()?.parse().ok()?;
            let m = month_number(parts.next()?)?;
            let y: i64 = parts.next()?.parse().ok()?;
            let y = if y < 70 {
                2000 + y
            } else if y < 100 {
                1900 + y
            } else {
                y
            };
            (d, m, y, *t)
        }
        // asctime: weekday Mon D HH:MM:SS YYYY
        [_, m, d, t, y] => (d.parse().ok()?, month_number(m)?, y.parse().ok()?, *t),
        _ => return None,
    };
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, mi, s) = (hms.next()??, hms.next()??, hms.next()??);
    if !(1..=31).contains(&day) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + h * 3600 + mi * 60 + s;
    u64::try_from(secs)
        .ok()
        .map(|s| UNIX_EPOCH + Duration::from_secs(s))
}

fn month_number(name: &str) -> Option<i64> {
    let lower = name.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| *m == lower)
        .map(|i| i as i64 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sunday, 06-Nov-94 08:50:37 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Sun Nov  6 08:49:39 1994", now),
            Some(Duration::from_secs(2))
        );
        // A date in the past means "now".
        assert_eq!(
            parse_retry_after("Sat, 05 Nov 1994 08:49:37 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(
            parse_retry_after("Sun, 06 Foo 1994 08:49:37 GMT", now),
            None
        );
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base: Duration::from_millis(100),
            cap: Duration::from_millis(1000),
            max_retry_after: Duration::from_secs(5),
        };
        assert_eq!(policy.ceiling(1), Duration::from_millis(100));
        assert_eq!(policy.ceiling(2), Duration::from_millis(200));
        assert_eq!(policy.ceiling(4), Duration::from_millis(800));
        assert_eq!(policy.ceiling(5), Duration::from_millis(1000));
        assert_eq!(policy.ceiling(60), Duration::from_millis(1000));
        let mut rng = fastrand::Rng::with_seed(7);
        let delays: Vec<_> = (0..200).map(|_| policy.delay(3, None, &mut rng)).collect();
        assert!(
            delays
                .iter()
                .all(|d| *d >= Duration::from_millis(200) && *d <= Duration::from_millis(400))
        );
        assert!(delays.iter().any(|d| *d != delays[0]), "jitter varies");
        // Retry-After wins when longer, and is clamped.
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(2)), &mut rng),
            Duration::from_secs(2)
        );
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(99)), &mut rng),
            Duration::from_secs(5)
        );
        assert!(
            policy.delay(5, Some(Duration::from_millis(1)), &mut rng) >= Duration::from_millis(500)
        );
    }
}
