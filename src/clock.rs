//! The wall clock as the reports and stores write it: now in seconds since
//! the Unix epoch, and a time as RFC 3339 in UTC (`2026-11-29T15:13:41Z`).
//! Times are records of when something was asked; no figure depends on them.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now in seconds since the Unix epoch (0 on a clock set before it).
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// (year, month, day) of a day number since 1970-01-01 (the proleptic
/// Gregorian calendar; Howard Hinnant's `civil_from_days`).
pub fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `secs` since the Unix epoch as RFC 3339 in UTC, to the second.
pub fn rfc3339(secs: u64) -> String {
    let (y, m, d) = civil((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Now as RFC 3339 in UTC.
pub fn now_rfc3339() -> String {
    rfc3339(now_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_across_leap_years_and_centuries() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_764_100_800), "2025-11-25T20:00:00Z");
        assert_eq!(rfc3339(1_795_324_861), "2026-11-22T05:21:01Z");
        assert_eq!(civil(-1), (1969, 12, 31));
    }
}
