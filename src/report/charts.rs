//! The report's charts as static SVG, drawn with plotters' SVG backend
//! (text stays `<text>`, so every script renders as the browser's fonts
//! allow, and the page needs no JavaScript to show them):
//!
//! - grouped bars of selection and invocation F1 per model, with whiskers
//!   for the 95% intervals;
//! - heatmaps of a metric per model and language, and per model and kind;
//! - stacked bars of the six error types per model;
//! - the pairwise matrix of selection-F1 differences, significant cells
//!   marked;
//! - a catalog's long tail: each country's share of the APIs, before and
//!   after biased sampling (`itc catalog stats --html`).

use std::collections::HashMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Report;
use super::paired::Metric;
use crate::score::aggregate::{Dimension, ModelReport};

/// A drawing area of the SVG backend.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// An error of plotters as text (its error types borrow the backend).
fn draw_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("drawing a chart: {e}")
}

const SELECTION: RGBColor = RGBColor(0x3b, 0x6e, 0xa5);
const INVOCATION: RGBColor = RGBColor(0xe0, 0x8a, 0x2e);
const ERROR_COLORS: [RGBColor; 6] = [
    RGBColor(0xc0, 0x39, 0x2b),
    RGBColor(0xe6, 0x7e, 0x22),
    RGBColor(0xf1, 0xc4, 0x0f),
    RGBColor(0x29, 0x80, 0xb9),
    RGBColor(0x8e, 0x44, 0xad),
    RGBColor(0x16, 0xa0, 0x85),
];
/// The six error types of ITC Table 3, in the colors above.
pub const ERROR_TYPES: [&str; 6] = [
    "hallucinated tool",
    "missed tool",
    "extra tool",
    "incorrect value",
    "missing value",
    "extra value",
];

fn text(size: u32, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(h, v))
}

/// Draws `draw` on an SVG of `width` × `height` and returns the markup.
fn svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&Area) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        draw(&root)?;
        root.present().map_err(draw_error)?;
    }
    Ok(out)
}

/// Model names under the x axis, one per slot.
fn slot_width(width: u32, slots: usize) -> f64 {
    f64::from(width - 80) / slots.max(1) as f64
}

/// Width in pixels of `text` at `size` px, estimated generously: a
/// sans-serif character is on average well under 0.62 of the size wide
/// (wide letters and CJK characters excepted, and labels are cut short).
fn text_width(text: &str, size: u32) -> f64 {
    text.chars().count() as f64 * f64::from(size) * 0.62
}

/// Height of the plot area of the bar charts.
const PLOT_HEIGHT: f64 = 250.0;

/// The frame of a bar chart: its width and height, the plot's left, top
/// and bottom, and where the legend's entries go. The width fits the bars
/// (`slot` px a model) and the widest legend entry; the legend wraps into
/// as many rows as it needs above the plot; the bottom leaves room for the
/// longest model name under it.
struct Frame {
    width: u32,
    height: u32,
    left: f64,
    top: f64,
    bottom: f64,
    legend: Vec<(i32, i32)>,
}

impl Frame {
    fn new(names: &[&str], slot: u32, legend: &[(&str, RGBColor)]) -> Frame {
        let left = 60.0;
        let widest = legend
            .iter()
            .map(|(label, _)| legend_entry_width(label))
            .fold(0.0, f64::max);
        let width = (80 + slot * names.len() as u32).max((left + widest + 20.0).ceil() as u32);
        let places = legend_places(legend, left, f64::from(width) - 10.0);
        let rows = places
            .last()
            .map_or(0, |&(_, y)| (y - LEGEND_TOP) / LEGEND_ROW + 1);
        let top = f64::from(LEGEND_TOP + LEGEND_ROW * rows) + 12.0;
        let longest = names
            .iter()
            .map(|n| text_width(&short(n, NAME_CHARS), 11))
            .fold(0.0, f64::max);
        let bottom = top + PLOT_HEIGHT;
        Frame {
            width,
            height: (bottom + 8.0 + longest + 10.0).ceil() as u32,
            left,
            top,
            bottom,
            legend: places,
        }
    }
}

