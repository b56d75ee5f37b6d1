//! Dates without a date crate: civil dates from day counts (Howard
//! Hinnant's algorithms) and the two UTC forms itc writes.

use std::time::{SystemTime, UNIX_EPOCH};

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month, day)` of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Seconds since 1970-01-01 and the civil date and time of day, in UTC.
fn utc_parts(now: SystemTime) -> ((i64, i64, i64), i64) {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    (
        civil_from_days(secs.div_euclid(86_400)),
        secs.rem_euclid(86_400),
    )
}

/// `YYYYMMDD-HHMMSS` in UTC.
pub fn timestamp(now: SystemTime) -> String {
    let ((y, mo, d), rem) = utc_parts(now);
    format!(
        "{y:04}{mo:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// RFC 3339 in UTC to the second: `2026-11-24T01:40:05Z`.
pub fn rfc3339(now: SystemTime) -> String {
    let ((y, mo, d), rem) = utc_parts(now);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_forms_of_a_known_instant() {
        // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example date).
        let t = UNIX_EPOCH + std::time::Duration::from_secs(784_111_777);
        assert_eq!(timestamp(t), "19941106-084937");
        assert_eq!(rfc3339(t), "1994-11-06T08:49:37Z");
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
    }

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for days in [-1000, 0, 59, 60, 11_016, 20_000, 50_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
