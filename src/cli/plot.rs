//! `hindsight plot`: draws a profile written by `hindsight run --profile`
//! (see `crate::profile`) as one SVG chart with three panels sharing the
//! x axis (events processed):
//!
//! 1. BDD nodes of every summary (`P/rule r`, `P/S#n (x)`, ...);
//! 2. live value codes of every enumeration class (`P/x codes`), with the
//!    garbage collections marked as a step line when there were any;
//! 3. elapsed seconds.
//!
//! Each panel has its legend to the right of the plotting area, one entry
//! per line with the last value in parentheses, so that no legend hides a
//! curve however many series there are. Series equal to an earlier one are
//! drawn narrower on top of it and marked `(= name)` in the legend.

use std::path::Path;
use std::process::ExitCode;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::Palette99;

/// A profile read back from its CSV.
#[derive(Debug, Default)]
pub struct Profile {
    /// The `event` column.
    pub events: Vec<f64>,
    /// The `seconds` column.
    pub seconds: Vec<f64>,
    /// Every other column: name and values.
    pub series: Vec<(String, Vec<f64>)>,
}

/// Reads a profile CSV: a header whose first two columns are `event` and
/// `seconds`, then rows of numbers.
pub fn read_profile(path: &Path) -> Result<Profile, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .iter()
        .map(str::to_string)
        .collect();
    if header.len() < 2 || header[0] != "event" || header[1] != "seconds" {
        return Err(format!(
            "{}: not a hindsight profile (the header must start with `event,seconds`)",
            path.display()
        ));
    }
    let mut profile = Profile {
        series: header[2..]
            .iter()
            .map(|h| (h.clone(), Vec::new()))
            .collect(),
        ..Profile::default()
    };
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(|e| format!("{}:{line}: {e}", path.display()))?;
        if record.len() != header.len() {
            return Err(format!(
                "{}:{line}: {} fields, but the header has {}",
                path.display(),
                record.len(),
                header.len()
            ));
        }
        let mut values = record.iter().enumerate().map(|(c, field)| {
            field.trim().parse::<f64>().map_err(|_| {
                format!(
                    "{}:{line}: column `{}` is not a number: `{field}`",
                    path.display(),
                    header[c]
                )
            })
        });
        let mut next = || values.next().unwrap_or(Ok(0.0));
        profile.events.push(next()?);
        profile.seconds.push(next()?);
        for (_, s) in &mut profile.series {
            s.push(next()?);
        }
    }
    if profile.events.is_empty() {
        return Err(format!("{}: the profile has no rows", path.display()));
    }
    Ok(profile)
}

/// Whether the column `series` is one of property `name`'s: `name/...`,
/// or in a parallel run's profile `name [slice 1 of 2]/...` (its place in
/// the layout: see `crate::profile`).
fn of_property(series: &str, name: &str) -> bool {
    series.strip_prefix(name).is_some_and(|rest| {
        rest.starts_with('/') || (rest.starts_with(" [") && rest.contains("]/"))
    })
}

/// Checks that the chart's file names a format that can be written: SVG.
/// (PNG would need a font for the bitmap backend; use an SVG converter such
/// as `rsvg-convert` on the SVG.)
pub fn check_output(output: &Path) -> Result<(), String> {
    let ext = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("svg") => Ok(()),
        other => Err(format!(
            "cannot write {}: {}; charts are written as SVG: name the file `*.svg` \
             (convert it with e.g. `rsvg-convert -o chart.png chart.svg`)",
            output.display(),
            match other {
                Some(e) => format!("the format `.{e}` is not supported"),
                None => "the file name has no extension".to_owned(),
            }
        )),
    }
}

