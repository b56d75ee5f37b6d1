#!/usr/bin/env python3
"""Write recorded predictions of five simulated models for the sample tasks.

    python3 datasets/scripts/make_sample_predictions.py

Reads datasets/sample/tasks.jsonl and writes datasets/sample/predictions/<model>.jsonl
(SPEC section 0, Prediction format). Nothing here calls a model: every answer
is derived from the task's gold answer by a seeded mix of the answer styles a
real model shows (correct answers, wrong or invented tool names, wrong,
missing or extra argument values, broken formats, Thoughts in the wrong
language, refusals, native function calls). Deterministic: each answer is drawn
from a random generator seeded by (model, task id), so the files are
byte-identical on every run and adding a task leaves the other answers as they
were.

The style actually drawn for every answer is written to
datasets/sample/prediction_styles.tsv (task_id, model, content style, format
style, thought language, reference style) so the scorer's outputs can be
checked against what each answer was meant to be.
"""
import json
import math
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(os.path.dirname(HERE), "sample")
SEED = 20250602

# ---------------------------------------------------------------------------
# The five models: how often each content error, format and language occurs
# ---------------------------------------------------------------------------
MODELS = {
    "oracle-like-large": {
        "content": {"correct": 84, "confuser": 4, "hallucinated": 1, "wrong_value": 4,
                    "missing_arg": 2, "extra_arg": 3, "missing_call": 1, "refusal": 1},
        "no_tool_refusal": 0.9,
        "format": {"strict": 78, "json_prefix": 5, "fenced": 8, "pretty": 4, "ascii_escaped": 2,
                   "prose_wrapped": 2, "trailing_text": 1},
        "thought_lang": {"task": 97, "en": 3},
        "refs": {"dollar": 50, "braces": 30, "placeholder": 10, "invented": 10},
        "action": {"quote": {"'": 85, '"': 15}, "sep": {"=": 100}, "quote_keys": 0.0, "space": 0.9},
        "latency": (2600, 0.35, 18.0), "tok": 1.0,
    },
    "careful-mid": {
        "content": {"correct": 62, "confuser": 10, "hallucinated": 3, "wrong_value": 8,
                    "missing_arg": 5, "extra_arg": 6, "missing_call": 3, "extra_call": 1, "refusal": 2},
        "no_tool_refusal": 0.7,
        "format": {"json_prefix": 45, "strict": 28, "fenced": 10, "fenced_prose": 3, "colon_args": 5,
                   "no_outer_brackets": 4, "single_quoted": 3, "pretty": 2},
        "thought_lang": {"task": 90, "en": 10},
        "refs": {"api_call": 40, "dollar": 30, "invented": 30},
        "action": {"quote": {"'": 70, '"': 30}, "sep": {"=": 100}, "quote_keys": 0.15, "space": 0.6},
        "latency": (1300, 0.4, 11.0), "tok": 1.05,
    },
    "sloppy-small": {
        "content": {"correct": 35, "confuser": 15, "hallucinated": 12, "wrong_value": 13,
                    "missing_arg": 8, "extra_arg": 7, "missing_call": 5, "extra_call": 3, "refusal": 2},
        "no_tool_refusal": 0.35,
        "format": {"strict": 30, "prose_wrapped": 14, "single_quoted": 12, "bare_calls": 12,
                   "action_list": 10, "fenced": 5, "no_thought": 5, "trailing_text": 4,
                   "positional": 4, "lowercase_keys": 4},
        "thought_lang": {"task": 55, "en": 40, "empty": 5},
        "refs": {"invented": 60, "braces": 20, "dollar": 20},
        "action": {"quote": {"'": 60, '"': 40}, "sep": {"=": 90, ":": 10}, "quote_keys": 0.1, "space": 0.5},
        "latency": (420, 0.5, 6.0), "tok": 1.25,
        "skip": 3,
    },
    "english-only": {
        "content": {"correct": 60, "confuser": 10, "hallucinated": 4, "wrong_value": 12,
                    "missing_arg": 5, "extra_arg": 5, "missing_call": 3, "refusal": 1},
        "no_tool_refusal": 0.6,
        "format": {"strict": 85, "fenced": 10, "pretty": 5},
        "thought_lang": {"en": 100},
        "refs": {"dollar": 60, "braces": 20, "invented": 20},
        "action": {"quote": {"'": 90, '"': 10}, "sep": {"=": 100}, "quote_keys": 0.0, "space": 1.0},
        "latency": (900, 0.3, 9.0), "tok": 1.1,
        "translit": 0.7,   # share of wrong values that are the English name of a native value
    },
    "function-caller": {
        "content": {"correct": 72, "confuser": 7, "hallucinated": 2, "wrong_value": 7,
                    "missing_arg": 4, "extra_arg": 6, "missing_call": 2},
        "no_tool_refusal": 0.75,
        "native": {"null": 70, "short": 20, "json_text": 10},
        "thought_lang": {"task": 50, "en": 50},
        "refs": {"braces": 30, "dollar": 40, "invented": 30},
        "action": {"quote": {"'": 100}, "sep": {"=": 100}, "quote_keys": 0.0, "space": 1.0},
        "latency": (700, 0.45, 8.0), "tok": 0.95,
        "errors": ["timeout after 3 retries", "HTTP 429 Too Many Requests after 3 retries",
                   "timeout after 3 retries"],
    },
}

