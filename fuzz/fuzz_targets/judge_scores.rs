//! The judge-score reader (`build::filter::parse`): JSON objects, `Name:
//! score` lines and Markdown tables in a judge's reply.
//!
//! Invariants: scores read are the five dimensions and a total, each in
//! 1–5; a missing total is the mean of the five; scores read from JSON
//! come from an object `json_objects` finds; the scores written back as a
//! plain JSON object read back the same; an unreadable reply says why.
#![no_main]

use itc::build::filter::parse::{Dimension, Shape, json_objects, parse_scores};
use itc_fuzz::{close_f64, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    match parse_scores(&input) {
        Ok(parsed) => {
            for d in Dimension::ALL {
                let x = d.of(&parsed.scores);
                assert!((1.0..=5.0).contains(&x), "{} = {x}", d.as_str());
            }
            assert!(
                (1.0..=5.0).contains(&parsed.total),
                "total {}",
                parsed.total
            );
            if !parsed.total_given {
                let mean = Dimension::ALL
                    .iter()
                    .map(|d| d.of(&parsed.scores))
                    .sum::<f64>()
                    / 5.0;
                assert_eq!(parsed.total, mean, "total is not the mean");
            }
            if parsed.shape == Shape::Json {
                assert!(
                    !json_objects(&input).is_empty(),
                    "JSON scores without an object"
                );
            }
            let mut object = serde_json::Map::new();
            for d in Dimension::ALL {
                object.insert(d.as_str().to_string(), d.of(&parsed.scores).into());
            }
            object.insert("total".to_string(), parsed.total.into());
            let written = serde_json::Value::Object(object).to_string();
            let again = parse_scores(&written)
                .unwrap_or_else(|e| panic!("written scores do not read back: {e}\n{written}"));
            for d in Dimension::ALL {
                let (a, b) = (d.of(&again.scores), d.of(&parsed.scores));
                assert!(
                    close_f64(a, b, 2),
                    "{}: {a} vs {b} in {written}",
                    d.as_str()
                );
            }
            assert!(
                close_f64(again.total, parsed.total, 2),
                "total in {written}"
            );
            assert!(again.total_given);
        }
        Err(why) => assert!(!why.is_empty(), "an error without a reason"),
    }
});