/// `hindsight plot PROFILE -o OUT.svg [--prop NAME]`.
pub fn plot_file(input: &Path, output: &Path, property: Option<&str>) -> ExitCode {
    let result = check_output(output)
        .and_then(|()| read_profile(input))
        .and_then(|mut p| {
            let mut title = input
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            if let Some(name) = property {
                p.series.retain(|(s, _)| of_property(s, name));
                if p.series.is_empty() {
                    return Err(format!(
                        "{}: no series of a property `{name}`",
                        input.display()
                    ));
                }
                title = format!("{title}, property {name}");
            }
            draw(&p, &title, output)
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

const WIDTH: u32 = 1280;
const LEGEND_WIDTH: u32 = 400;
const LEGEND_LINE: u32 = 20;
const FONT: &str = "sans-serif";

/// One panel: a title, a y axis description and its lines.
struct Panel<'a> {
    title: &'a str,
    y_desc: &'a str,
    lines: Vec<(&'a str, &'a [f64], RGBColor)>,
}

impl Panel<'_> {
    fn height(&self) -> u32 {
        (self.lines.len() as u32 * LEGEND_LINE + 80).max(260)
    }
}

/// Draws the profile into an SVG file.
pub fn draw(profile: &Profile, title: &str, output: &Path) -> Result<(), String> {
    let mut nodes = Vec::new();
    let mut codes = Vec::new();
    let mut gcs = Vec::new();
    let mut open = Vec::new();
    for (name, values) in &profile.series {
        let (list, keep) = if name.ends_with(" codes") {
            (&mut codes, true)
        } else if name.ends_with("/open steps") {
            (&mut open, true)
        } else if name.ends_with("/gc collections") {
            (&mut gcs, values.iter().any(|&v| v > 0.0))
        } else {
            (&mut nodes, true)
        };
        if keep {
            list.push((name.as_str(), values.as_slice(), color(list.len())));
        }
    }
    let mut panels = vec![
        Panel {
            title: "BDD nodes per summary",
            y_desc: "BDD nodes",
            lines: nodes,
        },
        Panel {
            title: "live value codes per enumeration class",
            y_desc: "codes",
            lines: codes,
        },
    ];
    if !open.is_empty() {
        panels.push(Panel {
            title: "steps whose verdict is still open (future operators)",
            y_desc: "steps",
            lines: open,
        });
    }
    if !gcs.is_empty() {
        panels.push(Panel {
            title: "garbage collections of value codes (cumulative)",
            y_desc: "collections",
            lines: gcs,
        });
    }
    panels.push(Panel {
        title: "elapsed time",
        y_desc: "seconds",
        lines: vec![("seconds", profile.seconds.as_slice(), color(0))],
    });
    let title_height = 40;
    let height = title_height + panels.iter().map(Panel::height).sum::<u32>();
    let root = SVGBackend::new(output, (WIDTH, height)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", output.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(
            &format!("hindsight profile: {title}"),
            (FONT, 22).into_font().style(FontStyle::Bold),
        )
        .map_err(|e| err(&e))?;
    let mut breaks = Vec::new();
    let mut y = 0;
    for p in &panels[..panels.len() - 1] {
        y += p.height() as i32;
        breaks.push(y);
    }
    let areas = root.split_by_breakpoints(Vec::<i32>::new(), breaks);
    let x_max = profile.events.iter().copied().fold(1.0, f64::max);
    for (panel, area) in panels.iter().zip(&areas) {
        draw_panel(panel, area, &profile.events, x_max).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

type DrawResult<T> = Result<T, DrawingAreaErrorKind<std::io::Error>>;

fn draw_panel(
    panel: &Panel<'_>,
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    events: &[f64],
    x_max: f64,
) -> DrawResult<()> {
    let (chart_area, legend_area) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
    let y_max = panel
        .lines
        .iter()
        .flat_map(|(_, v, _)| v.iter().copied())
        .fold(0.0, f64::max);
    let y_max = if y_max > 0.0 { y_max * 1.08 } else { 1.0 };
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(panel.title, (FONT, 17))
        .margin(12)
        .x_label_area_size(46)
        .y_label_area_size(78)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
    chart
        .configure_mesh()
        .x_desc("events processed")
        .y_desc(panel.y_desc)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|x| human(*x))
        .y_label_formatter(&|y| human(*y))
        .axis_desc_style((FONT, 15))
        .label_style((FONT, 13))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    // Identical series would hide each other: the first of a group of equal
    // ones is drawn widest, each later one narrower on top of it, and the
    // legend says which one it equals.
    let same_as: Vec<Option<usize>> = (0..panel.lines.len())
        .map(|i| (0..i).find(|&j| panel.lines[j].1 == panel.lines[i].1))
        .collect();
    let group_rank = |i: usize| -> (u32, u32) {
        let first = same_as[i].unwrap_or(i);
        let members: Vec<usize> = (0..panel.lines.len())
            .filter(|&k| same_as[k].unwrap_or(k) == first)
            .collect();
        let rank = members.iter().position(|&k| k == i).unwrap_or(0);
        (rank as u32, members.len() as u32)
    };
    for (i, (_, values, color)) in panel.lines.iter().enumerate() {
        let (rank, size) = group_rank(i);
        let width = 2 + 2 * (size - 1 - rank).min(3);
        chart.draw_series(LineSeries::new(
            events.iter().copied().zip(values.iter().copied()),
            color.stroke_width(width),
        ))?;
    }
    // The legend, one entry per line, beside the plotting area.
    for (i, (name, values, color)) in panel.lines.iter().enumerate() {
        let name = match same_as[i] {
            Some(j) => format!("{name} (= {})", short_name(panel.lines[j].0)),
            None => {
                let last = values.last().copied().unwrap_or(0.0);
                format!("{name} ({})", human(last))
            }
        };
        let y = 40 + (i as u32 * LEGEND_LINE) as i32;
        legend_area.draw(&PathElement::new(
            vec![(6, y), (30, y)],
            color.stroke_width(3),
        ))?;
        legend_area.draw(&Text::new(
            name,
            (36, y - 7),
            (FONT, 13).into_font().color(&BLACK),
        ))?;
    }
    Ok(())
}

/// The `i`-th line colour of a panel: ten strong, distinct colours (those
/// of matplotlib's `tab10`), then the darker half of plotters' 99 colours.
fn color(i: usize) -> RGBColor {
    const STRONG: [(u8, u8, u8); 10] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ];
    let (r, g, b) = match STRONG.get(i) {
        Some(&c) => c,
        None => {
            let dark: Vec<(u8, u8, u8)> = <Palette99 as Palette>::COLORS
                .iter()
                .copied()
                .filter(|&(r, g, b)| u32::from(r) + u32::from(g) + u32::from(b) < 450)
                .collect();
            dark.get((i - STRONG.len()) % dark.len().max(1))
                .copied()
                .unwrap_or((0, 0, 0))
        }
    };
    RGBColor(r, g, b)
}

/// A series name without its property prefix (`rule closed` for
/// `telemetry1/rule closed`).
fn short_name(name: &str) -> &str {
    name.split_once('/').map_or(name, |(_, rest)| rest)
}

/// A number for an axis or legend: `950`, `12.5k`, `3.2M`, `0.25`.
fn human(x: f64) -> String {
    let a = x.abs();
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e9 {
        format!("{}G", trim(format!("{:.1}", x / 1e9)))
    } else if a >= 1e6 {
        format!("{}M", trim(format!("{:.1}", x / 1e6)))
    } else if a >= 1e4 {
        format!("{}k", trim(format!("{:.1}", x / 1e3)))
    } else if a >= 10.0 || a == 0.0 {
        format!("{x:.0}")
    } else {
        trim(format!("{x:.2}"))
    }
}

#[cfg(test)]
mod tests {
    use super::{check_output, human, of_property};
    use std::path::Path;

    #[test]
    fn only_svg_is_written() {
        assert!(check_output(Path::new("a/b.SVG")).is_ok());
        let e = check_output(Path::new("p.png")).unwrap_err();
        assert!(e.contains("`.png` is not supported"), "{e}");
        assert!(check_output(Path::new("p")).is_err());
    }

    #[test]
    fn a_property_s_columns_with_their_place_in_a_parallel_layout() {
        assert!(of_property("access/S#4 (user)", "access"));
        assert!(of_property(
            "access [part 1, slice 2 of 2]/user codes",
            "access"
        ));
        assert!(of_property(
            "access [slice 1 of 3]/gc collections",
            "access"
        ));
        assert!(!of_property("accessed/S#4 (user)", "access"));
        assert!(!of_property("access2 [slice 1 of 2]/x codes", "access"));
        assert!(!of_property("access [x", "access"));
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(human(0.0), "0");
        assert_eq!(human(950.0), "950");
        assert_eq!(human(9999.0), "9999");
        assert_eq!(human(12500.0), "12.5k");
        assert_eq!(human(3_200_000.0), "3.2M");
        assert_eq!(human(1_000_000.0), "1M");
        assert_eq!(human(0.25), "0.25");
        assert_eq!(human(2.0), "2");
    }
}