REFUSAL = {
    "en": "None of the candidate tools can do this, or a required detail is missing, so I cannot make a call.",
    "zh": "现有工具无法完成该请求，或者缺少必要的参数，因此不调用任何工具。",
    "ja": "候補のツールではこの依頼に対応できないか、必要な情報が不足しているため、ツールは呼び出しません。",
    "ko": "제공된 도구로는 이 요청을 처리할 수 없거나 필요한 정보가 부족하므로 도구를 호출하지 않습니다.",
    "ar": "لا تستطيع الأدوات المتاحة تنفيذ هذا الطلب أو أن هناك معلومات مطلوبة ناقصة، لذلك لن أستدعي أي أداة.",
    "ru": "Ни один из доступных инструментов не подходит, либо не хватает обязательных данных, поэтому я не вызываю инструменты.",
    "hi": "उपलब्ध टूल इस अनुरोध को पूरा नहीं कर सकते या ज़रूरी जानकारी नहीं दी गई है, इसलिए कोई टूल नहीं बुलाया जाएगा।",
    "de": "Keines der verfügbaren Werkzeuge passt, oder es fehlen notwendige Angaben; deshalb rufe ich kein Werkzeug auf.",
    "fr": "Aucun des outils disponibles ne convient, ou une information obligatoire manque ; je n'appelle donc aucun outil.",
    "es": "Ninguna de las herramientas disponibles sirve para esto o falta un dato obligatorio, así que no llamo a ninguna.",
    "it": "Nessuno degli strumenti disponibili è adatto oppure manca un dato obbligatorio, quindi non chiamo alcuno strumento.",
    "pt": "Nenhuma das ferramentas disponíveis atende ao pedido ou falta uma informação obrigatória, então não vou chamar nenhuma.",
    "tr": "Mevcut araçların hiçbiri bu isteği karşılamıyor ya da zorunlu bir bilgi eksik, bu yüzden hiçbir araç çağırmıyorum.",
}
CALLING = {
    "en": "I will call {name} to answer this.", "zh": "我将调用 {name} 来回答这个问题。",
    "ja": "{name} を呼び出して回答します。", "ko": "{name}을(를) 호출해서 답하겠습니다.",
    "ar": "سأستدعي {name} للإجابة عن هذا السؤال.", "ru": "Вызову {name}, чтобы ответить на вопрос.",
    "hi": "इस सवाल के लिए मैं {name} को बुलाऊँगा।", "de": "Ich rufe {name} auf, um die Frage zu beantworten.",
    "fr": "J'appelle {name} pour répondre à la question.", "es": "Voy a llamar a {name} para responder.",
    "it": "Chiamo {name} per rispondere.", "pt": "Vou chamar {name} para responder.",
    "tr": "Bu soruyu yanıtlamak için {name} aracını çağıracağım.",
}
SHORT = {
    "en": "Let me look that up.", "zh": "我来查询一下。", "ja": "お調べします。", "ko": "조회해 보겠습니다.",
    "ar": "سأبحث عن ذلك الآن.", "ru": "Сейчас проверю.", "hi": "मैं अभी जाँच करता हूँ।",
    "de": "Ich schaue kurz nach.", "fr": "Je vérifie tout de suite.", "es": "Lo consulto ahora mismo.",
    "it": "Controllo subito.", "pt": "Vou verificar agora.", "tr": "Hemen bakıyorum.",
}
# English names a model that thinks in English tends to put in place of the
# native value written in the query (a wrong value under the SPEC's equality).
TRANSLIT = {
    "杭州": "Hangzhou", "北京": "Beijing", "上海": "Shanghai", "成都": "Chengdu", "重庆": "Chongqing",
    "厦门": "Xiamen", "广州": "Guangzhou", "长沙": "Changsha", "武汉": "Wuhan", "红烧肉": "braised pork belly",
    "宫保鸡丁": "Kung Pao chicken", "麻婆豆腐": "mapo tofu", "科技": "technology",
    "北海道": "Hokkaido", "大阪府": "Osaka", "京都府": "Kyoto", "沖縄県": "Okinawa", "新宿": "Shinjuku",
    "横浜": "Yokohama", "東京": "Tokyo", "名古屋": "Nagoya", "京都": "Kyoto", "仙台": "Sendai",
    "箱根": "Hakone", "もつ鍋": "motsunabe", "ラーメン": "ramen", "石垣島": "Ishigaki", "任天堂": "Nintendo",
    "人口推計": "population estimates", "ワイヤレスイヤホン": "wireless earphones",
    "종로구": "Jongno-gu", "강남구": "Gangnam-gu", "해운대구": "Haeundae-gu", "서울": "Seoul", "부산": "Busan",
    "경복궁": "Gyeongbokgung", "해운대": "Haeundae", "스키장": "ski resort", "캠핑 의자": "camping chair",
    "경기고등학교": "Kyunggi High School", "불국사": "Bulguksa",
    "العين": "Al Ain", "المدينة المنورة": "Medina", "القاهرة": "Cairo", "الإسكندرية": "Alexandria",
    "الرياض": "Riyadh", "جدة": "Jeddah", "دبي": "Dubai", "مكة المكرمة": "Mecca",
    "Москва": "Moscow", "Казань": "Kazan", "Санкт-Петербург": "Saint Petersburg", "Брат 2": "Brother 2",
    "Левиафан": "Leviathan", "москва хабар": "Moscow Khabar", "Невский проспект 28": "Nevsky Prospekt 28",
    "जयपुर": "Jaipur", "वाराणसी": "Varanasi", "महाराष्ट्र": "Maharashtra", "प्याज़": "Onion",
    "Köln Hbf": "Cologne Central Station", "Zugspitze": "Zugspitze mountain",
    "Sevilla": "Seville", "Zaragoza": "Saragossa", "Venezia": "Venice", "Firenze Santa Maria Novella": "Florence SMN",
    "Milano Centrale": "Milan Central", "Torino Porta Nuova": "Turin Porta Nuova", "Palermo": "Palermo, Sicily",
    "Catania": "Catania, Sicily", "Bologna": "Bologna, Italy", "Lecco": "Province of Lecco", "Bari": "Province of Bari",
    "Florianópolis": "Florianopolis", "İzmir": "Izmir", "Karşıyaka": "Karsiyaka", "İstanbul": "Istanbul",
    "Kadıköy": "Kadikoy", "Beşiktaş": "Besiktas", "Getafe": "Getafe, Madrid",
}
HALLUCINATED = {
    "Weather": ["get_weather", "weather_forecast", "WeatherAPI.forecast"],
    "Finance": ["get_exchange_rate", "stock_quote", "currency_api"],
    "Transportation": ["train_search", "get_train_schedule", "transit_api"],
    "Maps": ["geocode", "address_lookup", "maps.search"],
    "Government": ["get_public_holidays", "holiday_api", "gov_data_search"],
    "Data": ["data_lookup", "open_data_search", "statistics_api"],
    "Food": ["recipe_search", "get_recipe", "food_api"],
    "Health": ["air_quality_api", "health_info", "get_pharmacy"],
    "Shopping": ["product_search", "shopping_api", "track_package"],
    "Translation": ["translate", "translate_text", "translator"],
    "Entertainment": ["movie_search", "get_movie_info", "tv_guide"],
    "Sports": ["sports_scores", "get_match_results", "football_api"],
    "Travel": ["hotel_search", "flight_search", "travel_api"],
    "Education": ["school_search", "dictionary_lookup", "education_api"],
    "News": ["get_news", "news_search", "headlines"],
}
FAKE_CITY = {"en": "London", "zh": "北京", "ja": "東京都", "ko": "서울", "ar": "الرياض", "ru": "Москва",
             "hi": "दिल्ली", "de": "Berlin", "fr": "Paris", "es": "Madrid", "it": "Roma", "pt": "São Paulo",
             "tr": "İstanbul"}
