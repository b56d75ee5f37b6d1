//! Step 7 of the method: the Thought, one sentence in the task's language
//! naming the tools called (or saying that no tool fits).

use crate::spec::records::Call;

/// The sentences and quoting of one language.
struct Templates {
    /// One tool called; `{}` is its quoted name.
    one: &'static str,
    /// Several tools called; `{}` is their quoted names, joined.
    several: &'static str,
    /// No tool called.
    none: &'static str,
    /// Opening quote around a tool name.
    open: &'static str,
    /// Closing quote around a tool name.
    close: &'static str,
    /// Between two quoted names.
    join: &'static str,
}

/// The templates of each language with its own, by primary language subtag.
const TEMPLATES: &[(&str, Templates)] = &[
    (
        "zh",
        Templates {
            one: "这个请求与工具{}最匹配，所以我会用问题中找到的参数调用它。",
            several: "问题里包含几个请求，所以我会分别调用{}。",
            none: "没有合适的工具能够处理这个请求，所以我不调用任何工具。",
            open: "「",
            close: "」",
            join: "、",
        },
    ),
    (
        "ja",
        Templates {
            one: "この依頼には{}が最も合っているので、質問から見つけた値でこのツールを呼び出します。",
            several: "質問には複数の依頼が含まれているので、{}をそれぞれ呼び出します。",
            none: "この依頼に合うツールが見つからないので、ツールは呼び出しません。",
            open: "「",
            close: "」",
            join: "と",
        },
    ),
    (
        "ko",
        Templates {
            one: "이 요청에는 {} 도구가 가장 잘 맞으므로 질문에서 찾은 값으로 이 도구를 호출하겠습니다.",
            several: "질문에 여러 요청이 있으므로 {} 도구를 각각 호출하겠습니다.",
            none: "이 요청에 맞는 도구가 없으므로 어떤 도구도 호출하지 않겠습니다.",
            open: "\"",
            close: "\"",
            join: ", ",
        },
    ),
    (
        "ar",
        Templates {
            one: "هذا الطلب يتوافق أكثر مع الأداة {}، لذلك سأستدعيها بالقيم الموجودة في السؤال.",
            several: "يحتوي السؤال على عدة طلبات، لذلك سأستدعي الأدوات {}.",
            none: "لا توجد أداة مناسبة لهذا الطلب، لذلك لن أستدعي أي أداة.",
            open: "\"",
            close: "\"",
            join: " و",
        },
    ),
    (
        "ru",
        Templates {
            one: "Этот запрос лучше всего соответствует инструменту {}, поэтому я вызову его со значениями из вопроса.",
            several: "В вопросе несколько запросов, поэтому я вызову инструменты {}.",
            none: "Ни один из доступных инструментов не подходит для этого запроса, поэтому я не буду их вызывать.",
            open: "«",
            close: "»",
            join: " и ",
        },
    ),
    (
        "hi",
        Templates {
            one: "यह अनुरोध {} टूल से सबसे अच्छा मेल खाता है, इसलिए मैं प्रश्न में मिले मानों के साथ इसे कॉल करूँगा।",
            several: "प्रश्न में कई अनुरोध हैं, इसलिए मैं {} टूल को अलग-अलग कॉल करूँगा।",
            none: "इस अनुरोध के लिए कोई उपयुक्त टूल नहीं है, इसलिए मैं किसी भी टूल को कॉल नहीं करूँगा।",
            open: "\"",
            close: "\"",
            join: " और ",
        },
    ),
    (
        "de",
        Templates {
            one: "Die Anfrage passt am besten zum Werkzeug {}, deshalb rufe ich es mit den Werten aus der Frage auf.",
            several: "Die Frage enthält mehrere Anliegen, deshalb rufe ich die Werkzeuge {} auf.",
            none: "Keines der verfügbaren Werkzeuge passt zu dieser Anfrage, deshalb rufe ich kein Werkzeug auf.",
            open: "\"",
            close: "\"",
            join: " und ",
        },
    ),
    (
        "fr",
        Templates {
            one: "La demande correspond le mieux à l'outil {}, donc je vais l'appeler avec les valeurs trouvées dans la question.",
            several: "La question contient plusieurs demandes, donc je vais appeler les outils {}.",
            none: "Aucun des outils disponibles ne convient à cette demande, donc je n'appelle aucun outil.",
            open: "«",
            close: "»",
            join: " et ",
        },
    ),
    (
        "es",
        Templates {
            one: "La solicitud coincide mejor con la herramienta {}, así que la llamaré con los valores que aparecen en la pregunta.",
            several: "La pregunta contiene varias solicitudes, así que llamaré a las herramientas {}.",
            none: "Ninguna de las herramientas disponibles sirve para esta solicitud, así que no llamaré a ninguna herramienta.",
            open: "«",
            close: "»",
            join: " y ",
        },
    ),
    (
        "it",
        Templates {
            one: "La richiesta corrisponde meglio allo strumento {}, quindi lo chiamerò con i valori trovati nella domanda.",
            several: "La domanda contiene più richieste, quindi chiamerò gli strumenti {}.",
            none: "Nessuno degli strumenti disponibili è adatto a questa richiesta, quindi non chiamerò nessuno strumento.",
            open: "\"",
            close: "\"",
            join: " e ",
        },
    ),
    (
        "pt",
        Templates {
            one: "O pedido corresponde melhor à ferramenta {}, então vou chamá-la com os valores encontrados na pergunta.",
            several: "A pergunta contém vários pedidos, então vou chamar as ferramentas {}.",
            none: "Nenhuma das ferramentas disponíveis serve para este pedido, então não vou chamar nenhuma ferramenta.",
            open: "\"",
            close: "\"",
            join: " e ",
        },
    ),
    (
        "tr",
        Templates {
            one: "İstek en iyi {} aracıyla eşleşiyor, bu yüzden onu sorudaki değerlerle çağıracağım.",
            several: "Soruda birden fazla istek var, bu yüzden {} araçlarını ayrı ayrı çağıracağım.",
            none: "Bu istek için uygun bir araç yok, bu yüzden hiçbir aracı çağırmayacağım.",
            open: "\"",
            close: "\"",
            join: " ve ",
        },
    ),
];

