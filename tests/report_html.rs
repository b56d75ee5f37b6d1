//! `report.html` in a real browser: headless Chromium
//! ([`support::browser`]) opens the page from `file://`, runs its script,
//! and gives back the DOM, its console and a screenshot. Without Chromium
//! the test says so and skips, except under CI (`CI` set and not `false`
//! or `0`), where it fails.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use itc::spec::records::TaskScore;
use support::browser::{browse, chromium_or_skip};
use support::{itc, text};

/// The browser rows of a dumped DOM: (model, outcomes, hidden).
fn rows(dom: &str) -> Vec<(String, String, bool)> {
    dom.split("<tr data-model=\"")
        .skip(1)
        .map(|rest| {
            let model = rest.split('"').next().unwrap().to_string();
            let tag = rest.split('>').next().unwrap();
            let outcomes = tag
                .split("data-outcomes=\"")
                .nth(1)
                .and_then(|t| t.split('"').next())
                .unwrap_or("")
                .to_string();
            (model, outcomes, tag.contains("hidden"))
        })
        .collect()
}

#[test]
fn the_html_report_works_in_a_real_browser() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let run = |args: &[&str]| {
        let out = itc(args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    run(&["score", "--out", p("scored").to_str().unwrap()]);
    run(&[
        "eval",
        "--run-dir",
        p("baseline").to_str().unwrap(),
        "--no-progress",
    ]);
    let out = p("report");
    run(&[
        "report",
        p("scored").to_str().unwrap(),
        p("baseline").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched from anywhere.
    for external in ["http://", "https://", "src=\"", "<link"] {
        assert!(
            !html
                .replace("http://www.w3.org/2000/svg", "")
                .contains(external),
            "{external}"
        );
    }

    // Every chart is present and drawn; the tables are filled.
    let url = format!("file://{}", page.display());
    let (dom, console) = browse(&browser, &p("profile"), &url, "--dump-dom");
    for chart in [
        "chart-f1",
        "chart-errors",
        "chart-language",
        "chart-kind",
        "chart-significance",
    ] {
        let figure = dom
            .split(&format!("<figure id=\"{chart}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("no {chart}"));
        let figure = figure.split("</figure>").next().unwrap();
        assert!(figure.contains("<svg"), "{chart}");
        assert!(figure.matches("<rect").count() >= 6, "{chart} is empty");
    }
    let all = rows(&dom);
    assert_eq!(all.len(), 243 * 6);
    assert!(all.iter().all(|(_, _, hidden)| !hidden));
    assert!(dom.contains("1458 of 1458 rows"), "the script did not run");
    assert!(dom.contains("<td dir=\"auto\" lang=\"ar\">"));
    assert!(!console.contains("Uncaught"), "{console}");
    assert!(!console.contains(":ERROR:CONSOLE"), "{console}");
    what_the_markdown_has_and_more(&dom, &out, &p("baseline"));

    // Filtered from the address: one model's wrong values.
    let filtered = format!("{url}#model=sloppy-small&outcome=incorrect_value");
    let (dom, console) = browse(&browser, &p("profile"), &filtered, "--dump-dom");
    let scores: Vec<TaskScore> = std::fs::read_to_string(p("scored/task_scores.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected = scores
        .iter()
        .filter(|s| s.model == "sloppy-small" && s.counts.incor > 0)
        .count();
    assert!(expected > 0);
    let now = rows(&dom);
    let shown: Vec<&(String, String, bool)> = now.iter().filter(|r| !r.2).collect();
    assert_eq!(
        shown.len(),
        expected,
        "rows shown for sloppy-small × incorrect_value"
    );
    let models: BTreeSet<&str> = shown.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(models, BTreeSet::from(["sloppy-small"]));
    assert!(
        shown
            .iter()
            .all(|r| r.1.split(' ').any(|o| o == "incorrect_value"))
    );
    assert!(dom.contains(&format!("{expected} of 1458 rows")));
    assert!(!console.contains("Uncaught"), "{console}");

    // A screenshot of the page.
    let shot = p("report.png");
    browse(
        &browser,
        &p("profile"),
        &url,
        &format!("--screenshot={}", shot.display()),
    );
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}

/// The rows of the table `id` of a dumped DOM, each as its cells' text.
fn table_rows(dom: &str, id: &str) -> Vec<Vec<String>> {
    let table = dom
        .split(&format!("<table id=\"{id}\">"))
        .nth(1)
        .unwrap_or_else(|| panic!("no table {id}"));
    let body = table.split("</table>").next().unwrap();
    let body = body.split("<tbody>").nth(1).unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let inner = cell.split_once('>').unwrap().1;
                    inner.split("</td>").next().unwrap().to_string()
                })
                .collect()
        })
        .collect()
}

/// The page shows each model's settings, Table 3, every breakdown, the
/// Holm-adjusted p-values and each answer's Thought and raw text, as the
/// report's files have them.
fn what_the_markdown_has_and_more(dom: &str, out: &Path, baseline: &Path) {
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let models = report["models"].as_array().unwrap();
    let settings = table_rows(dom, "settings");
    assert_eq!(settings.len(), models.len());
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(baseline.join("manifest.json")).unwrap())
            .unwrap();
    for (row, m) in settings.iter().zip(models) {
        assert_eq!(row[0], m["model"].as_str().unwrap());
        if m["model"] == "baseline" {
            // Backend, model id, mode, asked; the run's start.
            assert_eq!(row[1..5], ["baseline", "—", "prompt", "single"]);
            assert_eq!(row[6], "itc eval");
            assert_eq!(row[8], manifest["started"].as_str().unwrap());
        } else {
            assert_eq!(row[1], "—", "a score folder records no backend");
            assert_eq!(row[6], "itc score");
        }
    }
    let errors = table_rows(dom, "errors");
    for (row, m) in errors.iter().zip(models) {
        let s = &m["summary"];
        let want = [
            &s["selection_errors"]["hall"],
            &s["selection_errors"]["mis"],
            &s["selection_errors"]["ex"],
            &s["invocation_errors"]["incor"],
            &s["invocation_errors"]["miss"],
            &s["invocation_errors"]["ext"],
        ]
        .map(|v| format!("{:.2}", v.as_f64().unwrap()));
        assert_eq!(row[1..], want, "{}", row[0]);
    }
    for (d, dimension) in ["kind", "language", "country", "category"]
        .iter()
        .enumerate()
    {
        let rows = table_rows(dom, &format!("by-{dimension}"));
        let groups: usize = models
            .iter()
            .map(|m| m["breakdowns"][d]["groups"].as_array().unwrap().len())
            .sum();
        assert!(groups > models.len(), "{dimension}");
        assert_eq!(rows.len(), groups, "{dimension}");
    }
    let comparisons = table_rows(dom, "comparisons");
    assert_eq!(
        comparisons.len(),
        report["comparisons"].as_array().unwrap().len()
    );
    for (row, c) in comparisons
        .iter()
        .zip(report["comparisons"].as_array().unwrap())
    {
        let p_holm = c["p_holm"].as_f64().unwrap();
        assert!(p_holm >= c["p_value"].as_f64().unwrap() && p_holm <= 1.0);
        if p_holm > 0.0 {
            assert_eq!(row[6], format!("{p_holm:.4}"));
        }
    }
    // The baseline's first answer: its Thought and its raw text, escaped.
    let first = std::fs::read_to_string(baseline.join("predictions.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let raw = first["output"].as_str().unwrap();
    let thought: serde_json::Value = serde_json::from_str(raw).unwrap();
    let row = dom
        .split("<tr data-model=\"baseline\"")
        .map(|r| r.split("</tr>").next().unwrap())
        .find(|r| r.contains(&format!("<td>{}</td>", first["task_id"].as_str().unwrap())))
        .expect("the baseline's first answer");
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let thought = escape(thought["Thought"].as_str().unwrap());
    assert!(
        row.contains(&format!(">{thought}</td>")),
        "{thought}\n{row}"
    );
    assert!(
        row.contains(&format!("<code>{}</code>", escape(raw))),
        "{row}"
    );
}

#[test]
fn the_catalog_long_tail_page_works_in_a_real_browser() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let run = |args: &[&str]| {
        let out = itc(args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let readme =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/catalog/public-apis-README.md");
    let (catalog, sampled, page) = (p("catalog.jsonl"), p("sampled.jsonl"), p("tail.html"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    run(&[
        "catalog",
        "import",
        "--format",
        "public-apis",
        &s(&readme),
        "-o",
        &s(&catalog),
        "--skip-invalid",
    ]);
    run(&[
        "sample",
        "--catalog",
        &s(&catalog),
        "-n",
        "100",
        "--seed",
        "3",
        "-o",
        &s(&sampled),
    ]);
    // A sample without a page to show it on is refused by the flags.
    let lone = itc(
        &["catalog", "stats", &s(&catalog), "--sampled", &s(&sampled)],
        &[],
    );
    assert_eq!(lone.status.code(), Some(2));
    run(&[
        "catalog",
        "stats",
        &s(&catalog),
        "--html",
        &s(&page),
        "--sampled",
        &s(&sampled),
    ]);

    let (dom, console) = browse(
        &browser,
        &p("profile"),
        &format!("file://{}", page.display()),
        "--dump-dom",
    );
    let figure = dom
        .split("<figure id=\"chart-long-tail\"")
        .nth(1)
        .expect("the chart");
    let figure = figure.split("</figure>").next().unwrap();
    let rows: Vec<&str> = dom
        .split("<tbody>")
        .nth(1)
        .unwrap()
        .split("<tr>")
        .skip(1)
        .collect();
    // One bar per country for the catalog, one more per country drawn.
    assert!(rows.len() > 20, "{} countries", rows.len());
    assert!(figure.matches("<rect").count() > rows.len(), "bars");
    let numbers = |row: &str| -> Vec<f64> {
        row.split("<td class=\"n\">")
            .skip(1)
            .filter_map(|c| c.split('<').next()?.parse().ok())
            .collect()
    };
    let drawn: f64 = rows
        .iter()
        .map(|r| numbers(r).get(2).copied().unwrap_or(0.0))
        .sum();
    assert_eq!(drawn, 100.0, "sampled APIs over all countries");
    // Sampling flattens the head: GLOBAL's share of the sample is below its
    // share of the catalog.
    let global = numbers(rows[0]);
    assert!(
        rows[0].contains("GLOBAL") && global[3] < global[1],
        "{global:?}"
    );
    assert!(!console.contains("Uncaught"), "{console}");
}

/// A script that measures every text of every chart against its SVG and
/// the SVG against its figure, and writes what sticks out into
/// `<pre id="layout">` as JSON: `{"texts": [...], "outside": [...]}`.
const MEASURE: &str = r#"<script>
(function () {
  var texts = [], outside = [];
  function out(a, b) {
    return a.left < b.left - 0.5 || a.right > b.right + 0.5 ||
      a.top < b.top - 0.5 || a.bottom > b.bottom + 0.5;
  }
  document.querySelectorAll('figure.chart').forEach(function (figure) {
    var svg = figure.querySelector('svg');
    var box = svg.getBoundingClientRect();
    if (out(box, figure.getBoundingClientRect())) { outside.push(figure.id + ': the svg'); }
    svg.querySelectorAll('text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      var label = t.textContent.trim();
      texts.push(figure.id + ': ' + label);
      if (r.width === 0 || out(r, box)) {
        outside.push(figure.id + ': ' + label + ' at ' +
          [r.left, r.right, r.top, r.bottom].map(Math.round).join(',') + ' in ' +
          [box.left, box.right, box.top, box.bottom].map(Math.round).join(','));
      }
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = JSON.stringify({texts: texts, outside: outside});
  document.body.appendChild(pre);
})();
</script>"#;

/// The layout measured by [`MEASURE`] on a copy of `page`: every chart
/// text, and those outside their chart.
fn measure(browser: &Path, profile: &Path, page: &Path) -> (Vec<String>, Vec<String>) {
    let html = std::fs::read_to_string(page).unwrap();
    let measured = page.with_file_name("measured.html");
    std::fs::write(
        &measured,
        html.replace("</body>", &format!("{MEASURE}</body>")),
    )
    .unwrap();
    let url = format!("file://{}", measured.display());
    let (dom, console) = browse(browser, profile, &url, "--dump-dom");
    assert!(!console.contains("Uncaught"), "{console}");
    let json = dom
        .split("<pre id=\"layout\">")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .expect("the script ran");
    let json = json
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let list = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    (list("texts"), list("outside"))
}

#[test]
fn chart_labels_and_legends_stay_inside_their_charts() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let run = |args: &[&str]| {
        let out = itc(args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    // Two models (few bars: the narrowest charts), one with a long name;
    // then the sample's six.
    let (a, b) = (p("a"), p("a-model-with-a-rather-long-name"));
    for run_dir in [&a, &b] {
        let dir = run_dir.to_str().unwrap();
        run(&["eval", "--run-dir", dir, "--limit", "30", "--no-progress"]);
    }
    run(&["score", "--out", p("scored").to_str().unwrap()]);
    let two = p("two");
    let six = p("six");
    run(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        two.to_str().unwrap(),
    ]);
    run(&[
        "eval",
        "--run-dir",
        p("baseline").to_str().unwrap(),
        "--no-progress",
    ]);
    run(&[
        "report",
        p("scored").to_str().unwrap(),
        p("baseline").to_str().unwrap(),
        "--out",
        six.to_str().unwrap(),
    ]);
    for report in [&two, &six] {
        let (texts, outside) = measure(&browser, &p("profile"), &report.join("report.html"));
        assert!(outside.is_empty(), "{}: {outside:#?}", report.display());
        // Every legend label is drawn (and so was measured above).
        for label in [
            "selection F1",
            "invocation F1",
            "hallucinated tool",
            "missed tool",
            "extra tool",
            "incorrect value",
            "missing value",
            "extra value",
        ] {
            let chart = if label.ends_with("F1") {
                "chart-f1"
            } else {
                "chart-errors"
            };
            assert!(
                texts.contains(&format!("{chart}: {label}")),
                "{label} in {chart}: {texts:?}"
            );
        }
    }
    // The error chart says what its bars measure.
    let html = std::fs::read_to_string(two.join("report.html")).unwrap();
    let errors = html.split("<figure id=\"chart-errors\"").nth(1).unwrap();
    let caption = errors
        .split("<figcaption>")
        .nth(1)
        .unwrap()
        .split("</figcaption>")
        .next()
        .unwrap();
    assert!(caption.contains("bars in % of the model"), "{caption}");
}
