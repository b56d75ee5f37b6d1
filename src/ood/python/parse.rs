//! Python concrete syntax trees for the APIBench official scorer
//! ([`crate::ood::apibench`]), from the same parser the official scripts use:
//! tree-sitter (runtime 0.22.6) with the tree-sitter-python 0.20.2 grammar.
//! The official verdicts on prose and broken code depend on tree-sitter's
//! error recovery, so only the real parser reproduces them; with these two
//! versions every reference tree but one is identical (and that one does not
//! change its verdict). Nothing is executed: the text is only parsed.

// The grammar crate pins an older tree-sitter runtime; only its C language
// function is used, through the newer runtime (ABI 14 is compatible).
extern crate tree_sitter_python;

/// A node of the concrete syntax tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Node type (`call`, `identifier`, `(`, `ERROR`, …).
    pub kind: &'static str,
    /// Named node (vs anonymous token such as `(`).
    pub named: bool,
    /// Field name in the parent (`function`, `arguments`, …).
    pub field: Option<&'static str>,
    /// Start byte offset.
    pub start: usize,
    /// End byte offset.
    pub end: usize,
    /// Children, anonymous tokens included.
    pub children: Vec<Node>,
}

impl Node {
    /// The bytes of the source this node spans.
    pub fn text<'a>(&self, source: &'a [u8]) -> &'a [u8] {
        &source[self.start..self.end]
    }

    /// tree-sitter's S-expression: named nodes only, with field names.
    pub fn to_sexp(&self) -> String {
        let mut out = String::new();
        self.sexp_into(&mut out);
        out
    }

    fn sexp_into(&self, out: &mut String) {
        out.push('(');
        out.push_str(self.kind);
        for c in &self.children {
            if !c.named {
                continue;
            }
            out.push(' ');
            if let Some(f) = c.field {
                out.push_str(f);
                out.push_str(": ");
            }
            c.sexp_into(out);
        }
        out.push(')');
    }
}

unsafe extern "C" {
    fn tree_sitter_python() -> *const tree_sitter::ffi::TSLanguage;
}

fn convert(n: tree_sitter::Node<'_>, field: Option<&'static str>) -> Node {
    let mut children = Vec::with_capacity(n.child_count());
    let mut cursor = n.walk();
    if cursor.goto_first_child() {
        loop {
            let f = cursor.field_name();
            children.push(convert(cursor.node(), f));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    Node {
        kind: n.kind(),
        named: n.is_named(),
        field,
        start: n.start_byte(),
        end: n.end_byte(),
        children,
    }
}

/// Parses Python source into tree-sitter-python's concrete syntax tree.
pub fn parse(source: &str) -> Node {
    thread_local! {
        static PARSER: std::cell::RefCell<tree_sitter::Parser> = std::cell::RefCell::new({
            let mut p = tree_sitter::Parser::new();
            // SAFETY: the grammar crate exports this language function (ABI 14).
            let lang = unsafe { tree_sitter::Language::from_raw(tree_sitter_python()) };
            p.set_language(&lang).expect("ABI 14 grammar");
            p
        });
    }
    PARSER.with(|p| {
        let tree = p
            .borrow_mut()
            .parse(source.as_bytes(), None)
            .expect("no timeout set");
        convert(tree.root_node(), None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sexp(src: &str) -> String {
        parse(src).to_sexp()
    }

    #[test]
    fn calls_have_tree_sitter_shape() {
        assert_eq!(
            sexp("AutoModel.from_pretrained('YituTech/conv-bert-base')"),
            "(module (expression_statement (call function: (attribute object: (identifier) attribute: (identifier)) arguments: (argument_list (string)))))"
        );
        assert_eq!(
            sexp(
                "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slow_r50', pretrained=True)"
            ),
            "(module (expression_statement (call function: (attribute object: (attribute object: (identifier) attribute: (identifier)) attribute: (identifier)) arguments: (argument_list (keyword_argument name: (identifier) value: (string)) (keyword_argument name: (identifier) value: (string)) (keyword_argument name: (identifier) value: (true))))))"
        );
        assert_eq!(
            sexp("model = hub.KerasLayer('https://x', input_shape=(224, 224, 3), trainable=False)"),
            "(module (expression_statement (assignment left: (identifier) right: (call function: (attribute object: (identifier) attribute: (identifier)) arguments: (argument_list (string) (keyword_argument name: (identifier) value: (tuple (integer) (integer) (integer))) (keyword_argument name: (identifier) value: (false)))))))"
        );
    }

    #[test]
    fn children_include_tokens() {
        let src = "f(a, k='v')";
        let m = parse(src);
        let call = &m.children[0].children[0];
        assert_eq!(call.kind, "call");
        let args: Vec<&str> = call.children[1]
            .children
            .iter()
            .map(|c| std::str::from_utf8(c.text(src.as_bytes())).unwrap())
            .collect();
        assert_eq!(args, ["(", "a", ",", "k='v'", ")"]);
        let kw = &call.children[1].children[3];
        assert_eq!(
            std::str::from_utf8(kw.children[2].text(src.as_bytes())).unwrap(),
            "'v'"
        );
        // A string has its quotes as children.
        let s = &kw.children[2];
        assert_eq!((s.kind, s.children.len()), ("string", 2));
    }

    #[test]
    fn prose_keeps_its_calls_inside_error_recovery() {
        let src = "Use pipeline('x', model='y') now";
        let sexp = parse(src).to_sexp();
        assert!(sexp.contains("ERROR"), "{sexp}");
        assert!(sexp.contains("(call function: (identifier)"), "{sexp}");
    }
}