/// English: for `en` and every language without templates of its own.
static ENGLISH: Templates = Templates {
    one: "The request matches the tool {} best, so I will call it with the values found in the question.",
    several: "The question contains several requests, so I will call the tools {}.",
    none: "None of the available tools fits this request, so I will not call any tool.",
    open: "\"",
    close: "\"",
    join: " and ",
};

/// The templates of a language (`pt-BR` and `zh_CN` by their primary subtag).
fn templates(language: &str) -> &'static Templates {
    let primary = language
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    TEMPLATES
        .iter()
        .find(|(code, _)| *code == primary)
        .map_or(&ENGLISH, |(_, t)| t)
}

/// One sentence in the task's language naming the tools called.
pub(super) fn thought(language: &str, calls: &[Call]) -> String {
    let t = templates(language);
    let mut names: Vec<&str> = Vec::new();
    for c in calls {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    let quoted: Vec<String> = names
        .iter()
        .map(|n| format!("{}{}{}", t.open, n, t.close))
        .collect();
    match quoted.len() {
        0 => t.none.to_string(),
        1 => t.one.replace("{}", &quoted[0]),
        _ => t.several.replace("{}", &quoted.join(t.join)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thought_is_in_the_task_language() {
        let call = [Call::new("city_weather", vec![])];
        let two = [
            Call::new("city_weather", vec![]),
            Call::new("stock_quote", vec![]),
        ];
        for language in [
            "zh", "ja", "ko", "ar", "ru", "hi", "de", "fr", "es", "it", "pt", "tr", "en",
        ] {
            for calls in [&call[..], &two[..], &[]] {
                let text = thought(language, calls);
                let check = crate::spec::language::check_language(&text, language);
                assert!(
                    check.outcome.is_match(),
                    "{language}: {text} -> {:?}",
                    check.detected
                );
                for c in calls {
                    assert!(text.contains(&c.name), "{text}");
                }
            }
        }
        assert_eq!(thought("sw", &[]), thought("en", &[]));
    }
}
