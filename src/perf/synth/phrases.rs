//! What the synthetic tasks and answers say, in ten languages: one
//! [`Phrases`] table a language (queries, thoughts, refusals, the words that
//! fill arguments) and [`fill`] for their `{topic}` / `{place}` templates.

use super::domain::{Refusal, Topic};

/// The phrases of one language. Templates hold `{topic}` and `{place}`.
pub(super) struct Phrases {
    /// ISO 639-1 code, as tasks give it.
    pub(super) code: &'static str,
    /// Country of the language's tasks and local tools (ISO 3166-1 alpha-2).
    pub(super) country: &'static str,
    /// What each [`Topic`] is called, in [`Topic::index`] order.
    pub(super) topics: [&'static str; 11],
    /// Cities the tasks ask about.
    pub(super) places: [&'static str; 4],
    /// Query templates.
    pub(super) queries: [&'static str; 3],
    /// Thought templates of an answer that calls tools.
    pub(super) thoughts: [&'static str; 3],
    /// Thoughts of an answer that calls nothing, by [`Refusal::index`].
    pub(super) refusals: [&'static str; 2],
    /// Thought of a nested chain; `{ph}` is what the first call returns.
    pub(super) nested: &'static str,
    /// Sentences before the JSON of a prose-wrapped answer.
    pub(super) wrap_before: [&'static str; 2],
    /// The sentence after it.
    pub(super) wrap_after: &'static str,
    /// The sentence of a bare-call answer; `{call}` is where the calls go.
    pub(super) bare: &'static str,
    /// A query that leaves out a value the tool requires.
    pub(super) vague: &'static str,
    /// Local currency (ISO 4217).
    pub(super) currency: &'static str,
    /// A sentence to translate.
    pub(super) phrase: &'static str,
    /// A cuisine to search restaurants for.
    pub(super) cuisine: &'static str,
    /// A news subject.
    pub(super) news: &'static str,
    /// A user name to log in with.
    pub(super) user: &'static str,
    /// A street address.
    pub(super) address: &'static str,
    /// A locally listed stock.
    pub(super) symbol: &'static str,
    /// A local airport (IATA).
    pub(super) airport: &'static str,
    /// The weather tool's name when tools are localized.
    pub(super) weather_tool: &'static str,
}

impl Phrases {
    /// What `topic` is called in this language.
    pub(super) fn topic(&self, topic: Topic) -> &'static str {
        self.topics[topic.index()]
    }

    /// The thought of an answer that calls nothing, for `reason`.
    pub(super) fn refusal(&self, reason: Refusal) -> &'static str {
        self.refusals[reason.index()]
    }
}

/// Index of English in [`LANGUAGES`].
pub(super) const ENGLISH: usize = 0;

/// Every language of the synthetic tasks; a task draws one by index.
pub(super) const LANGUAGES: [Phrases; 10] = [
    Phrases {
        code: "en",
        country: "US",
        topics: [
            "weather forecast",
            "exchange rate",
            "translation",
            "driving directions",
            "latest news",
            "restaurant recommendations",
            "stock price",
            "flight options",
            "recent orders",
            "weather at the exact location",
            "lottery results",
        ],
        places: ["London", "Chicago", "Sydney", "Toronto"],
        queries: [
            "Can you get me the {topic} for {place}?",
            "I need the {topic} for {place}, please.",
            "Please look up the {topic} in {place} for me today.",
        ],
        thoughts: [
            "The user is asking for the {topic} in {place}, so I will call the matching tool with these arguments.",
            "To answer this I need the {topic} for {place}; the tool below provides exactly that.",
            "I should use the available tool to fetch the {topic} for {place} and then reply.",
        ],
        refusals: [
            "None of the available tools can provide the {topic}, so I will not call any of them.",
            "The request is missing a required detail, so I should ask the user instead of calling a tool.",
        ],
        nested: "First I call one tool to obtain the {ph}, then I pass the {ph} to the next tool to get the {topic}.",
        wrap_before: [
            "Sure! Here is my answer:",
            "Okay, here is the tool call you need:",
        ],
        wrap_after: "Let me know if you need anything else.",
        bare: "I will call {call} to get the {topic} for {place}.",
        vague: "Can you tell me the {topic}?",
        currency: "USD",
        phrase: "Where is the train station?",
        cuisine: "Italian",
        news: "elections",
        user: "john.smith",
        address: "221B Baker Street, London",
        symbol: "AAPL",
        airport: "JFK",
        weather_tool: "OpenWeather Forecast",
    },
    Phrases {
        code: "zh",
        country: "CN",
        topics: [
            "天气预报",
            "汇率",
            "翻译",
            "驾车路线",
            "最新新闻",
            "餐厅推荐",
            "股票价格",
            "航班信息",
            "最近的订单",
            "所在位置的天气",
            "彩票开奖结果",
        ],
        places: ["北京", "上海", "广州", "成都"],
        queries: [
            "请帮我查一下{place}的{topic}。",
            "我想知道{place}的{topic}，谢谢。",
            "能告诉我今天{place}的{topic}吗？",
        ],
        thoughts: [
            "用户想了解{place}的{topic}，所以我需要调用相应的工具并传入这些参数。",
            "为了回答这个问题，我需要查询{place}的{topic}，下面的工具正好可以提供。",
            "我应该使用可用的工具获取{place}的{topic}，然后再回复用户。",
        ],
        refusals: [
            "现有的工具都无法提供{topic}，所以我不会调用任何工具。",
            "请求中缺少必要的信息，我应该先询问用户，而不是直接调用工具。",
        ],
        nested: "首先调用一个工具获取 {ph} ，然后把 {ph} 传给下一个工具来查询{topic}。",
        wrap_before: ["好的，以下是我的回答：", "没问题，这是需要的工具调用："],
        wrap_after: "如果还需要其他帮助，请告诉我。",
        bare: "我将调用 {call} 来查询{place}的{topic}。",
        vague: "请告诉我{topic}。",
        currency: "CNY",
        phrase: "火车站在哪里？",
        cuisine: "川菜",
        news: "人工智能",
        user: "wang_lei",
        address: "北京市朝阳区建国路88号",
        symbol: "600519.SS",
        airport: "PEK",
        weather_tool: "天气查询",
    },
    Phrases {
        code: "ja",
        country: "JP",
        topics: [
            "天気予報",
            "為替レート",
            "翻訳",
            "道順",
            "最新のニュース",
            "おすすめのレストラン",
            "株価",
            "フライト情報",
            "最近の注文",
            "現在地の天気",
            "宝くじの当選番号",
        ],
        places: ["札幌", "東京", "大阪", "福岡"],
        queries: [
            "{place}の{topic}を教えてください。",
            "{place}の{topic}を調べてもらえますか？",
            "今日の{place}の{topic}が知りたいです。",
        ],
        thoughts: [
            "ユーザーは{place}の{topic}を知りたがっているので、適切なツールをこれらの引数で呼び出します。",
            "この質問に答えるには{place}の{topic}が必要です。下のツールでそれを取得できます。",
            "利用できるツールを使って{place}の{topic}を取得し、その結果を伝えます。",
        ],
        refusals: [
            "利用できるツールでは{topic}を取得できないため、ツールは呼び出しません。",
            "必要な情報が不足しているので、ツールを呼び出す前にユーザーに確認するべきです。",
        ],
        nested: "まず最初のツールで {ph} を取得し、その {ph} を次のツールに渡して{topic}を調べます。",
        wrap_before: [
            "はい、回答は以下のとおりです：",
            "承知しました。必要なツール呼び出しはこちらです：",
        ],
        wrap_after: "ほかに必要なことがあれば教えてください。",
        bare: "{place}の{topic}を調べるために {call} を呼び出します。",
        vague: "{topic}を教えてください。",
        currency: "JPY",
        phrase: "駅はどこですか？",
        cuisine: "寿司",
        news: "地震",
        user: "tanaka.yuki",
        address: "東京都千代田区丸の内1-1",
        symbol: "7203.T",
        airport: "HND",
        weather_tool: "天気予報API",
    },
    Phrases {
        code: "ko",
        country: "KR",
        topics: [
            "일기 예보",
            "환율",
            "번역",
            "길 안내",
            "최신 뉴스",
            "맛집 추천",
            "주가",
            "항공편",
            "최근 주문 내역",
            "현재 위치의 날씨",
            "복권 당첨 번호",
        ],
        places: ["서울", "부산", "인천", "대구"],
        queries: [
            "{place}의 {topic} 정보를 알려 주세요.",
            "{place} {topic} 정보를 찾아 줄 수 있나요?",
            "오늘 {place}의 {topic} 정보가 궁금합니다.",
        ],
        thoughts: [
            "사용자가 {place}의 {topic} 정보를 원하므로 적절한 도구를 이 인자들로 호출하겠습니다.",
            "이 질문에 답하려면 {place}의 {topic} 정보가 필요하며, 아래 도구가 그 정보를 제공합니다.",
            "사용 가능한 도구로 {place}의 {topic} 정보를 가져온 뒤 답변하겠습니다.",
        ],
        refusals: [
            "사용 가능한 도구로는 {topic} 정보를 얻을 수 없으므로 도구를 호출하지 않겠습니다.",
            "필수 정보가 빠져 있으므로 도구를 호출하기 전에 사용자에게 먼저 물어봐야 합니다.",
        ],
        nested: "먼저 첫 번째 도구로 {ph} 값을 얻은 다음, 그 {ph} 값을 다음 도구에 넘겨 {topic} 정보를 조회하겠습니다.",
        wrap_before: [
            "네, 답변은 다음과 같습니다:",
            "알겠습니다. 필요한 도구 호출은 다음과 같습니다:",
        ],
        wrap_after: "더 필요한 것이 있으면 말씀해 주세요.",
        bare: "{place}의 {topic} 정보를 얻기 위해 {call} 를 호출하겠습니다.",
        vague: "{topic} 정보를 알려 주세요.",
        currency: "KRW",
        phrase: "기차역이 어디에 있나요?",
        cuisine: "한식",
        news: "반도체",
        user: "kim.minji",
        address: "서울특별시 중구 세종대로 110",
        symbol: "005930.KS",
        airport: "ICN",
        weather_tool: "날씨 조회",
    },
    Phrases {
        code: "ar",
        country: "SA",
        topics: [
            "توقعات الطقس",
            "سعر الصرف",
            "الترجمة",
            "اتجاهات القيادة",
            "آخر الأخبار",
            "توصيات المطاعم",
            "سعر السهم",
            "خيارات الرحلات",
            "الطلبات الأخيرة",
            "الطقس في الموقع الحالي",
            "نتائج اليانصيب",
        ],
        places: ["الرياض", "القاهرة", "دبي", "عمّان"],
        queries: [
            "هل يمكنك أن تخبرني عن {topic} في {place}؟",
            "أحتاج إلى معرفة {topic} في {place} من فضلك.",
            "من فضلك ابحث عن {topic} في {place} اليوم.",
        ],
        thoughts: [
            "يريد المستخدم معرفة {topic} في {place}، لذلك سأستدعي الأداة المناسبة بهذه المعاملات.",
            "للإجابة عن هذا السؤال أحتاج إلى {topic} في {place}، والأداة التالية توفر ذلك.",
            "يجب أن أستخدم الأداة المتاحة للحصول على {topic} في {place} ثم أرد على المستخدم.",
        ],
        refusals: [
            "لا توجد أداة متاحة تستطيع تقديم {topic}، لذلك لن أستدعي أي أداة.",
            "الطلب ينقصه معلومة مطلوبة، لذلك يجب أن أسأل المستخدم بدلا من استدعاء أداة.",
        ],
        nested: "أولا أستدعي أداة للحصول على {ph} ، ثم أمرر {ph} إلى الأداة التالية لمعرفة {topic}.",
        wrap_before: [
            "بالتأكيد، إليك إجابتي:",
            "حسنا، هذا هو استدعاء الأداة المطلوب:",
        ],
        wrap_after: "أخبرني إذا كنت تحتاج إلى أي شيء آخر.",
        bare: "سأستدعي {call} لمعرفة {topic} في {place}.",
        vague: "أخبرني عن {topic} من فضلك.",
        currency: "SAR",
        phrase: "أين محطة القطار؟",
        cuisine: "مشويات",
        news: "الاقتصاد",
        user: "ahmed.ali",
        address: "طريق الملك فهد، الرياض",
        symbol: "2222.SR",
        airport: "RUH",
        weather_tool: "حالة_الطقس",
    },
    Phrases {
        code: "ru",
        country: "RU",
        topics: [
            "прогноз погоды",
            "курс валют",
            "перевод",
            "маршрут",
            "последние новости",
            "рекомендации ресторанов",
            "цену акций",
            "варианты перелёта",
            "последние заказы",
            "погоду в текущем месте",
            "результаты лотереи",
        ],
        places: ["Москва", "Санкт-Петербург", "Казань", "Новосибирск"],
        queries: [
            "Покажи, пожалуйста, {topic} для города {place}.",
            "Мне нужно узнать {topic} для города {place}.",
            "Найди, пожалуйста, {topic} в городе {place} на сегодня.",
        ],
        thoughts: [
            "Пользователь хочет узнать {topic} для города {place}, поэтому я вызову подходящий инструмент с этими аргументами.",
            "Чтобы ответить, нужно получить {topic} для города {place}; нужный инструмент есть в списке.",
            "Я должен использовать доступный инструмент, чтобы получить {topic} для города {place}, а затем ответить.",
        ],
        refusals: [
            "Ни один из доступных инструментов не может дать {topic}, поэтому я не буду вызывать инструменты.",
            "В запросе не хватает обязательного параметра, поэтому нужно сначала уточнить у пользователя.",
        ],
        nested: "Сначала я получу {ph} с помощью первого инструмента, а затем передам {ph} следующему инструменту, чтобы узнать {topic}.",
        wrap_before: [
            "Конечно, вот мой ответ:",
            "Хорошо, вот нужный вызов инструмента:",
        ],
        wrap_after: "Дайте знать, если нужно что-то ещё.",
        bare: "Я вызову {call}, чтобы узнать {topic} для города {place}.",
        vague: "Скажи, пожалуйста, {topic}.",
        currency: "RUB",
        phrase: "Где находится вокзал?",
        cuisine: "грузинская кухня",
        news: "выборы",
        user: "ivan.petrov",
        address: "Тверская улица, 7, Москва",
        symbol: "SBER.ME",
        airport: "SVO",
        weather_tool: "погода.прогноз",
    },
    Phrases {
        code: "hi",
        country: "IN",
        topics: [
            "मौसम का पूर्वानुमान",
            "विनिमय दर",
            "अनुवाद",
            "रास्ते की जानकारी",
            "ताज़ा समाचार",
            "रेस्टोरेंट के सुझाव",
            "शेयर की कीमत",
            "उड़ान के विकल्प",
            "हाल के ऑर्डर",
            "मौजूदा जगह का मौसम",
            "लॉटरी के नतीजे",
        ],
        places: ["दिल्ली", "मुंबई", "जयपुर", "कोलकाता"],
        queries: [
            "क्या आप मुझे {place} का {topic} बता सकते हैं?",
            "मुझे {place} के लिए {topic} चाहिए।",
            "कृपया आज {place} का {topic} देखकर बताइए।",
        ],
        thoughts: [
            "उपयोगकर्ता {place} का {topic} जानना चाहता है, इसलिए मैं इन तर्कों के साथ सही टूल को कॉल करूँगा।",
            "इस सवाल का जवाब देने के लिए मुझे {place} का {topic} चाहिए, और नीचे दिया गया टूल यही जानकारी देता है।",
            "मुझे उपलब्ध टूल का उपयोग करके {place} का {topic} लाना चाहिए और फिर जवाब देना चाहिए।",
        ],
        refusals: [
            "कोई भी उपलब्ध टूल {topic} नहीं दे सकता, इसलिए मैं किसी टूल को कॉल नहीं करूँगा।",
            "अनुरोध में एक ज़रूरी जानकारी नहीं है, इसलिए टूल कॉल करने से पहले उपयोगकर्ता से पूछना चाहिए।",
        ],
        nested: "पहले मैं एक टूल से {ph} प्राप्त करूँगा, फिर उस {ph} को अगले टूल में देकर {topic} पता करूँगा।",
        wrap_before: ["ज़रूर, यह रहा मेरा जवाब:", "ठीक है, ज़रूरी टूल कॉल यह है:"],
        wrap_after: "अगर आपको और कुछ चाहिए तो बताइए।",
        bare: "{place} का {topic} जानने के लिए मैं {call} को कॉल करूँगा।",
        vague: "मुझे {topic} बताइए।",
        currency: "INR",
        phrase: "रेलवे स्टेशन कहाँ है?",
        cuisine: "दक्षिण भारतीय",
        news: "क्रिकेट",
        user: "rahul.sharma",
        address: "कनॉट प्लेस, नई दिल्ली",
        symbol: "RELIANCE.NS",
        airport: "DEL",
        weather_tool: "मौसम/पूर्वानुमान",
    },
    Phrases {
        code: "de",
        country: "DE",
        topics: [
            "die Wettervorhersage",
            "den Wechselkurs",
            "eine Übersetzung",
            "die Wegbeschreibung",
            "die aktuellen Nachrichten",
            "Restaurantempfehlungen",
            "den Aktienkurs",
            "passende Flugverbindungen",
            "die letzten Bestellungen",
            "das Wetter am aktuellen Standort",
            "die Lottozahlen",
        ],
        places: ["Berlin", "München", "Köln", "Hamburg"],
        queries: [
            "Kannst du mir {topic} für {place} heraussuchen?",
            "Ich brauche bitte {topic} für {place}.",
            "Bitte schau heute {topic} für {place} für mich nach.",
        ],
        thoughts: [
            "Der Nutzer möchte {topic} für {place} wissen, daher rufe ich das passende Werkzeug mit diesen Argumenten auf.",
            "Um die Frage zu beantworten, brauche ich {topic} für {place}; das folgende Werkzeug liefert genau das.",
            "Ich sollte das verfügbare Werkzeug benutzen, um {topic} für {place} abzurufen, und dann antworten.",
        ],
        refusals: [
            "Keines der verfügbaren Werkzeuge kann {topic} liefern, deshalb rufe ich keines davon auf.",
            "In der Anfrage fehlt eine notwendige Angabe, deshalb sollte ich zuerst beim Nutzer nachfragen.",
        ],
        nested: "Zuerst hole ich mit dem ersten Werkzeug den Wert {ph} , dann übergebe ich {ph} an das nächste Werkzeug, um {topic} zu bekommen.",
        wrap_before: [
            "Klar, hier ist meine Antwort:",
            "Gut, hier ist der benötigte Werkzeugaufruf:",
        ],
        wrap_after: "Sag Bescheid, wenn du noch etwas brauchst.",
        bare: "Ich rufe {call} auf, um {topic} für {place} zu bekommen.",
        vague: "Kannst du mir {topic} sagen?",
        currency: "EUR",
        phrase: "Wo ist der Bahnhof?",
        cuisine: "Italienisch",
        news: "Energiewende",
        user: "m.mueller",
        address: "Unter den Linden 77, Berlin",
        symbol: "SAP.DE",
        airport: "FRA",
        weather_tool: "Wetter Vorhersage",
    },
    Phrases {
        code: "fr",
        country: "FR",
        topics: [
            "la météo",
            "le taux de change",
            "une traduction",
            "l'itinéraire",
            "les dernières nouvelles",
            "des recommandations de restaurants",
            "le cours de l'action",
            "les vols disponibles",
            "les dernières commandes",
            "la météo à ma position",
            "les résultats du loto",
        ],
        places: ["Paris", "Lyon", "Marseille", "Toulouse"],
        queries: [
            "Peux-tu me donner {topic} pour {place} ?",
            "J'ai besoin de connaître {topic} à {place}, s'il te plaît.",
            "Merci de vérifier {topic} pour {place} aujourd'hui.",
        ],
        thoughts: [
            "L'utilisateur veut connaître {topic} pour {place}, donc je vais appeler l'outil adapté avec ces arguments.",
            "Pour répondre à cette question, il faut obtenir {topic} pour {place} avec l'outil ci-dessous.",
            "Je dois utiliser l'outil disponible pour récupérer {topic} pour {place}, puis répondre à l'utilisateur.",
        ],
        refusals: [
            "Aucun des outils disponibles ne peut fournir {topic}, donc je n'appelle aucun outil.",
            "Il manque une information obligatoire dans la demande, je dois donc d'abord poser la question à l'utilisateur.",
        ],
        nested: "D'abord j'obtiens la valeur {ph} avec le premier outil, puis je transmets {ph} à l'outil suivant pour obtenir {topic}.",
        wrap_before: [
            "Bien sûr, voici ma réponse :",
            "D'accord, voici l'appel d'outil nécessaire :",
        ],
        wrap_after: "N'hésite pas si tu as besoin d'autre chose.",
        bare: "Je vais appeler {call} pour obtenir {topic} à {place}.",
        vague: "Peux-tu me donner {topic} ?",
        currency: "EUR",
        phrase: "Où est la gare ?",
        cuisine: "bistrot",
        news: "grève",
        user: "c.dupont",
        address: "10 rue de Rivoli, Paris",
        symbol: "MC.PA",
        airport: "CDG",
        weather_tool: "météo_prévisions",
    },
    Phrases {
        code: "es",
        country: "ES",
        topics: [
            "el pronóstico del tiempo",
            "el tipo de cambio",
            "una traducción",
            "la ruta en coche",
            "las últimas noticias",
            "recomendaciones de restaurantes",
            "el precio de la acción",
            "opciones de vuelo",
            "los pedidos recientes",
            "el tiempo en mi ubicación",
            "los resultados de la lotería",
        ],
        places: ["Madrid", "Sevilla", "Ciudad de México", "Bogotá"],
        queries: [
            "¿Me puedes decir {topic} para {place}?",
            "Necesito saber {topic} en {place}, por favor.",
            "Por favor, busca {topic} de {place} para hoy.",
        ],
        thoughts: [
            "El usuario quiere saber {topic} en {place}, así que llamaré a la herramienta adecuada con estos argumentos.",
            "Para responder necesito obtener {topic} en {place}; la herramienta de abajo ofrece exactamente eso.",
            "Debo usar la herramienta disponible para consultar {topic} en {place} y luego responder al usuario.",
        ],
        refusals: [
            "Ninguna de las herramientas disponibles puede dar {topic}, así que no llamaré a ninguna.",
            "A la solicitud le falta un dato obligatorio, así que primero debo preguntarle al usuario.",
        ],
        nested: "Primero obtengo el valor {ph} con la primera herramienta y después paso {ph} a la siguiente herramienta para consultar {topic}.",
        wrap_before: [
            "¡Claro! Aquí está mi respuesta:",
            "De acuerdo, esta es la llamada a la herramienta que necesitas:",
        ],
        wrap_after: "Avísame si necesitas algo más.",
        bare: "Voy a llamar a {call} para obtener {topic} en {place}.",
        vague: "¿Me puedes decir {topic}?",
        currency: "MXN",
        phrase: "¿Dónde está la estación de tren?",
        cuisine: "tapas",
        news: "fútbol",
        user: "j.garcia",
        address: "Calle de Alcalá 45, Madrid",
        symbol: "SAN.MC",
        airport: "MAD",
        weather_tool: "clima.pronóstico",
    },
];

/// `template` with `{topic}` and `{place}` filled in.
pub(super) fn fill(template: &str, topic: &str, place: &str) -> String {
    template.replace("{topic}", topic).replace("{place}", place)
}