/// Grouped bars of selection and invocation F1 per model with whiskers.
pub fn f1_bars(models: &[ModelReport]) -> anyhow::Result<String> {
    let entries = [("selection F1", SELECTION), ("invocation F1", INVOCATION)];
    let names: Vec<&str> = models.iter().map(|m| m.model.as_str()).collect();
    let frame = Frame::new(&names, 90, &entries);
    let (width, height) = (frame.width, frame.height);
    svg(width, height, |root| {
        let slot = slot_width(width, models.len());
        let (left, top, bottom) = (frame.left, frame.top, frame.bottom);
        let y = |v: f64| bottom - (bottom - top) * v.clamp(0.0, 100.0) / 100.0;
        axis(root, (left, top, bottom), width, 100.0, "")?;
        for (i, m) in models.iter().enumerate() {
            let s = &m.summary;
            let x0 = left + slot * i as f64;
            let bars = [
                (
                    s.selection.f1,
                    s.ci.map(|c| c.selection_f1),
                    SELECTION,
                    0.15,
                ),
                (
                    s.invocation.f1,
                    s.ci.map(|c| c.invocation_f1),
                    INVOCATION,
                    0.5,
                ),
            ];
            for (value, ci, color, at) in bars {
                let (a, b) = (x0 + slot * at, x0 + slot * (at + 0.33));
                let rect = Rectangle::new(
                    [(a as i32, y(value) as i32), (b as i32, bottom as i32)],
                    color.filled(),
                );
                root.draw(&rect).map_err(draw_error)?;
                if let Some(ci) = ci {
                    let mid = ((a + b) / 2.0) as i32;
                    let (lo, hi) = (y(ci.lo) as i32, y(ci.hi) as i32);
                    for line in [
                        vec![(mid, lo), (mid, hi)],
                        vec![(mid - 4, lo), (mid + 4, lo)],
                        vec![(mid - 4, hi), (mid + 4, hi)],
                    ] {
                        root.draw(&PathElement::new(line, BLACK.stroke_width(1)))
                            .map_err(draw_error)?;
                    }
                }
            }
            name_under(root, &m.model, x0 + slot / 2.0, bottom + 8.0)?;
        }
        legend(root, &entries, &frame.legend)
    })
}

/// The y axis from 0 to `ceiling` with five grid lines, labels ending in
/// `unit`.
fn axis(
    root: &Area,
    frame: (f64, f64, f64),
    width: u32,
    ceiling: f64,
    unit: &str,
) -> anyhow::Result<()> {
    let (left, top, bottom) = frame;
    for k in 0..=5 {
        let v = ceiling * f64::from(k) / 5.0;
        let y = (bottom - (bottom - top) * v / ceiling) as i32;
        let grid = PathElement::new(
            vec![(left as i32, y), (width as i32 - 20, y)],
            RGBColor(0xdd, 0xdd, 0xdd).stroke_width(1),
        );
        root.draw(&grid).map_err(draw_error)?;
        root.draw(&Text::new(
            format!("{v:.0}{unit}"),
            (left as i32 - 6, y),
            text(11, HPos::Right, VPos::Center),
        ))
        .map_err(draw_error)?;
    }
    Ok(())
}

/// Characters of a model name under the bars at most.
const NAME_CHARS: usize = 18;

/// A model name under a bar group, turned so long names fit.
fn name_under(root: &Area, name: &str, x: f64, y: f64) -> anyhow::Result<()> {
    let style = text(11, HPos::Right, VPos::Center).transform(FontTransform::Rotate270);
    root.draw(&Text::new(
        short(name, NAME_CHARS),
        (x as i32, y as i32),
        style,
    ))
    .map_err(draw_error)
}

/// At most `n` characters, an ellipsis when cut.
fn short(name: &str, n: usize) -> String {
    if name.chars().count() <= n {
        name.to_string()
    } else {
        name.chars().take(n - 1).chain(['…']).collect()
    }
}

/// The top of the legend's first row, and the height of a row.
const LEGEND_TOP: i32 = 8;
const LEGEND_ROW: i32 = 20;

/// The width a legend entry takes: its swatch, its label and a gap.
fn legend_entry_width(label: &str) -> f64 {
    16.0 + text_width(label, 12) + 14.0
}

/// Where each legend entry goes (its swatch's top left): in a row from
/// `left`, a new row when the next entry would pass `right`.
fn legend_places(entries: &[(&str, RGBColor)], left: f64, right: f64) -> Vec<(i32, i32)> {
    let (mut x, mut y) = (left, LEGEND_TOP);
    let mut places = Vec::with_capacity(entries.len());
    for (label, _) in entries {
        let w = legend_entry_width(label);
        if x > left && x + w > right {
            (x, y) = (left, y + LEGEND_ROW);
        }
        places.push((x as i32, y));
        x += w;
    }
    places
}