# Literals a model makes up where the gold has a reference to an earlier
# output. None equals a recorded output in the sample (checked in main()).
INVENTED = ["101010100", "8011160", "result_1", "12345", "S09999", "75008", "Tokyo", "0000320193"]


def pick(rng, weights):
    keys = list(weights)
    return rng.choices(keys, [weights[k] for k in keys])[0]


# ---------------------------------------------------------------------------
# Printing an action string (SPEC section 1)
# ---------------------------------------------------------------------------
BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Printer:
    def __init__(self, quote="'", sep="=", quote_keys=False, space=True, truthy="True",
                 positional=False, brackets=True):
        self.q, self.sep, self.quote_keys, self.space = quote, sep, quote_keys, space
        self.truthy, self.positional, self.brackets = truthy, positional, brackets

    def string(self, s):
        q = self.q
        return q + s.replace("\\", "\\\\").replace(q, "\\" + q).replace("\n", "\\n") + q

    def value(self, v):
        if isinstance(v, Raw):
            return v.text
        if isinstance(v, bool):
            return ("True" if v else "False") if self.truthy == "True" else ("true" if v else "false")
        if v is None:
            return "None"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return self.string(v)
        if isinstance(v, list):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(self.string(k) + ": " + self.value(x) for k, x in v.items()) + "}"
        raise TypeError(v)

    def key(self, k):
        return self.string(k) if self.quote_keys or not BARE.match(k) else k

    def call(self, c):
        comma = ", " if self.space else ","
        sep = ": " if self.sep == ":" else "="
        if self.positional:
            args = comma.join(self.value(v) for v in c["arguments"].values())
        else:
            args = comma.join(self.key(k) + sep + self.value(v) for k, v in c["arguments"].items())
        return "%s(%s)" % (c["name"], args)

    def calls(self, calls):
        comma = ", " if self.space else ","
        body = comma.join(self.call(c) for c in calls)
        return "[" + body + "]" if self.brackets else body


