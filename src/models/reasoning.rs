//! Keeping a model's reasoning apart from its answer: `<think>…</think>`
//! blocks written into the content, and separate reasoning fields.

/// Splits `<think>…</think>` (or `<thinking>…</thinking>`) blocks out of a
/// response text. Returns the answer (trimmed) and the reasoning, if any.
///
/// A closing tag with no opening tag before it (templates that put `<think>`
/// in the prompt) makes everything before it reasoning; an opening tag that
/// is never closed (the answer was cut off while thinking) makes everything
/// after it reasoning.
pub fn split_reasoning(text: &str) -> (String, Option<String>) {
    let mut answer = String::new();
    let mut thoughts: Vec<String> = Vec::new();
    let mut rest = text;
    // A leading close tag with no opener.
    for (open, close) in TAGS {
        if let Some(end) = rest.find(close)
            && !rest[..end].contains(open)
        {
            thoughts.push(rest[..end].trim().to_string());
            rest = &rest[end + close.len()..];
            break;
        }
    }
    loop {
        let next = TAGS
            .iter()
            .filter_map(|(open, close)| rest.find(open).map(|at| (at, *open, *close)))
            .min_by_key(|(at, _, _)| *at);
        let Some((at, open, close)) = next else {
            answer.push_str(rest);
            break;
        };
        answer.push_str(&rest[..at]);
        let inner = &rest[at + open.len()..];
        match inner.find(close) {
            Some(end) => {
                thoughts.push(inner[..end].trim().to_string());
                rest = &inner[end + close.len()..];
            }
            None => {
                thoughts.push(inner.trim().to_string());
                break;
            }
        }
    }
    let thoughts: Vec<String> = thoughts.into_iter().filter(|t| !t.is_empty()).collect();
    let reasoning = (!thoughts.is_empty()).then(|| thoughts.join("\n\n"));
    (answer.trim().to_string(), reasoning)
}

const TAGS: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// Joins reasoning pieces from several places (a reasoning field, think
/// blocks), skipping empty ones.
pub fn join_reasoning<I, S>(parts: I) -> Option<String>
where
    I: IntoIterator<Item = Option<S>>,
    S: AsRef<str>,
{
    let parts: Vec<String> = parts
        .into_iter()
        .flatten()
        .map(|s| s.as_ref().trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_blocks_are_split_out() {
        let (answer, reasoning) = split_reasoning(
            "<think>\nThe user wants weather.\n</think>\n\n{\"Thought\": \"x\", \"Action\": \"[]\"}",
        );
        assert_eq!(answer, "{\"Thought\": \"x\", \"Action\": \"[]\"}");
        assert_eq!(reasoning.as_deref(), Some("The user wants weather."));
    }

    #[test]
    fn several_blocks_and_thinking_tags() {
        let (answer, reasoning) =
            split_reasoning("a <think>one</think> b <thinking>two</thinking> c");
        assert_eq!(answer, "a  b  c");
        assert_eq!(reasoning.as_deref(), Some("one\n\ntwo"));
    }

    #[test]
    fn close_tag_without_opener_and_unclosed_opener() {
        let (answer, reasoning) = split_reasoning("pondering...</think>{\"Action\": \"[]\"}");
        assert_eq!(answer, "{\"Action\": \"[]\"}");
        assert_eq!(reasoning.as_deref(), Some("pondering..."));
        let (answer, reasoning) = split_reasoning("<think>cut off mid-thought");
        assert_eq!(answer, "");
        assert_eq!(reasoning.as_deref(), Some("cut off mid-thought"));
    }

    #[test]
    fn plain_text_is_untouched() {
        let (answer, reasoning) = split_reasoning("  {\"Thought\": \"I think <b>\"}  ");
        assert_eq!(answer, "{\"Thought\": \"I think <b>\"}");
        assert_eq!(reasoning, None);
        assert_eq!(
            split_reasoning("<think></think>ok"),
            ("ok".to_string(), None)
        );
    }

    #[test]
    fn joining_skips_empty_parts() {
        assert_eq!(
            join_reasoning([Some("a"), None, Some("  "), Some("b")]).as_deref(),
            Some("a\n\nb")
        );
        assert_eq!(join_reasoning::<_, &str>([None, None]), None);
    }
}
