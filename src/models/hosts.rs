//! Credentials of executed calls (SPEC §7): per host, the environment
//! variable holding a key and where the request carries it. They come from
//! `[[hosts]]` tables, in `models.toml` or in a file of their own
//! (`--hosts hosts.toml`):
//!
//! ```toml
//! [[hosts]]
//! host = "api.example.org"     # or "127.0.0.1:8080"
//! key_env = "EXAMPLE_API_KEY"
//! header = "X-Api-Key"         # or query = "apikey"; default: Authorization
//! prefix = ""                  # default "Bearer " for Authorization, else ""
//! ```
//!
//! A key is only ever added to the request as it is sent: the URL and
//! arguments a cassette stores never hold it, and an answer echoing it has
//! it masked before it is shown or stored.

use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::models::key::ApiKey;

/// One `[[hosts]]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCredential {
    /// The host (`name` or `name:port`) the key is for.
    pub host: String,
    /// The environment variable holding the key.
    pub key_env: String,
    /// The header carrying the key (default `Authorization`).
    #[serde(default)]
    pub header: Option<String>,
    /// The query parameter carrying the key, instead of a header.
    #[serde(default)]
    pub query: Option<String>,
    /// Text before the key in the header (default `Bearer ` for
    /// `Authorization`, else none).
    #[serde(default)]
    pub prefix: Option<String>,
}

/// A file of `[[hosts]]` tables.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostsFile {
    /// The credentials, in file order.
    #[serde(default)]
    pub hosts: Vec<HostCredential>,
}

impl HostsFile {
    /// Reads a hosts file; errors name the file, the field and the line.
    pub fn load(path: &Path) -> anyhow::Result<HostsFile> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        crate::util::toml_file::from_str(&text, &path.display().to_string())
    }
}

/// Where a request carries a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPlace {
    /// In this header, after this prefix.
    Header {
        /// Header name.
        name: String,
        /// Text before the key.
        prefix: String,
    },
    /// In this query parameter.
    Query(String),
}

/// A host's key, read from the environment.
#[derive(Debug, Clone)]
pub struct HostKey {
    /// The host, lower-cased (`name` or `name:port`).
    pub host: String,
    /// Where the key goes.
    pub place: KeyPlace,
    /// The key.
    pub key: ApiKey,
}

impl HostCredential {
    /// Reads the key from the environment: an error naming the variable
    /// (never a value) when it is unset or empty, or when the table is
    /// inconsistent (`place` names it in messages).
    pub fn resolve(&self, place: &str) -> anyhow::Result<HostKey> {
        if self.host.trim().is_empty() {
            bail!("{place}.host: empty");
        }
        let place_of_key = match (&self.header, &self.query) {
            (Some(_), Some(_)) => bail!("{place}: give `header` or `query`, not both"),
            (None, Some(query)) => KeyPlace::Query(query.clone()),
            (header, None) => {
                let name = header.clone().unwrap_or_else(|| "Authorization".into());
                let default_prefix = if name.eq_ignore_ascii_case("authorization") {
                    "Bearer "
                } else {
                    ""
                };
                KeyPlace::Header {
                    prefix: self.prefix.clone().unwrap_or_else(|| default_prefix.into()),
                    name,
                }
            }
        };
        match std::env::var(&self.key_env) {
            Ok(value) if !value.trim().is_empty() => Ok(HostKey {
                host: self.host.trim().to_ascii_lowercase(),
                place: place_of_key,
                key: ApiKey::new(value.trim()),
            }),
            _ => bail!(
                "{place}: environment variable {} (the key for host {}) is not set or empty",
                self.key_env,
                self.host
            ),
        }
    }
}

/// Whether `host` (and `port`) matches an allowed or credential host,
/// written `name` (any port) or `name:port`.
pub fn host_matches(pattern: &str, host: &str, port: Option<u16>) -> bool {
    let pattern = pattern.trim().to_ascii_lowercase();
    let host = host.to_ascii_lowercase();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match pattern
        .rsplit_once(':')
        .filter(|(_, p)| p.parse::<u16>().is_ok())
    {
        Some((name, p)) if !name.contains(':') || name.starts_with('[') => {
            name.trim_start_matches('[').trim_end_matches(']') == host
                && Some(p.parse::<u16>().unwrap_or(0)) == port
        }
        _ => pattern.trim_start_matches('[').trim_end_matches(']') == host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_with_or_without_a_port() {
        assert!(host_matches(
            "api.example.org",
            "API.example.org",
            Some(443)
        ));
        assert!(host_matches("127.0.0.1:8080", "127.0.0.1", Some(8080)));
        assert!(!host_matches("127.0.0.1:8080", "127.0.0.1", Some(8081)));
        assert!(!host_matches("example.org", "api.example.org", None));
        assert!(host_matches("[::1]:80", "[::1]", Some(80)));
        assert!(host_matches("::1", "[::1]", Some(80)));
    }

    #[test]
    fn a_missing_variable_is_named_and_the_place_defaults() {
        let credential = HostCredential {
            host: "h".into(),
            key_env: "ITC_TEST_SURELY_UNSET_KEY".into(),
            header: None,
            query: None,
            prefix: None,
        };
        let error = credential.resolve("hosts[0]").unwrap_err().to_string();
        assert!(error.contains("ITC_TEST_SURELY_UNSET_KEY"), "{error}");
        let both = HostCredential {
            header: Some("X".into()),
            query: Some("k".into()),
            ..credential
        };
        assert!(
            both.resolve("hosts[1]")
                .unwrap_err()
                .to_string()
                .contains("not both")
        );
    }

    #[test]
    fn a_hosts_file_error_names_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hosts.toml");
        std::fs::write(&path, "[[hosts]]\nhost = \"h\"\nkey_env = 3\n").unwrap();
        let error = HostsFile::load(&path).unwrap_err().to_string();
        assert!(error.contains("hosts[0].key_env"), "{error}");
    }
}