class Raw:
    """A value printed verbatim (a bare reference token)."""
    def __init__(self, text):
        self.text = text


# ---------------------------------------------------------------------------
# Answer content
# ---------------------------------------------------------------------------
def ref_value(rng, style, v, thought):
    i, field = v["$ref"].split(".", 1)
    if style == "dollar":
        return "$%s.%s" % (i, field)
    if style == "braces":
        return "{{%s}}" % field
    if style == "api_call":
        return Raw("API_call_%s" % i) if rng.random() < 0.5 else "API_call_%s" % i
    if style == "placeholder":
        return field
    return rng.choice(INVENTED)


def with_refs(rng, style, calls, thought):
    out = []
    for c in calls:
        args = {}
        for k, v in c["arguments"].items():
            args[k] = ref_value(rng, style, v, thought) if isinstance(v, dict) and "$ref" in v else v
        out.append({"name": c["name"], "arguments": args})
    return out


def wrong_value(rng, v, translit=0.0):
    if isinstance(v, dict) and "$ref" in v:
        return rng.choice(INVENTED)
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return rng.choice([v + 1, v - 1 if v > 1 else v + 2, v * 2])
    if isinstance(v, float):
        return round(v, 1) if round(v, 1) != v else v + 0.5
    if isinstance(v, list):
        return v[:-1] if len(v) > 1 else [wrong_value(rng, v[0], translit)]
    if isinstance(v, str):
        if v in TRANSLIT and (rng.random() < translit or rng.random() < 0.4):
            return TRANSLIT[v]
        m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", v)
        if m:
            return rng.choice(["%s/%s/%s" % m.groups(), "%s.%s.%s" % m.groups()[::-1],
                               "%s-%s-%02d" % (m.group(1), m.group(2), int(m.group(3)) % 28 + 1)])
        if re.fullmatch(r"\d{8}", v):
            return "%s-%s-%s" % (v[:4], v[4:6], v[6:])
        if re.fullmatch(r"[\d\-]+", v) and len(v) >= 2:
            digits = [i for i, ch in enumerate(v) if ch.isdigit()]
            i = rng.choice(digits)
            return v[:i] + str((int(v[i]) + 3) % 10) + v[i + 1:]
        if "," in v:
            return v.split(",")[0]
        if " " in v.strip() and rng.random() < 0.6:
            return v.rsplit(" ", 1)[0]
        if v.isupper() and len(v) <= 5 and v.isalpha():
            return {"EUR": "USD", "USD": "EUR", "GBP": "EUR", "JPY": "CNY", "CNY": "RMB"}.get(v, v[:-1] + "X")
        digits = [i for i, ch in enumerate(v) if ch.isdigit()]
        if digits:
            i = rng.choice(digits)
            return v[:i] + str((int(v[i]) + 3) % 10) + v[i + 1:]
        if re.search(r"[\u3040-\u9fff]", v):
            return v + rng.choice(["市", "地区"])
        if re.search(r"[\uac00-\ud7af]", v):
            return v + " 일대"
        if re.search(r"[\u0600-\u06ff]", v):
            return "مدينة " + v
        if re.search(r"[\u0400-\u04ff]", v):
            return v + " (город)"
        if re.search(r"[\u0900-\u097f]", v):
            return v + " शहर"
        return v + rng.choice([" (center)", "s"])
    return v