fn legend(root: &Area, entries: &[(&str, RGBColor)], places: &[(i32, i32)]) -> anyhow::Result<()> {
    for ((label, color), &(x, y)) in entries.iter().zip(places) {
        root.draw(&Rectangle::new([(x, y), (x + 12, y + 12)], color.filled()))
            .map_err(draw_error)?;
        root.draw(&Text::new(
            label.to_string(),
            (x + 16, y + 6),
            text(12, HPos::Left, VPos::Center),
        ))
        .map_err(draw_error)?;
    }
    Ok(())
}

/// Stacked bars of the six error types' shares per model, in % of the
/// model's errors: selection errors and invocation errors each sum to 100
/// within their group; both stacks are halved so that a bar sums to 100
/// (the selection types the lower half, the invocation types the upper).
pub fn error_bars(models: &[ModelReport]) -> anyhow::Result<String> {
    let entries: Vec<(&str, RGBColor)> = ERROR_TYPES.iter().copied().zip(ERROR_COLORS).collect();
    let names: Vec<&str> = models.iter().map(|m| m.model.as_str()).collect();
    let frame = Frame::new(&names, 70, &entries);
    let (width, height) = (frame.width, frame.height);
    svg(width, height, |root| {
        let slot = slot_width(width, models.len());
        let (left, top, bottom) = (frame.left, frame.top, frame.bottom);
        let y = |v: f64| bottom - (bottom - top) * v / 100.0;
        axis(root, (left, top, bottom), width, 100.0, "%")?;
        for (i, m) in models.iter().enumerate() {
            let (s, v) = (&m.summary.selection_errors, &m.summary.invocation_errors);
            let shares = [s.hall, s.mis, s.ex, v.incor, v.miss, v.ext].map(|x| x / 2.0);
            let x0 = left + slot * i as f64 + slot * 0.2;
            let x1 = x0 + slot * 0.6;
            let mut base = 0.0;
            for (share, color) in shares.iter().zip(ERROR_COLORS) {
                let rect = Rectangle::new(
                    [
                        (x0 as i32, y(base + share) as i32),
                        (x1 as i32, y(base) as i32),
                    ],
                    color.filled(),
                );
                root.draw(&rect).map_err(draw_error)?;
                base += share;
            }
            name_under(root, &m.model, (x0 + x1) / 2.0, bottom + 8.0)?;
        }
        legend(root, &entries, &frame.legend)
    })
}

/// A color from white (0) to dark blue (100).
fn shade(value: f64) -> RGBColor {
    let t = (value / 100.0).clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(247.0, 8.0), mix(251.0, 69.0), mix(255.0, 148.0))
}

/// A heatmap: one row per row label, one column per column label, each
/// cell colored by its value (`None`: no tasks, left blank).
fn heatmap(
    rows: &[String],
    columns: &[String],
    cell: impl Fn(usize, usize) -> Option<(f64, String)>,
    color: impl Fn(f64) -> RGBColor,
) -> anyhow::Result<String> {
    let (cw, ch, left, top) = (58, 26, 150, 70);
    let width = left + cw * columns.len() as u32 + 20;
    let height = top + ch * rows.len() as u32 + 20;
    svg(width, height, |root| {
        for (j, c) in columns.iter().enumerate() {
            let x = (left + cw * j as u32 + cw / 2) as i32;
            let style = text(11, HPos::Left, VPos::Center).transform(FontTransform::Rotate270);
            root.draw(&Text::new(short(c, 10), (x, top as i32 - 6), style))
                .map_err(draw_error)?;
        }
        for (i, r) in rows.iter().enumerate() {
            let y = (top + ch * i as u32) as i32;
            root.draw(&Text::new(
                short(r, 20),
                (left as i32 - 6, y + ch as i32 / 2),
                text(11, HPos::Right, VPos::Center),
            ))
            .map_err(draw_error)?;
            for j in 0..columns.len() {
                let x = (left + cw * j as u32) as i32;
                let Some((value, label)) = cell(i, j) else {
                    continue;
                };
                let fill = color(value);
                root.draw(&Rectangle::new(
                    [(x, y), (x + cw as i32 - 2, y + ch as i32 - 2)],
                    fill.filled(),
                ))
                .map_err(draw_error)?;
                let ink = if value.abs() > 55.0 { WHITE } else { BLACK };
                let style = text(10, HPos::Center, VPos::Center).color(&ink);
                root.draw(&Text::new(
                    label,
                    (x + cw as i32 / 2 - 1, y + ch as i32 / 2 - 1),
                    style,
                ))
                .map_err(draw_error)?;
            }
        }
        Ok(())
    })
}

