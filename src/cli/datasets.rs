//! `itc datasets`: the datasets itc knows, as a table or JSON.

use std::io::Write;

use clap::Args;

use super::flags::{OodCacheFlags, TableFlags};
use crate::benchmarks::listing::{self, ListOptions};
use crate::score::files::OutputFormat;

/// Arguments of `itc datasets`.
#[derive(Debug, Clone, Args)]
pub struct DatasetsArgs {
    /// Output: `table`, or `json` (one JSON object: the cache directory and every dataset).
    #[arg(long, value_enum, default_value_t = OutputFormat::Table, hide_possible_values = true)]
    pub format: OutputFormat,
    /// The `itc ood fetch` cache to look in.
    #[command(flatten)]
    pub cache: OodCacheFlags,
    /// How the table is laid out.
    #[command(flatten)]
    pub table: TableFlags,
}

impl DatasetsArgs {
    /// The options of [`listing::list`].
    pub fn options(&self) -> ListOptions {
        ListOptions {
            cache_dir: self
                .cache
                .ood_cache
                .clone()
                .unwrap_or_else(|| ListOptions::default().cache_dir),
        }
    }

    /// Runs `itc datasets`: the listing on `out`.
    pub fn run(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let options = self.options();
        let entries = listing::list(&options)?;
        match self.format {
            OutputFormat::Table => {
                writeln!(out, "{}", listing::table(&entries, self.table.wide))?;
                for line in listing::footer() {
                    writeln!(out, "{line}")?;
                }
                for note in listing::notes(&entries) {
                    writeln!(out, "{note}")?;
                }
                writeln!(out, "fetch cache: {}", options.cache_dir.display())?;
            }
            OutputFormat::Json => writeln!(out, "{}", listing::to_json(&entries, &options))?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: DatasetsArgs,
    }

    #[test]
    fn flags_become_options() {
        let cli = Cli::try_parse_from(["itc", "--format", "json", "--ood-cache", "c"]).unwrap();
        assert_eq!(cli.args.format, OutputFormat::Json);
        assert_eq!(cli.args.options().cache_dir, std::path::PathBuf::from("c"));
        // The old name still works, and is not shown.
        let cli = Cli::try_parse_from(["itc", "--cache-dir", "old"]).unwrap();
        assert_eq!(
            cli.args.options().cache_dir,
            std::path::PathBuf::from("old")
        );
        let help = <Cli as clap::CommandFactory>::command()
            .render_long_help()
            .to_string();
        assert!(
            help.contains("--ood-cache <DIR>") && !help.contains("--cache-dir"),
            "{help}"
        );
        let cli = Cli::try_parse_from(["itc"]).unwrap();
        assert_eq!(cli.args.format, OutputFormat::Table);
        assert!(Cli::try_parse_from(["itc", "--format", "csv"]).is_err());
    }
}