def fake_value(param, lang, rng):
    n, t = param["name"].lower(), param["type"]
    if t == "integer":
        return 2025 if "year" in n or "jahr" in n or n == "ano" else rng.choice([1, 3, 10])
    if t == "number":
        return rng.choice([35.68, 48.85, 40.71, -33.87])
    if t == "boolean":
        return True
    if t == "array":
        return ["central"] if "ids" in n else ["2025-01-01"]
    if "date" in n or "fecha" in n or "tarih" in n or "dt" in n or n.endswith("ymd"):
        return "2025-06-01"
    if n in ("from", "to", "moeda", "currency") or "currency" in n:
        return "USD"
    if any(x in n for x in ("city", "station", "localita", "prefecture", "il", "location", "stationname")):
        return FAKE_CITY[lang]
    if "code" in n or "symbol" in n or "secid" in n or n in ("cp", "cep", "pincode", "zipcode", "postcode", "pnr"):
        return rng.choice(["100001", "AAPL", "12345", "NAT010000"])
    return FAKE_CITY[lang] if rng.random() < 0.5 else "latest"


def extra_argument(rng, tool, call):
    optional = [p for p in tool["optional_parameters"] if p["name"] not in call["arguments"]]
    if optional and rng.random() < 0.8:
        p = rng.choice(optional)
        if "default" in p:
            return p["name"], p["default"]
        return p["name"], fake_value(p, "en", rng)
    return rng.choice([("language", "en"), ("format", "json"), ("limit", 10), ("units", "metric")])


def english_thought(rng, task, calls):
    names = ["'%s'" % c["name"] for c in calls]   # models tend to quote tool names
    if not calls:
        return rng.choice([
            "None of the available tools fits this request, or a required parameter is missing, so I return an empty action list.",
            "I cannot complete this with the tools provided; the request needs information or a capability that is not available.",
        ])
    if task["kind"] == "nested" and len(set(names)) > 1:
        return ("First I call %s; its output is needed for %s, so I chain the calls and pass the earlier result on."
                % (names[0], names[-1]))
    if len(calls) == 1:
        return rng.choice([
            "The user wants information that %s provides, so I will call it with the values from the question." % names[0],
            "To answer this I will use %s with the parameters given in the request." % names[0],
            "%s matches the request best; I fill its parameters from the query." % names[0],
        ])
    uniq = sorted(set(names), key=names.index)
    return "This needs %d calls (%s). I take the argument values directly from the request." % (len(calls), ", ".join(uniq))