/// Invocation F1 per model and group of a dimension.
pub fn breakdown_heatmap(models: &[ModelReport], dimension: Dimension) -> anyhow::Result<String> {
    let groups: Vec<String> = models
        .first()
        .and_then(|m| m.breakdowns.iter().find(|b| b.dimension == dimension))
        .map(|b| b.groups.iter().map(|(g, _)| g.clone()).collect())
        .unwrap_or_default();
    let rows: Vec<String> = models.iter().map(|m| m.model.clone()).collect();
    heatmap(
        &rows,
        &groups,
        |i, j| {
            let b = models[i]
                .breakdowns
                .iter()
                .find(|b| b.dimension == dimension)?;
            let s = &b.groups.get(j)?.1;
            (s.n > 0).then(|| (s.invocation.f1, format!("{:.0}", s.invocation.f1)))
        },
        shade,
    )
}

/// Selection-F1 difference row − column for every pair compared; a `*`
/// marks a Holm-adjusted p < 0.05.
pub fn significance_matrix(report: &Report) -> anyhow::Result<String> {
    let names: Vec<String> = report.models.iter().map(|m| m.model.clone()).collect();
    // Looked up once per cell: 200 models make 40,000 cells and 79,600
    // comparisons.
    let mut selection: HashMap<(&str, &str), (f64, bool)> = HashMap::new();
    for c in report
        .comparisons
        .iter()
        .filter(|c| c.metric == Metric::SelectionF1)
    {
        selection
            .entry((c.a.as_str(), c.b.as_str()))
            .or_insert((c.diff, c.significant()));
        selection
            .entry((c.b.as_str(), c.a.as_str()))
            .or_insert((0.0 - c.diff, c.significant()));
    }
    let find = |a: &str, b: &str| selection.get(&(a, b)).copied();
    heatmap(
        &names,
        &names,
        |i, j| {
            let (diff, significant) = find(&names[i], &names[j])?;
            let mark = if significant { "*" } else { "" };
            Some((diff, format!("{diff:+.1}{mark}")))
        },
        |diff| {
            // Green when the row model is better, red when worse.
            let t = (diff.abs() / 30.0).clamp(0.0, 1.0);
            let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
            if diff >= 0.0 {
                RGBColor(mix(247.0, 26.0), mix(247.0, 150.0), mix(247.0, 65.0))
            } else {
                RGBColor(mix(247.0, 215.0), mix(247.0, 48.0), mix(247.0, 39.0))
            }
        },
    )
}

/// Each country's share of a catalog's APIs (%, most first) and, when a
/// sample is given, its share of the sampled APIs: the long tail before
/// and after biased sampling.
pub fn long_tail(countries: &[(String, f64, Option<f64>)]) -> anyhow::Result<String> {
    let sampled = countries.iter().any(|c| c.2.is_some());
    let mut entries = vec![("share of the catalog's APIs", SELECTION)];
    if sampled {
        entries.push(("share of the sampled APIs", INVOCATION));
    }
    let widest = entries
        .iter()
        .map(|(l, _)| legend_entry_width(l))
        .fold(0.0, f64::max);
    let width = (120 + 16 * countries.len() as u32).max((80.0 + widest).ceil() as u32);
    let places = legend_places(&entries, 60.0, f64::from(width) - 10.0);
    let rows = places
        .last()
        .map_or(1, |&(_, y)| (y - LEGEND_TOP) / LEGEND_ROW + 1);
    let legend_height = f64::from(LEGEND_ROW * rows);
    let height = 360 + legend_height as u32;
    let top_share = countries
        .iter()
        .map(|c| c.1.max(c.2.unwrap_or(0.0)))
        .fold(1.0, f64::max);
    // The y axis up to the next 10 above the largest share.
    let ceiling = (top_share / 10.0).ceil() * 10.0;
    svg(width, height, |root| {
        let slot = slot_width(width, countries.len());
        let (left, top, bottom) = (60.0, 20.0 + legend_height, f64::from(height) - 60.0);
        let y = |v: f64| bottom - (bottom - top) * v / ceiling;
        axis(root, (left, top, bottom), width, ceiling, "%")?;
        for (i, (code, catalog, sample)) in countries.iter().enumerate() {
            let x0 = left + slot * i as f64;
            let bars = [(Some(*catalog), SELECTION, 0.1), (*sample, INVOCATION, 0.5)];
            for (value, color, at) in bars {
                let Some(value) = value else { continue };
                let (a, b) = (x0 + slot * at, x0 + slot * (at + 0.4));
                root.draw(&Rectangle::new(
                    [(a as i32, y(value) as i32), (b as i32, bottom as i32)],
                    color.filled(),
                ))
                .map_err(draw_error)?;
            }
            name_under(root, code, x0 + slot / 2.0, bottom + 6.0)?;
        }
        legend(root, &entries, &places)
    })
}
