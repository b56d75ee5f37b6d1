//! The summary `itc bench http` prints once every concurrency is measured:
//! the rates table, the CPU table, what each column means, and warnings
//! where other processes disturbed the figures.

use std::io::Write;
use std::time::Duration;

use super::{BenchHttpOptions, Measurement};

/// Above this share of the machine's CPU time taken by other processes, a
/// run's figures are flagged as disturbed.
const DISTURBED_LOAD: f64 = 0.05;

/// Prints the summary of `rows`; `wrk_ran`: wrk was measured.
pub(super) fn print_summary(
    rows: &[Measurement],
    options: &BenchHttpOptions,
    wrk_ran: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    print_rates(rows, out)?;
    print_cpu(rows, out)?;
    print_notes(options, wrk_ran, out)?;
    print_warnings(rows, out)
}

/// The requests-per-second table, with itc's and reqwest's shares of wrk's.
fn print_rates(rows: &[Measurement], out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "{:>11}  {:>10}  {:>13}  {:>10}  {:>8}  {:>12}",
        "concurrency", "itc req/s", "reqwest req/s", "wrk req/s", "itc/wrk", "reqwest/wrk"
    )?;
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.0}"));
    let share = |a: f64, b: Option<f64>| {
        b.filter(|b| *b > 0.0)
            .map_or("-".to_string(), |b| format!("{:.0}%", 100.0 * a / b))
    };
    for row in rows {
        let wrk_rate = row.wrk.as_ref().map(|w| w.requests_per_sec);
        let bare = row.reqwest.map(|r| r.requests_per_sec);
        writeln!(
            out,
            "{:>11}  {:>10.0}  {:>13}  {:>10}  {:>8}  {:>12}",
            row.concurrency,
            row.itc_rate(),
            rate(bare),
            rate(wrk_rate),
            share(row.itc_rate(), wrk_rate),
            bare.map_or("-".to_string(), |b| share(b, wrk_rate)),
        )?;
    }
    Ok(())
}

/// The CPU-time-per-request table.
fn print_cpu(rows: &[Measurement], out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "\nCPU time per request, µs")?;
    writeln!(
        out,
        "{:>11}  {:>10}  {:>14}  {:>10}  {:>12}  {:>16}  {:>12}",
        "concurrency",
        "itc",
        "reqwest alone",
        "wrk",
        "server (itc)",
        "server (reqwest)",
        "server (wrk)"
    )?;
    for row in rows {
        let bare = row.reqwest.map(|r| r.cpu).unwrap_or_default();
        let wrk_cpu = row.wrk.as_ref().map(|w| w.cpu).unwrap_or_default();
        writeln!(
            out,
            "{:>11}  {:>10}  {:>14}  {:>10}  {:>12}  {:>16}  {:>12}",
            row.concurrency,
            micros(row.itc_cpu.client),
            micros(bare.client),
            micros(wrk_cpu.client),
            micros(row.itc_cpu.server),
            micros(bare.server),
            micros(wrk_cpu.server),
        )?;
    }
    Ok(())
}

/// What each client's figures cover.
fn print_notes(
    options: &BenchHttpOptions,
    wrk_ran: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "\nitc: the whole runner per task (prompt, request, HTTP, parsing, predictions.jsonl), prompt mode, no cache; median of {} run(s) of {} tasks",
        options.repeat, options.tasks
    )?;
    if wrk_ran {
        writeln!(
            out,
            "wrk: -t{{min(2, c)}} -c{{c}} -d{}s, the same server, headers and body",
            options.wrk_seconds
        )?;
    }
    writeln!(
        out,
        "reqwest alone: the HTTP client the runner uses, sending the captured request as many times, nothing else"
    )?;
    writeln!(
        out,
        "CPU per request from /proc (10 ms ticks); an in-process client's is the whole process's less the server thread's"
    )?;
    Ok(())
}

/// A warning for each run during which other processes took too much CPU.
fn print_warnings(rows: &[Measurement], out: &mut dyn Write) -> anyhow::Result<()> {
    for row in rows {
        let loads = [
            ("itc", Some(row.itc_cpu)),
            ("reqwest", row.reqwest.map(|r| r.cpu)),
            ("wrk", row.wrk.as_ref().map(|w| w.cpu)),
        ];
        for (who, cpu) in loads {
            if let Some(load) = cpu.and_then(|c| c.other_load)
                && load > DISTURBED_LOAD
            {
                writeln!(
                    out,
                    "warning: other processes used {:.0}% of the machine's CPU time during the {who} run(s) at concurrency {}: those figures are disturbed",
                    load * 100.0,
                    row.concurrency
                )?;
            }
        }
    }
    Ok(())
}

/// A duration in µs with one decimal, `-` when unknown.
fn micros(d: Option<Duration>) -> String {
    d.map_or("-".to_string(), |d| format!("{:.1}", d.as_secs_f64() * 1e6))
}