def make_content(rng, prof, task):
    """Return (calls, thought_kind, content_style, ref_style)."""
    gold = task["gold"]["calls"]
    names = [t["name"] for t in task["tools"]]
    tools = {t["name"]: t for t in task["tools"]}
    gold_names = {c["name"] for c in gold}
    confusers = [n for n in names if n not in gold_names]
    ref_style = pick(rng, prof["refs"]) if task["kind"] == "nested" else "-"

    if not gold:  # no_tool task
        if rng.random() < prof["no_tool_refusal"]:
            return [], "refusal_ok", "correct_refusal", ref_style
        name = rng.choice(names)
        tool = tools[name]
        args = {p["name"]: fake_value(p, task["language"], rng) for p in tool["required_parameters"]}
        return [{"name": name, "arguments": args}], "called", "called_anyway", ref_style

    style = pick(rng, prof["content"])
    calls = [dict(name=c["name"], arguments=dict(c["arguments"])) for c in gold]
    if style == "missing_call" and len(calls) < 2:
        style = "missing_arg"
    if style == "refusal":
        return [], "refusal", style, ref_style
    if style == "confuser" and confusers:
        i = rng.randrange(len(calls))
        calls[i]["name"] = rng.choice(confusers)
    elif style in ("confuser", "hallucinated"):
        style = "hallucinated"
        i = rng.randrange(len(calls))
        pool = HALLUCINATED[task["category"]] + [calls[i]["name"] + "_v2"]
        calls[i]["name"] = rng.choice([n for n in pool if n not in names])
    elif style == "wrong_value":
        i = rng.randrange(len(calls))
        if calls[i]["arguments"]:
            k = rng.choice(sorted(calls[i]["arguments"]))
            calls[i]["arguments"][k] = wrong_value(rng, calls[i]["arguments"][k], prof.get("translit", 0.0))
        else:
            style = "extra_arg"
    elif style == "missing_arg":
        i = rng.randrange(len(calls))
        if calls[i]["arguments"]:
            k = rng.choice(sorted(calls[i]["arguments"]))
            del calls[i]["arguments"][k]
        else:
            style = "extra_arg"
    elif style == "missing_call":
        del calls[rng.randrange(len(calls))]
    elif style == "extra_call" and confusers:
        name = rng.choice(confusers)
        tool = tools[name]
        calls.append({"name": name, "arguments": {p["name"]: fake_value(p, task["language"], rng)
                                                  for p in tool["required_parameters"]}})
    if style == "extra_arg":
        i = rng.randrange(len(calls))
        tool = tools.get(calls[i]["name"])
        if tool:
            k, v = extra_argument(rng, tool, calls[i])
            calls[i]["arguments"][k] = v
    calls = with_refs(rng, ref_style, calls, task["gold"]["thought"])
    if style == "correct" and ref_style == "invented":
        style = "invented_ref"   # right tools and literals, a made-up value for the reference
    return calls, "gold", style, ref_style


def thought_text(rng, prof, task, calls, thought_kind):
    """thought_kind: gold (an answer with calls), refusal (an unwarranted
    empty answer), refusal_ok (an empty answer to a no_tool task), called
    (a call made on a no_tool task)."""
    lang = pick(rng, prof["thought_lang"])
    if lang == "empty":
        return rng.choice(["", "..."]), "empty"
    if lang == "en" and task["language"] != "en":
        return english_thought(rng, task, calls), "en"
    lang = task["language"]
    if thought_kind == "refusal" or (thought_kind == "refusal_ok" and rng.random() < 0.4):
        return REFUSAL[lang], lang
    if thought_kind == "called":
        return CALLING[lang].format(name="'%s'" % calls[0]["name"]), lang
    return task["gold"]["thought"], lang


