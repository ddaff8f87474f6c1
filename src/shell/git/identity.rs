//! Who makes a commit and when: the `GIT_AUTHOR_*`/`GIT_COMMITTER_*` environment, then the
//! config, then `root <root@localhost>`; dates as the environment gives them.

use super::objects::{Signature, parse_tz};
use super::repo::Repo;

/// Now, in seconds since the epoch.
pub(super) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A date as `GIT_AUTHOR_DATE` gives it: `@SECONDS [+ZZZZ]`, `SECONDS +ZZZZ`, or
/// `YYYY-MM-DD[ T]HH:MM:SS [+ZZZZ]`.
pub(super) fn parse_date(s: &str) -> Option<(i64, i32)> {
    let s = s.trim();
    let (main, tz) = match s.rsplit_once(' ') {
        Some((m, z)) if parse_tz(z).is_some() => (m.trim(), parse_tz(z)?),
        _ => (s, 0),
    };
    if let Ok(t) = main.trim_start_matches('@').parse::<i64>() {
        return Some((t, tz));
    }
    let fmt = if main.contains('T') {
        "%Y-%m-%dT%H:%M:%S"
    } else {
        "%Y-%m-%d %H:%M:%S"
    };
    let naive = chrono::NaiveDateTime::parse_from_str(main, fmt).ok()?;
    Some((naive.and_utc().timestamp() - i64::from(tz) * 60, tz))
}

/// Who is making a commit, in role `who` ("AUTHOR" or "COMMITTER"): the environment, then
/// the config, then `root <root@localhost>`.
pub(super) fn ident(repo: &Repo, who: &str) -> Signature {
    let env = |k: &str| repo.env.get(k).filter(|v| !v.is_empty()).cloned();
    let name = env(&format!("GIT_{who}_NAME"))
        .or_else(|| repo.config.get("user.name").map(str::to_string))
        .unwrap_or_else(|| "root".into());
    let email = env(&format!("GIT_{who}_EMAIL"))
        .or_else(|| repo.config.get("user.email").map(str::to_string))
        .or_else(|| env("EMAIL"))
        .unwrap_or_else(|| "root@localhost".into());
    let (time, tz) = env(&format!("GIT_{who}_DATE"))
        .and_then(|d| parse_date(&d))
        .unwrap_or((now(), 0));
    Signature {
        name,
        email,
        time,
        tz,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_the_environment() {
        assert_eq!(parse_date("@1700000000 +0100"), Some((1_700_000_000, 60)));
        assert_eq!(parse_date("1700000000"), Some((1_700_000_000, 0)));
        assert_eq!(
            parse_date("2005-04-07T22:13:13 +0200"),
            Some((1_112_904_793, 120))
        );
        assert_eq!(parse_date("yesterday"), None);
    }
}