# ---------------------------------------------------------------------------
# Rendering the raw output text
# ---------------------------------------------------------------------------
def render(rng, prof, fmt, thought, calls):
    a = prof["action"]
    pr = Printer(quote=pick(rng, a["quote"]), sep=pick(rng, a["sep"]),
                 quote_keys=rng.random() < a["quote_keys"], space=rng.random() < a["space"],
                 truthy=rng.choice(["True", "true"]))
    if fmt == "colon_args":
        pr.sep = ":"
    if fmt == "positional":
        pr.positional = True
    if fmt == "no_outer_brackets":
        pr.brackets = False
    action = pr.calls(calls)
    obj = {"Thought": thought, "Action": action}
    strict = json.dumps(obj, ensure_ascii=False)
    if fmt in ("strict", "colon_args", "no_outer_brackets", "positional"):
        return strict
    if fmt == "json_prefix":
        return "json" + strict
    if fmt == "fenced":
        return "```json\n" + json.dumps(obj, ensure_ascii=False, indent=2) + "\n```"
    if fmt == "fenced_prose":
        return ("```json\n" + strict + "\n```\n\n"
                + rng.choice(["This call should return the requested data.",
                              "The tool output will contain the answer."]))
    if fmt == "pretty":
        return json.dumps(obj, ensure_ascii=False, indent=2)
    if fmt == "ascii_escaped":
        return json.dumps(obj, ensure_ascii=True)
    if fmt == "prose_wrapped":
        return (rng.choice(["Sure! Here is the tool call:\n\n", "Here's my answer.\n", "Okay, let me handle that.\n\n"])
                + strict + rng.choice(["\n\nLet me know if you need anything else.", "", "\nHope this helps!"]))
    if fmt == "trailing_text":
        return strict + "\n" + rng.choice(["(Values taken from the user's message.)", "Done."])
    if fmt == "single_quoted":
        return repr({"Thought": thought, "Action": action})
    if fmt == "lowercase_keys":
        return json.dumps({"thought": thought, "action": action}, ensure_ascii=False)
    if fmt == "no_thought":
        return json.dumps({"Action": action}, ensure_ascii=False)
    if fmt == "action_list":
        if rng.random() < 0.5:
            return json.dumps({"Thought": thought, "Action": [pr.call(c) for c in calls]}, ensure_ascii=False)
        plain = [{"name": c["name"], "arguments": {k: (v.text if isinstance(v, Raw) else v)
                                                   for k, v in c["arguments"].items()}} for c in calls]
        return json.dumps({"Thought": thought, "Action": plain}, ensure_ascii=False)
    if fmt == "bare_calls":
        if not calls:
            return (thought + "\n\n" if thought else "") + "No tool call is needed."
        pr.brackets = False
        parts = [pr.call(c) for c in calls]
        lead = rng.choice(["I'll call ", "Calling ", "Action: "])
        return (thought + "\n\n" if thought else "") + lead + " and then ".join(parts) + "."
    raise ValueError(fmt)


def plain_calls(calls):
    return [{"name": c["name"], "arguments": {k: (v.text if isinstance(v, Raw) else v)
                                             for k, v in c["arguments"].items()}} for c in calls]


# ---------------------------------------------------------------------------
# Usage and latency
# ---------------------------------------------------------------------------
def n_tokens(text, factor):
    if not text:
        return 0
    cjk = sum(1 for ch in text if ord(ch) > 0x2E80)
    other = len(text) - cjk
    return max(1, int(math.ceil((other / 3.6 + cjk * 1.1) * factor)))


def usage_latency(rng, prof, task, completion_text):
    prompt = 430 + n_tokens(json.dumps(task["tools"], ensure_ascii=False), prof["tok"]) \
        + n_tokens(task["query"], prof["tok"])
    completion = n_tokens(completion_text, prof["tok"]) + rng.randint(0, 6)
    base, sigma, per_tok = prof["latency"]
    latency = int(base * math.exp(rng.gauss(0, sigma)) + per_tok * completion + prompt * 0.05)
    return {"prompt_tokens": prompt, "completion_tokens": completion}, latency


# ---------------------------------------------------------------------------
def predict(model, prof, task):
    rng = random.Random("%d/%s/%s" % (SEED, model, task["id"]))
    calls, thought_kind, content_style, ref_style = make_content(rng, prof, task)
    thought, thought_lang = thought_text(rng, prof, task, calls, thought_kind)
    rec = {"task_id": task["id"], "model": model, "output": None, "calls": None, "error": None}
    if "native" in prof:
        mode = pick(rng, prof["native"])
        fmt = "native_" + mode
        if not calls:
            # a refusal through function calling: no tool call, a text answer
            rec["output"] = thought or REFUSAL[task["language"]]
            rec["calls"] = []
            fmt = "native_refusal"
        else:
            rec["calls"] = plain_calls(calls)
            if mode == "short":
                lang = task["language"] if thought_lang != "en" else "en"
                rec["output"] = SHORT[lang]
                thought_lang = lang
            elif mode == "json_text":
                rec["output"] = render(rng, prof, "strict", thought, calls)
            else:
                thought_lang = "none"
        text = (rec["output"] or "") + json.dumps(rec["calls"], ensure_ascii=False)
    else:
        fmt = pick(rng, prof["format"])
        rec["output"] = render(rng, prof, fmt, thought, calls)
        text = rec["output"]
        if fmt == "no_thought":
            thought_lang = "none"
    rec["usage"], rec["latency_ms"] = usage_latency(rng, prof, task, text)
    order = ["task_id", "model", "output", "calls", "error", "latency_ms", "usage"]
    style = (task["id"], model, content_style, fmt, thought_lang, ref_style)
    return {k: rec[k] for k in order}, style


def recorded_values(task):
    """Every scalar of the task's recorded outputs (objects, lists, nested)."""
    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                yield from walk(x)
        elif isinstance(v, list):
            for x in v:
                yield from walk(x)
        else:
            yield str(v)
    for turn in task.get("turns", []):
        for o in turn["tool_outputs"]:
            yield from walk(o)


def main():
    tasks = [json.loads(line) for line in open(os.path.join(SAMPLE, "tasks.jsonl"), encoding="utf-8")]
    clash = {v for t in tasks for v in recorded_values(t)} & set(INVENTED)
    assert not clash, "invented literals equal recorded outputs: %s" % clash
    out_dir = os.path.join(SAMPLE, "predictions")
    os.makedirs(out_dir, exist_ok=True)
    styles = []
    for model, prof in MODELS.items():
        mrng = random.Random("%d/%s" % (SEED, model))
        ids = [t["id"] for t in tasks]
        skipped = set(mrng.sample(ids, prof.get("skip", 0)))
        errored = dict(zip(mrng.sample([i for i in ids if i not in skipped], len(prof.get("errors", []))),
                           prof.get("errors", [])))
        with open(os.path.join(out_dir, model + ".jsonl"), "w", encoding="utf-8") as f:
            for task in tasks:
                if task["id"] in skipped:
                    styles.append((task["id"], model, "skipped", "-", "-", "-"))
                    continue
                if task["id"] in errored:
                    rng = random.Random("%d/%s/%s/error" % (SEED, model, task["id"]))
                    timeout = errored[task["id"]].startswith("timeout")
                    rec = {"task_id": task["id"], "model": model, "output": None, "calls": None,
                           "error": errored[task["id"]],
                           "latency_ms": 3 * 60000 + rng.randint(0, 900) if timeout else rng.randint(1500, 4000),
                           "usage": {"prompt_tokens": 0, "completion_tokens": 0}}
                    styles.append((task["id"], model, "error", "-", "-", "-"))
                else:
                    rec, style = predict(model, prof, task)
                    styles.append(style)
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with open(os.path.join(SAMPLE, "prediction_styles.tsv"), "w", encoding="utf-8") as f:
        f.write("task_id\tmodel\tcontent\tformat\tthought_language\tref_style\n")
        for s in styles:
            f.write("\t".join(s) + "\n")
    print("wrote %d predictions for %d models" % (sum(1 for s in styles if s[2] != "skipped"), len(MODELS)))


if __name__ == "__main__":
    main()
