#!/usr/bin/env python3
"""Build the hand-made ITC-style sample: datasets/sample/apis.json and tasks.jsonl.

Everything below (API descriptions, queries, thoughts) was written by hand for
this project. The script only assembles the records: it copies the full tool
objects into every task, adds the confusers, shuffles the candidate list with a
fixed seed, numbers the tasks and checks them.

    python3 datasets/scripts/build_sample_tasks.py

Deterministic: running it twice gives byte-identical files.
"""
import json
import os
import random
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "sample")

_NO = object()


def p(name, typ, desc, default=_NO):
    d = {"name": name, "type": typ, "description": desc}
    if default is not _NO:
        d["default"] = default
    return d


APIS = []          # list of tool objects, in authoring order
GROUP = {}         # tool name -> confusion group (build-time only, not written)


def api(name, desc, category, country, method, url, req=(), opt=(), group=None):
    assert name not in GROUP, name
    APIS.append({
        "name": name,
        "description": desc,
        "category": category,
        "country": country,
        "method": method,
        "url": url,
        "required_parameters": list(req),
        "optional_parameters": list(opt),
    })
    GROUP[name] = group or category


# ---------------------------------------------------------------------------
# Weather
# ---------------------------------------------------------------------------
api("jma_forecast",
    "気象庁の府県天気予報を取得します。日本国内の都道府県単位で、天気・降水確率・最高/最低気温を返します。",
    "Weather", "JP", "GET", "https://www.jma.go.jp/bosai/forecast/data/forecast/{office_code}.json",
    req=[p("prefecture", "string", "都道府県名（例: 東京都, 北海道, 沖縄県）")],
    opt=[p("days", "integer", "取得する日数（1〜7）", 3)],
    group="weather")
api("天气查询",
    "根据城市名称查询中国城市的实时天气以及未来5天的天气预报（仅支持中国大陆城市）。",
    "Weather", "CN", "GET", "http://apis.juhe.cn/simpleWeather/query",
    req=[p("city", "string", "城市名称，如：北京、杭州、成都")],
    group="weather")
api("qweather_now",
    "Real-time weather conditions (temperature, wind, humidity) for a location in China, addressed by its QWeather LocationID or by 'longitude,latitude'.",
    "Weather", "CN", "GET", "https://devapi.qweather.com/v7/weather/now",
    req=[p("location", "string", "LocationID (e.g. 101010100) or 'lon,lat' with at most two decimals")],
    opt=[p("lang", "string", "Response language", "zh"),
         p("unit", "string", "m = metric, i = imperial", "m")],
    group="weather")
api("amap/weatherInfo",
    "高德开放平台天气查询：根据行政区划编码（adcode）返回实况天气或未来3天预报。",
    "Weather", "CN", "GET", "https://restapi.amap.com/v3/weather/weatherInfo",
    req=[p("city", "string", "城市/区县的 adcode，例如 110101（北京东城区）")],
    opt=[p("extensions", "string", "base 返回实况天气，all 返回预报天气", "base")],
    group="weather")
api("open_meteo_forecast",
    "Worldwide hourly and daily weather forecast for any latitude/longitude, up to 16 days ahead. No API key needed.",
    "Weather", "GLOBAL", "GET", "https://api.open-meteo.com/v1/forecast",
    req=[p("latitude", "number", "WGS84 latitude in decimal degrees"),
         p("longitude", "number", "WGS84 longitude in decimal degrees")],
    opt=[p("forecast_days", "integer", "Number of forecast days (1-16)", 7),
         p("daily", "string", "Comma-separated daily variables, e.g. temperature_2m_max,precipitation_sum"),
         p("timezone", "string", "IANA time zone or 'auto'", "auto")],
    group="weather")
api("kma_short_term_forecast",
    "기상청 단기예보 조회서비스: 동네예보 격자(nx, ny) 기준으로 3일간의 기온, 강수확률, 하늘상태를 조회합니다.",
    "Weather", "KR", "GET", "https://apis.data.go.kr/1360000/VilageFcstInfoService_2.0/getVilageFcst",
    req=[p("base_date", "string", "발표일자 (YYYYMMDD)"),
         p("nx", "integer", "예보지점 X 격자 좌표"),
         p("ny", "integer", "예보지점 Y 격자 좌표")],
    opt=[p("base_time", "string", "발표시각 (HHMM, 0200/0500/0800…)", "0500"),
         p("numOfRows", "integer", "한 페이지 결과 수", 1000)],
    group="weather")
api("met_office_daily",
    "Met Office site-specific daily forecast for a point in the United Kingdom (day/night temperatures, precipitation probability, UV).",
    "Weather", "GB", "GET", "https://data.hub.api.metoffice.gov.uk/sitespecific/v0/point/daily",
    req=[p("latitude", "number", "Latitude of the UK location"),
         p("longitude", "number", "Longitude of the UK location")],
    opt=[p("includeLocationName", "boolean", "Return the nearest named location", True)],
    group="weather")
api("nws_forecast",
    "US National Weather Service 7-day forecast for a point. Only covers the United States and its territories.",
    "Weather", "US", "GET", "https://api.weather.gov/points/{latitude},{longitude}/forecast",
    req=[p("latitude", "number", "Latitude (US only)"),
         p("longitude", "number", "Longitude (US only)")],
    group="weather")
api("brightsky_weather",
    "Wetterdaten des Deutschen Wetterdienstes (DWD) für einen Ort in Deutschland: stündliche Beobachtungen und Vorhersagen für ein Datum.",
    "Weather", "DE", "GET", "https://api.brightsky.dev/weather",
    req=[p("lat", "number", "Breitengrad"),
         p("lon", "number", "Längengrad"),
         p("date", "string", "Datum im Format YYYY-MM-DD")],
    opt=[p("last_date", "string", "Letztes Datum (exklusiv), YYYY-MM-DD")],
    group="weather")
api("aemet_prediccion_municipio",
    "Predicción diaria de la Agencia Estatal de Meteorología para un municipio español, identificado por su código INE de 5 dígitos.",
    "Weather", "ES", "GET", "https://opendata.aemet.es/opendata/api/prediccion/especifica/municipio/diaria/{municipio}",
    req=[p("municipio", "string", "Código INE del municipio, p. ej. 28079 (Madrid)")],
    group="weather")
api("cptec/previsao",
    "Previsão do tempo do CPTEC/INPE para até 6 dias, a partir do código da cidade no CPTEC.",
    "Weather", "BR", "GET", "https://brasilapi.com.br/api/cptec/v1/clima/previsao/{cityCode}/{days}",
    req=[p("city_code", "integer", "Código da cidade no CPTEC (ex.: 244 = São Paulo)"),
         p("days", "integer", "Quantidade de dias de previsão (1 a 6)")],
    group="weather")
api("cptec/cidade",
    "Busca cidades na base do CPTEC pelo nome e devolve o código (id) usado nas consultas de previsão.",
    "Weather", "BR", "GET", "https://brasilapi.com.br/api/cptec/v1/cidade/{cityName}",
    req=[p("city_name", "string", "Nome (ou parte do nome) da cidade")],
    group="weather_lookup")
api("imd_city_weather",
    "भारत मौसम विज्ञान विभाग (IMD) का शहर-स्तरीय 7 दिन का पूर्वानुमान। केवल भारतीय शहरों के लिए।",
    "Weather", "IN", "GET", "https://city.imd.gov.in/api/cityweather_loc.php",
    req=[p("city", "string", "शहर का नाम (हिंदी या अंग्रेज़ी में)")],
    group="weather")
api("yandex_weather",
    "Прогноз погоды Яндекса для точки на территории России: фактическая погода и прогноз по дням.",
    "Weather", "RU", "GET", "https://api.weather.yandex.ru/v2/forecast",
    req=[p("lat", "number", "Широта"),
         p("lon", "number", "Долгота")],
    opt=[p("lang", "string", "Язык ответа", "ru_RU"),
         p("limit", "integer", "Количество дней прогноза (1–7)", 7)],
    group="weather")
api("ncm_uae_forecast",
    "Weather forecast from the UAE National Center of Meteorology for cities in the United Arab Emirates (Arabic or English city names).",
    "Weather", "AE", "GET", "https://api.ncm.gov.ae/weather/v1/forecast",
    req=[p("city", "string", "City name, e.g. أبوظبي / Abu Dhabi, دبي, العين")],
    opt=[p("days", "integer", "Number of days (1-5)", 3)],
    group="weather")
api("meteoam_previsioni",
    "Previsioni meteo dell'Aeronautica Militare per un comune italiano (temperature, precipitazioni e vento per i prossimi giorni).",
    "Weather", "IT", "GET", "https://api.meteoam.it/deda-meteograms/api/GetMeteogram/preset1/{localita}",
    req=[p("localita", "string", "Nome del comune italiano")],
    group="weather")

# ---------------------------------------------------------------------------
# Air quality (Health)
# ---------------------------------------------------------------------------
api("airkorea_realtime",
    "에어코리아 측정소별 실시간 대기오염 정보(PM10, PM2.5, 오존 등)를 조회합니다.",
    "Health", "KR", "GET", "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty",
    req=[p("stationName", "string", "측정소명 (예: 종로구, 강남구)")],
    opt=[p("dataTerm", "string", "조회 기간: DAY, MONTH, 3MONTH", "DAY")],
    group="air")
api("waqi_city_feed",
    "Real-time Air Quality Index for a city from the World Air Quality Index project.",
    "Health", "GLOBAL", "GET", "https://api.waqi.info/feed/{city}/",
    req=[p("city", "string", "City name as used by aqicn.org, e.g. 'beijing', 'paris'")],
    group="air")
api("open_meteo_air_quality",
    "Hourly air-quality forecast (PM10, PM2.5, ozone, pollen) for any coordinates worldwide.",
    "Health", "GLOBAL", "GET", "https://air-quality-api.open-meteo.com/v1/air-quality",
    req=[p("latitude", "number", "Latitude"), p("longitude", "number", "Longitude")],
    opt=[p("hourly", "string", "Comma-separated variables", "pm10,pm2_5")],
    group="air")

# ---------------------------------------------------------------------------
# Currency and exchange rates (Finance)
# ---------------------------------------------------------------------------
api("frankfurter_latest",
    "Latest euro foreign exchange reference rates published by the European Central Bank, optionally rebased on another currency.",
    "Finance", "GLOBAL", "GET", "https://api.frankfurter.app/latest",
    opt=[p("from", "string", "Base currency (ISO 4217)", "EUR"),
         p("to", "string", "Comma-separated target currencies, e.g. USD,JPY")],
    group="fx")
api("frankfurter_historical",
    "ECB reference exchange rates for a past working day.",
    "Finance", "GLOBAL", "GET", "https://api.frankfurter.app/{date}",
    req=[p("date", "string", "Date, YYYY-MM-DD")],
    opt=[p("from", "string", "Base currency", "EUR"),
         p("to", "string", "Comma-separated target currencies")],
    group="fx")
api("currency_convert",
    "Convert an amount of money from one currency to another at the current market rate.",
    "Finance", "GLOBAL", "GET", "https://api.exchangerate.host/convert",
    req=[p("from", "string", "Source currency code"),
         p("to", "string", "Target currency code"),
         p("amount", "number", "Amount to convert")],
    opt=[p("date", "string", "Use the rate of this date (YYYY-MM-DD)")],
    group="fx")
api("Курсы валют ЦБ РФ",
    "Официальные курсы иностранных валют к рублю, устанавливаемые Центральным банком Российской Федерации, на заданную дату.",
    "Finance", "RU", "GET", "https://www.cbr.ru/scripts/XML_daily.asp",
    opt=[p("date_req", "string", "Дата в формате ДД/ММ/ГГГГ; по умолчанию — сегодня")],
    group="fx")
api("bcb_ptax",
    "Cotação PTAX (compra e venda) do Banco Central do Brasil para uma moeda em uma data.",
    "Finance", "BR", "GET", "https://olinda.bcb.gov.br/olinda/servico/PTAX/versao/v1/odata/CotacaoMoedaDia",
    req=[p("moeda", "string", "Código ISO da moeda (USD, EUR, GBP…)"),
         p("dataCotacao", "string", "Data no formato DD/MM/AAAA")],
    group="fx")
api("koreaexim_exchange",
    "한국수출입은행 현재환율 API: 지정한 날짜의 통화별 매매기준율, 송금 받을 때/보낼 때 환율을 제공합니다.",
    "Finance", "KR", "GET", "https://www.koreaexim.go.kr/site/program/financial/exchangeJSON",
    req=[p("searchdate", "string", "검색일자 (YYYYMMDD)")],
    opt=[p("data", "string", "AP01 환율, AP02 대출금리, AP03 국제금리", "AP01")],
    group="fx")
api("汇率查询",
    "查询两种货币之间的实时汇率（支持人民币、美元、港币、日元、欧元等常用币种）。",
    "Finance", "CN", "GET", "http://op.juhe.cn/onebox/exchange/currency",
    req=[p("from", "string", "转换前的货币代码，如 USD"),
         p("to", "string", "转换后的货币代码，如 CNY")],
    group="fx")
api("banxico_tipo_cambio",
    "Serie SF43718 del Banco de México: tipo de cambio FIX peso-dólar para un rango de fechas.",
    "Finance", "MX", "GET", "https://www.banxico.org.mx/SieAPIRest/service/v1/series/SF43718/datos/{fecha_inicio}/{fecha_fin}",
    req=[p("fecha_inicio", "string", "Fecha inicial AAAA-MM-DD"),
         p("fecha_fin", "string", "Fecha final AAAA-MM-DD")],
    group="fx")
api("tcmb_doviz_kurlari",
    "Türkiye Cumhuriyet Merkez Bankası gösterge niteliğindeki döviz kurları (alış/satış) — belirli bir tarih için.",
    "Finance", "TR", "GET", "https://www.tcmb.gov.tr/kurlar/{yyyymm}/{ddmmyyyy}.xml",
    req=[p("tarih", "string", "Tarih, GG.AA.YYYY")],
    opt=[p("doviz_kodu", "string", "Döviz kodu (USD, EUR, GBP…); boşsa tüm kurlar")],
    group="fx")
api("bancaditalia_cambi",
    "Tassi di cambio di riferimento giornalieri pubblicati dalla Banca d'Italia per una valuta e una data.",
    "Finance", "IT", "GET", "https://tassidicambio.bancaditalia.it/terzevalute-wf-web/rest/v1.0/dailyRates",
    req=[p("referenceDate", "string", "Data di riferimento AAAA-MM-GG"),
         p("currencyIsoCode", "string", "Codice ISO della valuta, es. USD")],
    opt=[p("lang", "string", "Lingua della risposta", "it")],
    group="fx")
api("uae_cb_exchange_rates",
    "Official exchange rates of the UAE dirham (AED) published daily by the Central Bank of the UAE.",
    "Finance", "AE", "GET", "https://www.centralbank.ae/umbraco/Surface/Exchange/GetExchangeRateAllCurrencyDate",
    opt=[p("currency", "string", "ISO code of one foreign currency; all if omitted"),
         p("date", "string", "YYYY-MM-DD; today if omitted")],
    group="fx")
api("cbe_exchange_rates",
    "أسعار الصرف الرسمية للجنيه المصري مقابل العملات الأجنبية كما ينشرها البنك المركزي المصري.",
    "Finance", "EG", "GET", "https://www.cbe.org.eg/api/exchange-rates",
    opt=[p("currency", "string", "رمز العملة (USD, EUR, SAR…)")],
    group="fx")
api("coingecko_simple_price",
    "Current price of one or more cryptocurrencies in one or more fiat or crypto currencies.",
    "Finance", "GLOBAL", "GET", "https://api.coingecko.com/api/v3/simple/price",
    req=[p("ids", "string", "Comma-separated CoinGecko coin ids, e.g. bitcoin,ethereum"),
         p("vs_currencies", "string", "Comma-separated currency codes, e.g. usd,eur")],
    opt=[p("include_24hr_change", "boolean", "Also return the 24h change", False)],
    group="crypto")
api("coingecko_coin_history",
    "Historical snapshot (price, market cap, volume) of a coin at 00:00 UTC on a given date.",
    "Finance", "GLOBAL", "GET", "https://api.coingecko.com/api/v3/coins/{id}/history",
    req=[p("id", "string", "CoinGecko coin id, e.g. bitcoin"),
         p("date", "string", "Date, dd-mm-yyyy")],
    group="crypto")

# ---------------------------------------------------------------------------
# Stocks (Finance)
# ---------------------------------------------------------------------------
api("alphavantage.GLOBAL_QUOTE",
    "Latest price, volume and daily change for a stock symbol listed on major US exchanges.",
    "Finance", "GLOBAL", "GET", "https://www.alphavantage.co/query?function=GLOBAL_QUOTE",
    req=[p("symbol", "string", "Ticker symbol, e.g. IBM")],
    group="stock")
api("sec/company_tickers",
    "Look up a US-listed company's SEC Central Index Key (CIK) and title from its ticker symbol.",
    "Finance", "US", "GET", "https://www.sec.gov/files/company_tickers.json",
    req=[p("ticker", "string", "Ticker symbol, e.g. AAPL")],
    group="stock_lookup")
api("sec/companyfacts",
    "All XBRL financial facts (revenue, net income, assets…) a company has filed with the SEC, by CIK.",
    "Finance", "US", "GET", "https://data.sec.gov/api/xbrl/companyfacts/CIK{cik}.json",
    req=[p("cik", "string", "10-digit Central Index Key with leading zeros")],
    group="stock")
api("moex_securities",
    "Текущие котировки ценной бумаги на Московской бирже (режим торгов TQBR) по её коду.",
    "Finance", "RU", "GET", "https://iss.moex.com/iss/engines/stock/markets/shares/boards/TQBR/securities/{secid}.json",
    req=[p("secid", "string", "Код бумаги (тикер), например SBER")],
    group="stock")
api("新浪股票行情",
    "获取沪深A股的实时行情（现价、涨跌幅、成交量）。",
    "Finance", "CN", "GET", "http://hq.sinajs.cn/list={code}",
    req=[p("code", "string", "带交易所前缀的股票代码，如 sh600519、sz000001")],
    group="stock")
api("nse_quote_equity",
    "Live quote of an equity listed on the National Stock Exchange of India.",
    "Finance", "IN", "GET", "https://www.nseindia.com/api/quote-equity",
    req=[p("symbol", "string", "NSE symbol, e.g. RELIANCE, INFY")],
    group="stock")
api("jquants_daily_quotes",
    "東証上場銘柄の日次株価（始値・高値・安値・終値・出来高）を取得します。",
    "Finance", "JP", "GET", "https://api.jquants.com/v1/prices/daily_quotes",
    req=[p("code", "string", "銘柄コード（4桁）")],
    opt=[p("date", "string", "日付 YYYY-MM-DD")],
    group="stock")
api("jquants_listed_info",
    "会社名の一部から東証上場銘柄を検索し、銘柄コード（Code）と市場区分を返します。",
    "Finance", "JP", "GET", "https://api.jquants.com/v1/listed/info",
    req=[p("name", "string", "会社名（部分一致）")],
    group="stock_lookup")
api("tadawul_quote",
    "السعر الحالي لسهم مدرج في السوق المالية السعودية (تداول) مع نسبة التغير وحجم التداول.",
    "Finance", "SA", "GET", "https://www.saudiexchange.sa/api/market/quote",
    req=[p("symbol", "string", "رمز السهم، مثل 2222")],
    group="stock")

# ---------------------------------------------------------------------------
# Holidays (Government / Data)
# ---------------------------------------------------------------------------
api("nager.date/PublicHolidays",
    "Public holidays of a country for a given year (100+ countries).",
    "Government", "GLOBAL", "GET", "https://date.nager.at/api/v3/PublicHolidays/{year}/{countryCode}",
    req=[p("year", "integer", "Year, e.g. 2025"),
         p("countryCode", "string", "ISO 3166-1 alpha-2 country code")],
    group="holiday")
api("nager.date/NextPublicHolidays",
    "The public holidays of a country in the next 365 days.",
    "Government", "GLOBAL", "GET", "https://date.nager.at/api/v3/NextPublicHolidays/{countryCode}",
    req=[p("countryCode", "string", "ISO 3166-1 alpha-2 country code")],
    group="holiday")
api("calendarific_holidays",
    "National, local and religious holidays and observances of a country for a year, optionally one month.",
    "Government", "GLOBAL", "GET", "https://calendarific.com/api/v2/holidays",
    req=[p("country", "string", "ISO 3166-1 alpha-2 country code"),
         p("year", "integer", "Year")],
    opt=[p("month", "integer", "Month 1-12"),
         p("type", "string", "national, local, religious or observance")],
    group="holiday")
api("节假日查询",
    "查询中国某一年的法定节假日及调休补班安排。",
    "Government", "CN", "GET", "https://timor.tech/api/holiday/year/{year}",
    req=[p("year", "integer", "年份，如 2025")],
    group="holiday")
api("holidays_jp",
    "日本の国民の祝日・休日を年単位で返します（内閣府の公表データに基づく）。",
    "Government", "JP", "GET", "https://holidays-jp.github.io/api/v1/{year}/date.json",
    req=[p("year", "integer", "西暦年")],
    group="holiday")
api("kasi_getRestDeInfo",
    "한국천문연구원 특일 정보: 지정한 연도·월의 공휴일(국경일, 대체공휴일 포함) 목록을 조회합니다.",
    "Government", "KR", "GET", "https://apis.data.go.kr/B090041/openapi/service/SpcdeInfoService/getRestDeInfo",
    req=[p("solYear", "integer", "연도 (YYYY)"),
         p("solMonth", "string", "월 (MM, 두 자리)")],
    group="holiday")
api("brasilapi/feriados",
    "Lista os feriados nacionais do Brasil para um ano.",
    "Government", "BR", "GET", "https://brasilapi.com.br/api/feriados/v1/{ano}",
    req=[p("ano", "integer", "Ano (ex.: 2025)")],
    group="holiday")
api("uk_bank_holidays",
    "Bank holidays in England and Wales, Scotland and Northern Ireland, from GOV.UK.",
    "Government", "GB", "GET", "https://www.gov.uk/bank-holidays.json",
    opt=[p("division", "string", "england-and-wales, scotland or northern-ireland")],
    group="holiday")
api("feiertage_api",
    "Gesetzliche Feiertage in Deutschland für ein Jahr, optional nur für ein Bundesland.",
    "Government", "DE", "GET", "https://feiertage-api.de/api/",
    req=[p("jahr", "integer", "Jahr, z. B. 2025")],
    opt=[p("nur_land", "string", "Kürzel des Bundeslands, z. B. BY, NW, BE")],
    group="holiday")

# ---------------------------------------------------------------------------
# Postal codes and addresses (Maps)
# ---------------------------------------------------------------------------
api("postalpincode.in/pincode",
    "भारतीय डाक: 6 अंकों के पिन कोड से डाकघरों, ज़िले और राज्य की जानकारी।",
    "Maps", "IN", "GET", "https://api.postalpincode.in/pincode/{pincode}",
    req=[p("pincode", "string", "6 अंकों का पिन कोड")],
    group="postal")
api("postalpincode.in/postoffice",
    "भारतीय डाक: डाकघर (ब्रांच) के नाम से पिन कोड और ज़िला खोजें।",
    "Maps", "IN", "GET", "https://api.postalpincode.in/postoffice/{branch_name}",
    req=[p("branch_name", "string", "डाकघर का नाम")],
    group="postal")
api("viacep",
    "Consulta o endereço (logradouro, bairro, cidade, UF) de um CEP brasileiro.",
    "Maps", "BR", "GET", "https://viacep.com.br/ws/{cep}/json/",
    req=[p("cep", "string", "CEP com 8 dígitos, com ou sem hífen")],
    group="postal")
api("brasilapi/cep/v2",
    "Consulta um CEP brasileiro em vários provedores e devolve o endereço com coordenadas geográficas (latitude/longitude).",
    "Maps", "BR", "GET", "https://brasilapi.com.br/api/cep/v2/{cep}",
    req=[p("cep", "string", "CEP com 8 dígitos")],
    group="postal")
api("zippopotam",
    "Place names and coordinates for a postal code in one of 60 countries.",
    "Maps", "GLOBAL", "GET", "https://api.zippopotam.us/{country}/{postcode}",
    req=[p("country", "string", "ISO 3166-1 alpha-2 country code"),
         p("postcode", "string", "Postal code")],
    group="postal")
api("postcodes_io",
    "Look up a UK postcode: coordinates, local authority, ward, parliamentary constituency.",
    "Maps", "GB", "GET", "https://api.postcodes.io/postcodes/{postcode}",
    req=[p("postcode", "string", "Full UK postcode, e.g. SW1A 1AA")],
    group="postal")
api("郵便番号検索",
    "日本の7桁の郵便番号から住所（都道府県 address1・市区町村 address2・町域 address3）を検索します。",
    "Maps", "JP", "GET", "https://zipcloud.ibsnet.co.jp/api/search",
    req=[p("zipcode", "string", "郵便番号（7桁、ハイフンなし）")],
    group="postal")
api("juso_address_search",
    "행정안전부 도로명주소 검색 API: 키워드로 도로명주소, 지번주소, 우편번호를 검색합니다.",
    "Maps", "KR", "GET", "https://business.juso.go.kr/addrlink/addrLinkApi.do",
    req=[p("keyword", "string", "주소 검색어")],
    opt=[p("countPerPage", "integer", "페이지당 출력 개수", 10)],
    group="postal")
api("sepomex_codigo_postal",
    "Colonias, municipio y estado que corresponden a un código postal de México (catálogo SEPOMEX).",
    "Maps", "MX", "GET", "https://api.copomex.com/query/info_cp/{cp}",
    req=[p("cp", "string", "Código postal de 5 dígitos")],
    group="postal")
api("dadata_suggest_address",
    "Подсказки по адресам России: по части адреса возвращает полный адрес, индекс и координаты (geo_lat, geo_lon).",
    "Maps", "RU", "POST", "https://suggestions.dadata.ru/suggestions/api/4_1/rs/suggest/address",
    req=[p("query", "string", "Часть адреса в свободной форме")],
    opt=[p("count", "integer", "Количество подсказок (до 20)", 10)],
    group="geocode")
api("spl_national_address",
    "العنوان الوطني (سبل): تحويل العنوان المختصر إلى عنوان كامل يتضمن المدينة والحي والرمز البريدي والإحداثيات (latitude, longitude).",
    "Maps", "SA", "GET", "https://api.address.gov.sa/NationalAddress/v3.1/Address/address-by-short-address",
    req=[p("short_address", "string", "العنوان المختصر: 4 أحرف و4 أرقام، مثل RRRD2929")],
    group="postal")

# ---------------------------------------------------------------------------
# Geocoding and routing (Maps)
# ---------------------------------------------------------------------------
api("nominatim_search",
    "OpenStreetMap geocoder: find places worldwide by free-text query; returns lat/lon and address.",
    "Maps", "GLOBAL", "GET", "https://nominatim.openstreetmap.org/search",
    req=[p("q", "string", "Free-form query, e.g. 'Eiffel Tower, Paris'")],
    opt=[p("limit", "integer", "Maximum number of results", 10),
         p("countrycodes", "string", "Comma-separated ISO 3166-1 alpha-2 codes to restrict the search")],
    group="geocode")
api("nominatim_reverse",
    "OpenStreetMap reverse geocoder: the address of the place at given coordinates.",
    "Maps", "GLOBAL", "GET", "https://nominatim.openstreetmap.org/reverse",
    req=[p("lat", "number", "Latitude"), p("lon", "number", "Longitude")],
    opt=[p("zoom", "integer", "Level of detail 0-18", 18)],
    group="geocode")
api("amap/geocode/geo",
    "高德地理编码：将结构化地址转换为经纬度坐标，并返回所在区县的 adcode。",
    "Maps", "CN", "GET", "https://restapi.amap.com/v3/geocode/geo",
    req=[p("address", "string", "结构化地址，如 北京市朝阳区阜通东大街6号")],
    opt=[p("city", "string", "指定查询的城市，可提高准确度")],
    group="geocode")
api("kakao.local.search.address",
    "카카오 로컬 주소 검색: 주소 문자열을 좌표(x=경도, y=위도)와 도로명/지번 주소로 변환합니다.",
    "Maps", "KR", "GET", "https://dapi.kakao.com/v2/local/search/address.json",
    req=[p("query", "string", "검색할 주소")],
    opt=[p("size", "integer", "한 페이지 결과 수 (1~30)", 10)],
    group="geocode")
api("api-adresse.data.gouv.fr/search",
    "Base Adresse Nationale : géocodage d'une adresse en France (coordonnées, code postal, code INSEE).",
    "Maps", "FR", "GET", "https://api-adresse.data.gouv.fr/search/",
    req=[p("q", "string", "Adresse à rechercher")],
    opt=[p("postcode", "string", "Filtrer par code postal"),
         p("limit", "integer", "Nombre maximal de résultats", 5)],
    group="geocode")
api("geo_api_communes",
    "Découpage administratif : communes françaises correspondant à un code postal (nom, code INSEE, population).",
    "Government", "FR", "GET", "https://geo.api.gouv.fr/communes",
    req=[p("codePostal", "string", "Code postal à 5 chiffres")],
    opt=[p("fields", "string", "Champs à retourner, séparés par des virgules", "nom,code,population")],
    group="postal")
api("osrm_route",
    "Driving, cycling or walking route between coordinates with distance and duration (OSRM demo server).",
    "Maps", "GLOBAL", "GET", "https://router.project-osrm.org/route/v1/{profile}/{coordinates}",
    req=[p("coordinates", "string", "'lon,lat;lon,lat' pairs separated by semicolons")],
    opt=[p("profile", "string", "driving, cycling or foot", "driving"),
         p("overview", "string", "full, simplified or false", "simplified")],
    group="route")

# ---------------------------------------------------------------------------
# Trains and public transport (Transportation)
# ---------------------------------------------------------------------------
api("db.transport.rest/locations",
    "Sucht Bahnhöfe und Haltestellen der Deutschen Bahn per Name und liefert deren IDs (EVA-Nummern).",
    "Transportation", "DE", "GET", "https://v6.db.transport.rest/locations",
    req=[p("query", "string", "Name des Bahnhofs oder der Haltestelle")],
    opt=[p("results", "integer", "Maximale Anzahl der Treffer", 5)],
    group="station_lookup")
api("db.transport.rest/journeys",
    "Verbindungssuche der Deutschen Bahn zwischen zwei Stationen (per Stations-ID).",
    "Transportation", "DE", "GET", "https://v6.db.transport.rest/journeys",
    req=[p("from", "string", "Stations-ID des Startbahnhofs (EVA-Nummer)"),
         p("to", "string", "Stations-ID des Zielbahnhofs")],
    opt=[p("departure", "string", "Abfahrtszeit, ISO 8601"),
         p("results", "integer", "Anzahl der Verbindungen", 3)],
    group="rail")
api("sncf/places",
    "Recherche de gares et lieux sur le réseau SNCF ; renvoie l'identifiant stop_area utilisé par la recherche d'itinéraires.",
    "Transportation", "FR", "GET", "https://api.sncf.com/v1/coverage/sncf/places",
    req=[p("q", "string", "Nom de la gare ou du lieu")],
    group="station_lookup")
api("sncf/journeys",
    "Itinéraires en train entre deux stop_area SNCF à partir d'une date et heure de départ.",
    "Transportation", "FR", "GET", "https://api.sncf.com/v1/coverage/sncf/journeys",
    req=[p("from", "string", "Identifiant stop_area de départ"),
         p("to", "string", "Identifiant stop_area d'arrivée")],
    opt=[p("datetime", "string", "Date et heure de départ, AAAAMMJJTHHMMSS")],
    group="rail")
api("TfL Line Status",
    "Current service status and disruptions for London Underground, Overground, DLR and Elizabeth line lines.",
    "Transportation", "GB", "GET", "https://api.tfl.gov.uk/Line/{ids}/Status",
    req=[p("ids", "array", "Line ids, e.g. [\"victoria\", \"central\"]")],
    group="transit")
api("TfL Journey Planner",
    "Plan a journey across London public transport between two places (postcodes, stop names or coordinates).",
    "Transportation", "GB", "GET", "https://api.tfl.gov.uk/Journey/JourneyResults/{from}/to/{to}",
    req=[p("from", "string", "Origin"), p("to", "string", "Destination")],
    opt=[p("date", "string", "yyyyMMdd"), p("time", "string", "HHmm")],
    group="transit")
api("列车余票查询",
    "查询中国铁路12306指定日期、出发站到到达站的车次及各席别余票情况。",
    "Transportation", "CN", "GET", "https://kyfw.12306.cn/otn/leftTicket/query",
    req=[p("train_date", "string", "乘车日期 YYYY-MM-DD"),
         p("from_station", "string", "出发城市或车站"),
         p("to_station", "string", "到达城市或车站")],
    opt=[p("purpose_codes", "string", "ADULT 成人票，0X00 学生票", "ADULT")],
    group="rail")
api("ekispert.course.search",
    "駅すぱあと経路探索：出発駅から到着駅までの乗換経路、所要時間、運賃を検索します（日本国内）。",
    "Transportation", "JP", "GET", "https://api.ekispert.jp/v1/json/search/course/extreme",
    req=[p("from", "string", "出発駅名"), p("to", "string", "到着駅名")],
    opt=[p("date", "string", "出発日 YYYYMMDD"), p("time", "string", "出発時刻 HHMM")],
    group="rail")
api("korail_train_info",
    "국토교통부 열차정보: 출발역·도착역·출발일로 KTX/일반열차 운행 시간표를 조회합니다.",
    "Transportation", "KR", "GET", "https://apis.data.go.kr/1613000/TrainInfoService/getStrtpntAlocFndTrainInfo",
    req=[p("dep_station", "string", "출발역 이름"),
         p("arr_station", "string", "도착역 이름"),
         p("dep_date", "string", "출발일 (YYYYMMDD)")],
    group="rail")
api("Яндекс.Расписания",
    "Расписание поездов, электричек, самолётов и автобусов между двумя городами России на дату.",
    "Transportation", "RU", "GET", "https://api.rasp.yandex.net/v3.0/search/",
    req=[p("from", "string", "Город отправления"),
         p("to", "string", "Город прибытия"),
         p("date", "string", "Дата, ГГГГ-ММ-ДД")],
    opt=[p("transport_types", "string", "train, suburban, plane, bus")],
    group="rail")
api("indian_rail_pnr_status",
    "भारतीय रेल PNR स्थिति: टिकट कन्फर्म, RAC या वेटिंग है, और कोच/बर्थ संख्या।",
    "Transportation", "IN", "GET", "https://indianrailapi.com/api/v2/PNRCheck/apikey/{key}/PNRNumber/{pnr}",
    req=[p("pnr", "string", "10 अंकों का PNR नंबर")],
    group="rail")
api("indian_rail_live_status",
    "भारतीय रेल की ट्रेन की लाइव रनिंग स्थिति (अंतिम स्टेशन, देरी)।",
    "Transportation", "IN", "GET", "https://indianrailapi.com/api/v2/livetrainstatus/apikey/{key}/trainnumber/{train_number}/date/{date}",
    req=[p("train_number", "string", "5 अंकों का ट्रेन नंबर"),
         p("date", "string", "यात्रा की तारीख DD-MM-YYYY")],
    group="rail")
api("emt_madrid_arrivals",
    "Tiempos de llegada en tiempo real de los autobuses de la EMT de Madrid a una parada.",
    "Transportation", "ES", "GET", "https://openapi.emtmadrid.es/v2/transport/busemtmad/stops/{stopId}/arrives/",
    req=[p("stop_id", "integer", "Número de la parada")],
    opt=[p("line", "string", "Filtrar por línea")],
    group="transit")
api("viaggiatreno_cerca_stazione",
    "Cerca una stazione ferroviaria italiana per nome e restituisce il suo codice (es. S01700).",
    "Transportation", "IT", "GET", "http://www.viaggiatreno.it/infomobilita/resteasy/viaggiatreno/autocompletaStazione/{testo}",
    req=[p("testo", "string", "Nome o inizio del nome della stazione")],
    group="station_lookup")
api("viaggiatreno_partenze",
    "Tabellone delle partenze di una stazione italiana a partire da un orario.",
    "Transportation", "IT", "GET", "http://www.viaggiatreno.it/infomobilita/resteasy/viaggiatreno/partenze/{codiceStazione}/{orario}",
    req=[p("codice_stazione", "string", "Codice della stazione, es. S01700")],
    opt=[p("orario", "string", "Data e ora, AAAA-MM-GGTHH:MM; adesso se omesso")],
    group="rail")
api("viaggiatreno_andamento_treno",
    "Andamento in tempo reale di un treno italiano: ritardo, ultima stazione rilevata, binario.",
    "Transportation", "IT", "GET", "http://www.viaggiatreno.it/infomobilita/resteasy/viaggiatreno/andamentoTreno/{numeroTreno}",
    req=[p("numero_treno", "string", "Numero del treno")],
    group="rail")
api("sptrans/Previsao/Parada",
    "Previsão de chegada dos ônibus da SPTrans (São Paulo) em um ponto de parada.",
    "Transportation", "BR", "GET", "http://api.olhovivo.sptrans.com.br/v2.1/Previsao/Parada",
    req=[p("codigoParada", "integer", "Código do ponto de parada")],
    group="transit")
api("mbta_predictions",
    "Real-time arrival predictions for MBTA subway, bus and commuter rail stops in the Boston area.",
    "Transportation", "US", "GET", "https://api-v3.mbta.com/predictions",
    req=[p("stop", "string", "Stop id, e.g. place-pktrm")],
    opt=[p("route", "string", "Filter by route id, e.g. Red")],
    group="transit")
api("enr_train_search",
    "مواعيد قطارات الهيئة القومية لسكك حديد مصر بين محطتين في تاريخ معين.",
    "Transportation", "EG", "GET", "https://enr.gov.eg/api/trains/search",
    req=[p("from_station", "string", "محطة القيام"),
         p("to_station", "string", "محطة الوصول")],
    opt=[p("date", "string", "التاريخ YYYY-MM-DD")],
    group="rail")
api("rta_journey_planner",
    "Dubai RTA journey planner for metro, tram, bus and water transport between two places in Dubai.",
    "Transportation", "AE", "GET", "https://api.rta.ae/journeyplanner/v1/trip",
    req=[p("from", "string", "Origin (station or landmark)"),
         p("to", "string", "Destination")],
    opt=[p("departure_time", "string", "HH:MM, now if omitted")],
    group="transit")

# ---------------------------------------------------------------------------
# Fuel prices (Transportation)
# ---------------------------------------------------------------------------
api("tankerkoenig_list",
    "Aktuelle Spritpreise der Tankstellen im Umkreis einer Koordinate in Deutschland (Markttransparenzstelle).",
    "Transportation", "DE", "GET", "https://creativecommons.tankerkoenig.de/json/list.php",
    req=[p("lat", "number", "Breitengrad"), p("lng", "number", "Längengrad"),
         p("rad", "number", "Suchradius in km (max. 25)")],
    opt=[p("type", "string", "e5, e10, diesel oder all", "all"),
         p("sort", "string", "price oder dist", "dist")],
    group="fuel")
api("prix_carburants",
    "Prix des carburants en temps réel dans les stations-service françaises d'un code postal.",
    "Transportation", "FR", "GET", "https://data.economie.gouv.fr/api/explore/v2.1/catalog/datasets/prix-des-carburants-en-france-flux-instantane-v2/records",
    req=[p("code_postal", "string", "Code postal")],
    opt=[p("carburant", "string", "Gazole, SP95, SP98, E10, E85, GPLc")],
    group="fuel")
api("gasolineras_municipio",
    "Precios de carburantes en las estaciones de servicio de un municipio español (Ministerio para la Transición Ecológica).",
    "Transportation", "ES", "GET", "https://sedeaplicaciones.minetur.gob.es/ServiciosRESTCarburantes/PreciosCarburantes/EstacionesTerrestres/FiltroMunicipio/{IDMunicipio}",
    req=[p("municipio", "string", "Nombre del municipio")],
    opt=[p("producto", "string", "Gasóleo A, Gasolina 95 E5, Gasolina 98 E5…")],
    group="fuel")

# ---------------------------------------------------------------------------
# Travel
# ---------------------------------------------------------------------------
api("amadeus_flight_offers",
    "Search flight offers between two airports on a date (Amadeus Self-Service).",
    "Travel", "GLOBAL", "GET", "https://test.api.amadeus.com/v2/shopping/flight-offers",
    req=[p("originLocationCode", "string", "IATA code of the origin airport or city"),
         p("destinationLocationCode", "string", "IATA code of the destination"),
         p("departureDate", "string", "YYYY-MM-DD"),
         p("adults", "integer", "Number of adult travellers")],
    opt=[p("returnDate", "string", "YYYY-MM-DD for a round trip"),
         p("max", "integer", "Maximum number of offers", 250)],
    group="flight")
api("amadeus_hotels_by_city",
    "List hotels in a city identified by its IATA city code.",
    "Travel", "GLOBAL", "GET", "https://test.api.amadeus.com/v1/reference-data/locations/hotels/by-city",
    req=[p("cityCode", "string", "IATA city code, e.g. PAR")],
    opt=[p("radius", "integer", "Radius around the city centre in km", 5),
         p("ratings", "string", "Comma-separated star ratings, e.g. 4,5")],
    group="hotel")
api("楽天トラベル施設検索",
    "キーワードで国内の宿泊施設（ホテル・旅館）を検索します。",
    "Travel", "JP", "GET", "https://app.rakuten.co.jp/services/api/Travel/KeywordHotelSearch/20170426",
    req=[p("keyword", "string", "検索キーワード（地名・施設名など）")],
    opt=[p("hits", "integer", "取得件数（1〜30）", 30)],
    group="hotel")
api("kto_tour_search",
    "한국관광공사 TourAPI 키워드 검색: 관광지, 문화시설, 축제, 음식점 등의 관광정보를 검색합니다.",
    "Travel", "KR", "GET", "https://apis.data.go.kr/B551011/KorService1/searchKeyword1",
    req=[p("keyword", "string", "검색 키워드")],
    opt=[p("contentTypeId", "integer", "관광타입 (12 관광지, 14 문화시설, 15 축제, 39 음식점)"),
         p("areaCode", "integer", "지역코드")],
    group="tour")
api("kto_detail_common",
    "한국관광공사 TourAPI 공통정보 조회: 콘텐츠 ID로 개요, 주소, 홈페이지, 대표 이미지를 가져옵니다.",
    "Travel", "KR", "GET", "https://apis.data.go.kr/B551011/KorService1/detailCommon1",
    req=[p("contentId", "string", "콘텐츠 ID")],
    group="tour_detail")
api("aladhan_timings_by_city",
    "Islamic prayer times for a city and country on a date, with a choice of calculation method.",
    "Data", "GLOBAL", "GET", "https://api.aladhan.com/v1/timingsByCity",
    req=[p("city", "string", "City name"), p("country", "string", "Country name or ISO code")],
    opt=[p("method", "integer", "Calculation method id (e.g. 3 MWL, 4 Umm al-Qura)", 3),
         p("date", "string", "DD-MM-YYYY; today if omitted")],
    group="prayer")
api("مواقيت الصلاة",
    "مواقيت الصلاة اليومية لمدن المملكة العربية السعودية وفق تقويم أم القرى.",
    "Data", "SA", "GET", "https://api.ummalqura.org.sa/v1/prayer-times",
    req=[p("city", "string", "اسم المدينة السعودية بالعربية")],
    opt=[p("date", "string", "التاريخ YYYY-MM-DD")],
    group="prayer")
api("ummalqura_hijri_convert",
    "تحويل تاريخ ميلادي إلى التاريخ الهجري وفق تقويم أم القرى.",
    "Government", "SA", "GET", "https://api.ummalqura.org.sa/v1/convert/gregorian-to-hijri",
    req=[p("gregorian_date", "string", "التاريخ الميلادي YYYY-MM-DD")],
    group="calendar")

# ---------------------------------------------------------------------------
# News
# ---------------------------------------------------------------------------
api("newsapi_top_headlines",
    "Breaking news headlines for a country or category from 80,000 sources.",
    "News", "GLOBAL", "GET", "https://newsapi.org/v2/top-headlines",
    opt=[p("country", "string", "2-letter country code"),
         p("category", "string", "business, entertainment, general, health, science, sports, technology"),
         p("q", "string", "Keywords"),
         p("pageSize", "integer", "Results per page", 20)],
    group="news")
api("guardian_search",
    "Search articles of a British national daily newspaper's content archive.",
    "News", "GB", "GET", "https://content.guardianapis.com/search",
    req=[p("q", "string", "Search terms")],
    opt=[p("section", "string", "Section id, e.g. politics, football"),
         p("from-date", "string", "Only content published on or after this date, YYYY-MM-DD")],
    group="news")
api("nyt_top_stories",
    "The articles currently on a US newspaper's section front (home, world, science, arts…).",
    "News", "US", "GET", "https://api.nytimes.com/svc/topstories/v2/{section}.json",
    req=[p("section", "string", "Section name: home, world, us, science, arts, business…")],
    group="news")
api("tagesschau_news",
    "Aktuelle Nachrichten der ARD-Tagesschau, filterbar nach Bundesland und Ressort.",
    "News", "DE", "GET", "https://www.tagesschau.de/api2u/news/",
    opt=[p("regions", "integer", "Bundesland-ID (1–16)"),
         p("ressort", "string", "inland, ausland, wirtschaft, sport, wissen, investigativ")],
    group="news")
api("新闻头条",
    "获取国内新闻头条，可按类型筛选。",
    "News", "CN", "GET", "http://v.juhe.cn/toutiao/index",
    opt=[p("type", "string", "类型：头条、社会、国内、国际、娱乐、体育、军事、科技、财经", "头条"),
         p("page", "integer", "页码", 1)],
    group="news")

# ---------------------------------------------------------------------------
# Entertainment
# ---------------------------------------------------------------------------
api("tmdb_search_movie",
    "Search movies by title in The Movie Database.",
    "Entertainment", "GLOBAL", "GET", "https://api.themoviedb.org/3/search/movie",
    req=[p("query", "string", "Movie title")],
    opt=[p("year", "integer", "Release year"), p("language", "string", "Response language", "en-US")],
    group="movie")
api("kinopoisk_films_search",
    "Поиск фильмов и сериалов на Кинопоиске по ключевому слову; возвращает filmId, рейтинг, год.",
    "Entertainment", "RU", "GET", "https://kinopoiskapiunofficial.tech/api/v2.1/films/search-by-keyword",
    req=[p("keyword", "string", "Название или ключевое слово")],
    opt=[p("page", "integer", "Страница", 1)],
    group="movie")
api("kinopoisk_film",
    "Полные данные о фильме по его filmId: описание, жанры, страны, рейтинги.",
    "Entertainment", "RU", "GET", "https://kinopoiskapiunofficial.tech/api/v2.2/films/{id}",
    req=[p("id", "integer", "Идентификатор фильма (filmId)")],
    group="movie_detail")
api("박스오피스 조회",
    "영화진흥위원회 KOBIS 일별 박스오피스: 조회일 기준 관객 수 순위를 제공합니다.",
    "Entertainment", "KR", "GET", "https://www.kobis.or.kr/kobisopenapi/webservice/rest/boxoffice/searchDailyBoxOfficeList.json",
    req=[p("targetDt", "string", "조회일자 (YYYYMMDD)")],
    opt=[p("itemPerPage", "integer", "결과 행 수 (최대 10)", 10),
         p("repNationCd", "string", "K 한국영화, F 외국영화")],
    group="movie")
api("NHK番組表",
    "NHKの番組表を地域・サービス・日付で取得します。",
    "Entertainment", "JP", "GET", "https://api.nhk.or.jp/v2/pg/list/{area}/{service}/{date}.json",
    req=[p("area", "string", "地域ID（例: 130 東京, 270 大阪）"),
         p("service", "string", "サービスID（g1 総合, e1 Eテレ, s1 BS）"),
         p("date", "string", "日付 YYYY-MM-DD")],
    group="tv")
api("jikan_anime_search",
    "Search anime on MyAnimeList (unofficial Jikan API).",
    "Entertainment", "GLOBAL", "GET", "https://api.jikan.moe/v4/anime",
    req=[p("q", "string", "Search query")],
    opt=[p("limit", "integer", "Results per page", 25), p("type", "string", "tv, movie, ova…")],
    group="movie")
api("itunes_search",
    "Search the iTunes Store for songs, albums, podcasts, apps and films.",
    "Entertainment", "GLOBAL", "GET", "https://itunes.apple.com/search",
    req=[p("term", "string", "Search term")],
    opt=[p("country", "string", "Two-letter store country", "US"),
         p("media", "string", "music, podcast, movie, software…", "all"),
         p("limit", "integer", "1-200", 50)],
    group="music")

# ---------------------------------------------------------------------------
# Sports
# ---------------------------------------------------------------------------
api("football_data_matches",
    "Fixtures and results of a football competition (PL, BL1, SA, PD, FL1, CL…), optionally one matchday.",
    "Sports", "GLOBAL", "GET", "https://api.football-data.org/v4/competitions/{competition}/matches",
    req=[p("competition", "string", "Competition code, e.g. PL")],
    opt=[p("matchday", "integer", "Matchday number"), p("season", "integer", "Starting year of the season")],
    group="football")
api("football_data_standings",
    "League table of a football competition.",
    "Sports", "GLOBAL", "GET", "https://api.football-data.org/v4/competitions/{competition}/standings",
    req=[p("competition", "string", "Competition code, e.g. PL, BL1")],
    opt=[p("season", "integer", "Starting year of the season")],
    group="football")
api("thesportsdb_search_team",
    "Find a sports team by name: stadium, founding year, league, badge.",
    "Sports", "GLOBAL", "GET", "https://www.thesportsdb.com/api/v1/json/3/searchteams.php",
    req=[p("t", "string", "Team name")],
    group="football")
api("cricapi_current_matches",
    "चल रहे और हाल के अंतरराष्ट्रीय व घरेलू क्रिकेट मैचों की सूची (स्कोर सहित)।",
    "Sports", "IN", "GET", "https://api.cricapi.com/v1/currentMatches",
    opt=[p("offset", "integer", "पेजिनेशन ऑफ़सेट", 0)],
    group="cricket")
api("cricapi_match_info",
    "मैच ID से किसी क्रिकेट मैच का पूरा विवरण और स्कोरकार्ड।",
    "Sports", "IN", "GET", "https://api.cricapi.com/v1/match_info",
    req=[p("id", "string", "मैच ID (UUID)")],
    group="cricket")
api("balldontlie_games",
    "NBA games on given dates with scores.",
    "Sports", "US", "GET", "https://api.balldontlie.io/v1/games",
    req=[p("dates", "array", "List of dates, YYYY-MM-DD")],
    opt=[p("per_page", "integer", "Results per page", 25)],
    group="basketball")
api("ergast_f1_results",
    "Formula 1 race results for a season and round.",
    "Sports", "GLOBAL", "GET", "https://api.jolpi.ca/ergast/f1/{season}/{round}/results.json",
    req=[p("season", "integer", "Season year"), p("round", "integer", "Round number")],
    group="motorsport")

# ---------------------------------------------------------------------------
# Health
# ---------------------------------------------------------------------------
api("openfda_drug_label",
    "Search US drug product labels (indications, warnings, dosage) from the FDA.",
    "Health", "US", "GET", "https://api.fda.gov/drug/label.json",
    req=[p("search", "string", "Search expression, e.g. a generic drug name")],
    opt=[p("limit", "integer", "Number of records", 1)],
    group="drug")
api("disease_sh_country",
    "COVID-19 totals (cases, deaths, tests) for a country.",
    "Health", "GLOBAL", "GET", "https://disease.sh/v3/covid-19/countries/{country}",
    req=[p("country", "string", "Country name or ISO code")],
    group="epidemic")
api("nobetci_eczane",
    "Bir il ve ilçedeki nöbetçi eczanelerin adı, adresi ve telefonu.",
    "Health", "TR", "GET", "https://api.collectapi.com/health/dutyPharmacy",
    req=[p("il", "string", "İl adı"), p("ilce", "string", "İlçe adı")],
    group="pharmacy")

# ---------------------------------------------------------------------------
# Food
# ---------------------------------------------------------------------------
api("open_food_facts_product",
    "Ingredients, allergens and nutrition facts of a packaged food product by barcode.",
    "Food", "GLOBAL", "GET", "https://world.openfoodfacts.org/api/v2/product/{barcode}.json",
    req=[p("barcode", "string", "EAN/UPC barcode")],
    group="food_product")
api("themealdb_search",
    "Search meal recipes by name (ingredients, instructions, cuisine).",
    "Food", "GLOBAL", "GET", "https://www.themealdb.com/api/json/v1/1/search.php",
    req=[p("s", "string", "Meal name")],
    group="recipe")
api("菜谱大全",
    "按菜名搜索中式菜谱，返回食材、步骤和图片。",
    "Food", "CN", "GET", "http://apis.juhe.cn/cook/query",
    req=[p("menu", "string", "菜名，如 红烧肉")],
    opt=[p("rn", "integer", "返回条数，最大30", 10)],
    group="recipe")
api("ホットペッパーグルメサーチ",
    "キーワードで日本国内の飲食店を検索します（店名・ジャンル・住所・予算）。",
    "Food", "JP", "GET", "http://webservice.recruit.co.jp/hotpepper/gourmet/v1/",
    req=[p("keyword", "string", "フリーワード（店名・料理名・地名）")],
    opt=[p("count", "integer", "取得件数（最大100）", 10),
         p("budget", "string", "予算コード（B001〜B014）")],
    group="restaurant")
api("rakuten_recipe_ranking",
    "楽天レシピのカテゴリ別人気レシピランキング（上位4件）を取得します。",
    "Food", "JP", "GET", "https://app.rakuten.co.jp/services/api/Recipe/CategoryRanking/20170426",
    opt=[p("categoryId", "string", "カテゴリID（例: 30 人気メニュー）")],
    group="recipe")
api("mandi_commodity_prices",
    "data.gov.in: राज्य की मंडियों में किसी जिंस (सब्ज़ी, अनाज) के आज के न्यूनतम/अधिकतम/मॉडल भाव।",
    "Food", "IN", "GET", "https://api.data.gov.in/resource/9ef84268-d588-465a-a308-a864a43d0070",
    req=[p("state", "string", "राज्य"), p("commodity", "string", "जिंस का नाम")],
    opt=[p("district", "string", "ज़िला")],
    group="food_price")

# ---------------------------------------------------------------------------
# Shopping
# ---------------------------------------------------------------------------
api("rakuten.ichiba.item.search",
    "楽天市場の商品をキーワードで検索します。価格の上限や並び順を指定できます。",
    "Shopping", "JP", "GET", "https://app.rakuten.co.jp/services/api/IchibaItem/Search/20220601",
    req=[p("keyword", "string", "検索キーワード")],
    opt=[p("maxPrice", "integer", "最大価格（円）"), p("sort", "string", "並び順（+itemPrice 安い順 など）")],
    group="shop")
api("naver_shopping_search",
    "네이버 쇼핑 검색 결과(상품명, 최저가, 판매처)를 반환합니다.",
    "Shopping", "KR", "GET", "https://openapi.naver.com/v1/search/shop.json",
    req=[p("query", "string", "검색어")],
    opt=[p("display", "integer", "결과 개수 (최대 100)", 10),
         p("sort", "string", "sim 정확도, date 날짜, asc 가격 오름차순, dsc 가격 내림차순", "sim")],
    group="shop")
api("mercadolibre_search",
    "Busca publicaciones en Mercado Libre Argentina por palabra clave (precio, vendedor, envío).",
    "Shopping", "AR", "GET", "https://api.mercadolibre.com/sites/MLA/search",
    req=[p("q", "string", "Texto de búsqueda")],
    opt=[p("limit", "integer", "Cantidad de resultados (máx. 50)", 50)],
    group="shop")
api("mercadolibre_item",
    "Detalle de una publicación de Mercado Libre por su id (título, precio, stock, garantía).",
    "Shopping", "AR", "GET", "https://api.mercadolibre.com/items/{item_id}",
    req=[p("item_id", "string", "Id de la publicación, p. ej. MLA1234567890")],
    group="shop_detail")
api("bestbuy_products",
    "Search products sold by a US electronics retailer (price, availability, ratings).",
    "Shopping", "US", "GET", "https://api.bestbuy.com/v1/products",
    req=[p("search", "string", "Keywords")],
    opt=[p("pageSize", "integer", "Results per page", 10)],
    group="shop")
api("laposte_suivi",
    "Suivi d'un envoi Colissimo / Lettre suivie / Chronopost à partir de son numéro.",
    "Shopping", "FR", "GET", "https://api.laposte.fr/suivi/v2/idships/{id_ship}",
    req=[p("id_ship", "string", "Numéro de suivi (11 à 15 caractères)")],
    group="parcel")

# ---------------------------------------------------------------------------
# Translation
# ---------------------------------------------------------------------------
api("Google Translate",
    "Translate text between any two of 100+ languages; the source language is detected if omitted.",
    "Translation", "GLOBAL", "GET", "https://google-translate.p.rapidapi.com/language/translate/v2",
    req=[p("text", "string", "Text to translate"),
         p("target_lang", "string", "Target language code, e.g. en, fr, zh")],
    opt=[p("source_lang", "string", "Source language code")],
    group="translate")
api("DeepL",
    "Übersetzt Texte zwischen europäischen Sprachen (Zielsprachen: DE, EN-GB, EN-US, FR, ES, IT, NL, PL, PT-BR).",
    "Translation", "DE", "POST", "https://api-free.deepl.com/v2/translate",
    req=[p("text", "string", "Zu übersetzender Text"),
         p("target_lang", "string", "Zielsprache, z. B. EN-GB")],
    opt=[p("formality", "string", "more oder less", "default")],
    group="translate")
api("Papago 번역",
    "네이버 Papago 기계번역: 한국어가 포함된 언어쌍(ko↔en, ko↔ja, ko↔zh-CN 등)만 지원합니다.",
    "Translation", "KR", "POST", "https://openapi.naver.com/v1/papago/n2mt",
    req=[p("source", "string", "원문 언어 코드"), p("target", "string", "번역 언어 코드"),
         p("text", "string", "번역할 문장")],
    group="translate")
api("百度翻译",
    "百度通用翻译：支持中文与英、日、韩、法等语言互译（一方须为中文）。",
    "Translation", "CN", "GET", "https://fanyi-api.baidu.com/api/trans/vip/translate",
    req=[p("q", "string", "待翻译文本"), p("from", "string", "源语言，如 zh"), p("to", "string", "目标语言，如 en")],
    group="translate")
api("yandex_translate",
    "Перевод текстов с русского и на русский язык (Yandex Cloud Translate).",
    "Translation", "RU", "POST", "https://translate.api.cloud.yandex.net/translate/v2/translate",
    req=[p("texts", "array", "Массив строк для перевода"),
         p("targetLanguageCode", "string", "Код языка перевода, например en")],
    group="translate")
api("dictionaryapi",
    "English dictionary: definitions, phonetics and examples of a word.",
    "Education", "GLOBAL", "GET", "https://api.dictionaryapi.dev/api/v2/entries/en/{word}",
    req=[p("word", "string", "English word")],
    group="dictionary")

# ---------------------------------------------------------------------------
# Education
# ---------------------------------------------------------------------------
api("neis_school_info",
    "나이스 교육정보 개방 포털: 학교명으로 시도교육청코드(ATPT_OFCDC_SC_CODE)와 행정표준코드(SD_SCHUL_CODE)를 조회합니다.",
    "Education", "KR", "GET", "https://open.neis.go.kr/hub/schoolInfo",
    req=[p("SCHUL_NM", "string", "학교명")],
    group="school_lookup")
api("neis_meal_service",
    "나이스 급식식단정보: 학교와 날짜로 급식 메뉴와 칼로리를 조회합니다.",
    "Education", "KR", "GET", "https://open.neis.go.kr/hub/mealServiceDietInfo",
    req=[p("ATPT_OFCDC_SC_CODE", "string", "시도교육청코드"),
         p("SD_SCHUL_CODE", "string", "행정표준코드"),
         p("MLSV_YMD", "string", "급식일자 (YYYYMMDD)")],
    group="school")
api("college_scorecard",
    "US Department of Education data on a college: cost, admission rate, graduation rate, earnings.",
    "Education", "US", "GET", "https://api.data.gov/ed/collegescorecard/v1/schools",
    req=[p("school.name", "string", "Name of the institution")],
    opt=[p("fields", "string", "Comma-separated fields to return")],
    group="university")
api("hipolabs_universities",
    "List universities of a country or by name, with web domains.",
    "Education", "GLOBAL", "GET", "http://universities.hipolabs.com/search",
    opt=[p("name", "string", "Part of the university name"), p("country", "string", "Country name in English")],
    group="university")
api("open_library_search",
    "Search books by title, author or subject in Open Library.",
    "Education", "GLOBAL", "GET", "https://openlibrary.org/search.json",
    req=[p("q", "string", "Search query")],
    opt=[p("author", "string", "Author name"), p("limit", "integer", "Number of results", 10)],
    group="books")

# ---------------------------------------------------------------------------
# Government and public data
# ---------------------------------------------------------------------------
api("uk_police_street_crime",
    "Street-level crimes reported within a one-mile radius of a point in England, Wales or Northern Ireland, for a month.",
    "Government", "GB", "GET", "https://data.police.uk/api/crimes-street/all-crime",
    req=[p("lat", "number", "Latitude"), p("lng", "number", "Longitude")],
    opt=[p("date", "string", "Month, YYYY-MM; latest month if omitted")],
    group="crime")
api("companies_house_search",
    "Search the UK register of companies by name.",
    "Government", "GB", "GET", "https://api.company-information.service.gov.uk/search/companies",
    req=[p("q", "string", "Company name")],
    opt=[p("items_per_page", "integer", "Results per page", 20)],
    group="company")
api("insee_sirene_siret",
    "Répertoire Sirene : informations d'un établissement (raison sociale, adresse, activité APE) à partir de son numéro SIRET.",
    "Government", "FR", "GET", "https://api.insee.fr/entreprises/sirene/V3.11/siret/{siret}",
    req=[p("siret", "string", "Numéro SIRET (14 chiffres)")],
    group="company")
api("dip_bundestag_drucksache",
    "Dokumentations- und Informationssystem für Parlamentsmaterialien: Drucksachen nach Titelstichwort suchen.",
    "Government", "DE", "GET", "https://search.dip.bundestag.de/api/v1/drucksache",
    req=[p("titel", "string", "Stichwort im Titel")],
    opt=[p("wahlperiode", "integer", "Wahlperiode, z. B. 20")],
    group="parliament")
api("e_stat_stats_list",
    "政府統計の総合窓口（e-Stat）の統計表をキーワードで検索します。",
    "Data", "JP", "GET", "https://api.e-stat.go.jp/rest/3.0/app/json/getStatsList",
    req=[p("searchWord", "string", "検索キーワード")],
    opt=[p("surveyYears", "string", "調査年 YYYY")],
    group="statistics")
api("rest_countries_name",
    "Country facts by name: capital, population, currencies, languages, ISO codes (cca2, cca3).",
    "Data", "GLOBAL", "GET", "https://restcountries.com/v3.1/name/{name}",
    req=[p("name", "string", "Country name in English")],
    group="country")
api("world_bank_indicator",
    "Time series of a World Bank development indicator for a country.",
    "Data", "GLOBAL", "GET", "https://api.worldbank.org/v2/country/{country}/indicator/{indicator}",
    req=[p("country", "string", "ISO alpha-2 or alpha-3 country code"),
         p("indicator", "string", "Indicator code, e.g. NY.GDP.MKTP.CD")],
    opt=[p("date", "string", "Year or range, e.g. 2015:2022")],
    group="statistics")
api("ibge/municipios",
    "IBGE: lista os municípios de uma unidade da federação.",
    "Data", "BR", "GET", "https://servicodados.ibge.gov.br/api/v1/localidades/estados/{UF}/municipios",
    req=[p("uf", "string", "Sigla da UF, ex.: SP")],
    group="statistics")
api("brasilapi/cnpj",
    "Dados cadastrais de uma empresa brasileira (razão social, endereço, CEP, CNAE) pelo CNPJ.",
    "Data", "BR", "GET", "https://brasilapi.com.br/api/cnpj/v1/{cnpj}",
    req=[p("cnpj", "string", "CNPJ com 14 dígitos")],
    group="company")
api("brasilapi/ddd",
    "Estado e cidades atendidos por um código DDD de telefonia.",
    "Data", "BR", "GET", "https://brasilapi.com.br/api/ddd/v1/{ddd}",
    req=[p("ddd", "string", "DDD com 2 dígitos")],
    group="phone")
api("ine_tempus_serie",
    "Datos de una serie estadística del Instituto Nacional de Estadística (INE) de España.",
    "Data", "ES", "GET", "https://servicios.ine.es/wstempus/js/ES/DATOS_SERIE/{cod_serie}",
    req=[p("cod_serie", "string", "Código de la serie, p. ej. IPC251856")],
    opt=[p("nult", "integer", "Número de últimos datos a devolver")],
    group="statistics")
api("ine_codigo_municipio",
    "Busca un municipio español por nombre y devuelve su código INE (codigo_ine) y provincia.",
    "Government", "ES", "GET", "https://servicios.ine.es/wstempus/js/ES/VALORES_VARIABLE/19",
    req=[p("nombre", "string", "Nombre del municipio")],
    group="municipality")
api("ree_precio_luz",
    "Precio horario de la electricidad (PVPC) en España entre dos fechas, de Red Eléctrica.",
    "Data", "ES", "GET", "https://apidatos.ree.es/es/datos/mercados/precios-mercados-tiempo-real",
    req=[p("start_date", "string", "Inicio AAAA-MM-DDTHH:MM"), p("end_date", "string", "Fin AAAA-MM-DDTHH:MM")],
    opt=[p("time_trunc", "string", "hour o day", "hour")],
    group="energy")
api("hh_vacancies",
    "Поиск вакансий на hh.ru по ключевым словам и региону.",
    "Data", "RU", "GET", "https://api.hh.ru/vacancies",
    req=[p("text", "string", "Ключевые слова")],
    opt=[p("area", "integer", "ID региона (1 — Москва, 2 — Санкт-Петербург)"),
         p("per_page", "integer", "Результатов на странице", 20)],
    group="jobs")
api("kandilli_son_depremler",
    "Kandilli Rasathanesi'nin kaydettiği son depremler (büyüklük, derinlik, konum, koordinat).",
    "Data", "TR", "GET", "https://api.orhanaydogdu.com.tr/deprem/kandilli/live",
    opt=[p("limit", "integer", "Döndürülecek deprem sayısı", 100),
         p("min_buyukluk", "number", "En küçük büyüklük")],
    group="earthquake")
api("comuni_ita_provincia",
    "Elenco dei comuni italiani di una provincia, con codice ISTAT e CAP.",
    "Government", "IT", "GET", "https://comuni-ita.herokuapp.com/api/comuni/provincia/{provincia}",
    req=[p("provincia", "string", "Nome della provincia")],
    group="municipality")
api("federal_register_documents",
    "Search rules, proposed rules and notices published in the US Federal Register.",
    "Government", "US", "GET", "https://www.federalregister.gov/api/v1/documents.json",
    req=[p("term", "string", "Full-text search term")],
    opt=[p("per_page", "integer", "Results per page", 20)],
    group="parliament")


# ===========================================================================
# Tasks
# ===========================================================================
LANG_OF_COUNTRY = {
    "GLOBAL": "en", "US": "en", "GB": "en", "CN": "zh", "JP": "ja", "KR": "ko",
    "AE": "ar", "SA": "ar", "EG": "ar", "RU": "ru", "IN": "hi", "DE": "de",
    "FR": "fr", "ES": "es", "MX": "es", "AR": "es", "IT": "it", "BR": "pt", "TR": "tr",
}
KIND = {"S": "single", "R": "repeated", "P": "parallel", "N": "nested", "X": "no_tool"}
TASKS = []


def ref(i, field):
    """Gold marker: the value comes from field `field` of the output of call i."""
    return {"$ref": "%d.%s" % (i, field)}


def T(kind, query, thought, calls, conf, out=None, about=None, near=None, literal_exempt=()):
    """One task.

    kind   S single, R repeated, P parallel, N nested, X no_tool
    calls  [(tool name, {arguments})]
    conf   confuser tool names (for X without a usable tool: all candidates)
    out    nested only: {call index: recorded tool output}
    about  no_tool with a missing required parameter: the tool that would
           answer once the parameter is known (sets country/category)
    near   no_tool with no suitable tool: the nearest candidate (sets
           country/category)
    """
    assert kind != "X" or bool(about) != bool(near), query
    TASKS.append(dict(kind=KIND[kind], query=query, thought=thought,
                      calls=[{"name": n, "arguments": a} for n, a in calls],
                      conf=list(conf), out=out or {}, about=about or near,
                      no_tool_reason=("missing_parameter" if about else "no_suitable_tool") if kind == "X" else None,
                      literal_exempt=set(literal_exempt)))


# ---------------------------------------------------------------------------
# English: GLOBAL, US, GB
# ---------------------------------------------------------------------------
T("S", "I'm hiking near Zermatt next week. Can you get me a 5-day forecast for latitude 46.02, longitude 7.75?",
  "The user gives exact coordinates in the Swiss Alps and wants 5 days of forecast. Only the worldwide forecast service accepts arbitrary coordinates outside the US and UK, so I call it with latitude 46.02, longitude 7.75 and forecast_days 5.",
  [("open_meteo_forecast", {"latitude": 46.02, "longitude": 7.75, "forecast_days": 5})],
  ["nws_forecast", "met_office_daily", "yandex_weather", "ncm_uae_forecast"])
T("S", "What's the forecast for the Grand Canyon Village area? The coordinates are 36.0544, -112.1401.",
  "Grand Canyon Village is in Arizona, so the US National Weather Service point forecast fits. I pass latitude 36.0544 and longitude -112.1401.",
  [("nws_forecast", {"latitude": 36.0544, "longitude": -112.1401})],
  ["met_office_daily", "brightsky_weather", "天气查询"])
T("S", "Is anything wrong on the Victoria line or the Central line right now? I need to cross London in half an hour.",
  "The user asks about current disruptions on two Underground lines. The line status endpoint takes a list of line ids, so one call with victoria and central covers both.",
  [("TfL Line Status", {"ids": ["victoria", "central"]})],
  ["TfL Journey Planner", "mbta_predictions", "emt_madrid_arrivals"])
T("S", "Which council and ward does the postcode SW1A 2AA belong to?",
  "A full UK postcode is given and the user wants its local authority and ward, which the UK postcode lookup returns. I call it with postcode SW1A 2AA.",
  [("postcodes_io", {"postcode": "SW1A 2AA"})],
  ["zippopotam", "郵便番号検索", "uk_police_street_crime"])
T("S", "Show me the street crimes reported around 51.5074, -0.1278 in 2024-03.",
  "This is a request for police street-level crime data around a point in London for one month. I call the street crime endpoint with lat 51.5074, lng -0.1278 and date 2024-03.",
  [("uk_police_street_crime", {"lat": 51.5074, "lng": -0.1278, "date": "2024-03"})],
  ["postcodes_io", "companies_house_search", "met_office_daily"])
T("S", "What are the top stories in the science section right now?",
  "The user wants the articles currently featured on the science section front. The top-stories service takes a section name, so I call it with section science.",
  [("nyt_top_stories", {"section": "science"})],
  ["guardian_search", "tagesschau_news", "新闻头条"])
T("S", "What does the official label say about ibuprofen? Just 1 record is enough.",
  "Drug label information (warnings, dosage) comes from the FDA label search. I search for ibuprofen and limit the result to 1 record.",
  [("openfda_drug_label", {"search": "ibuprofen", "limit": 1})],
  ["disease_sh_country", "open_food_facts_product", "nobetci_eczane"])
T("S", "What are bitcoin and ethereum trading at right now, in usd and eur?",
  "Current crypto prices in two fiat currencies: the simple price endpoint accepts comma-separated coin ids and currencies, so one call with ids bitcoin,ethereum and vs_currencies usd,eur is enough.",
  [("coingecko_simple_price", {"ids": "bitcoin,ethereum", "vs_currencies": "usd,eur"})],
  ["coingecko_coin_history", "currency_convert", "frankfurter_latest", "alphavantage.GLOBAL_QUOTE"])
T("S", "What were the EUR reference rates against GBP on 2023-12-29?",
  "The user wants ECB reference rates for a specific past day, so the historical endpoint is the right one: date 2023-12-29, base EUR, target GBP.",
  [("frankfurter_historical", {"date": "2023-12-29", "from": "EUR", "to": "GBP"})],
  ["frankfurter_latest", "currency_convert", "Курсы валют ЦБ РФ"])
T("S", "Find flights from LHR to NRT departing 2025-04-10 for 2 adults.",
  "A one-way flight search between two IATA airport codes on a date with a passenger count. I call the flight offers search with originLocationCode LHR, destinationLocationCode NRT, departureDate 2025-04-10 and adults 2.",
  [("amadeus_flight_offers", {"originLocationCode": "LHR", "destinationLocationCode": "NRT", "departureDate": "2025-04-10", "adults": 2})],
  ["amadeus_hotels_by_city", "ekispert.course.search", "Яндекс.Расписания"])
T("S", "Show me the current Premier League table (competition code PL).",
  "The user wants standings, not fixtures, so I use the standings endpoint with competition PL.",
  [("football_data_standings", {"competition": "PL"})],
  ["football_data_matches", "thesportsdb_search_team", "ergast_f1_results"])
T("S", "Who won round 5 of the 2023 Formula 1 season?",
  "Race results by season and round: season 2023, round 5.",
  [("ergast_f1_results", {"season": 2023, "round": 5})],
  ["football_data_matches", "balldontlie_games", "thesportsdb_search_team"])
T("S", "Can you look up the film Past Lives from 2023? I want to know who directed it.",
  "I need to find the movie by title and year. The movie database search takes the title as query and an optional year: Past Lives, 2023.",
  [("tmdb_search_movie", {"query": "Past Lives", "year": 2023})],
  ["kinopoisk_films_search", "jikan_anime_search", "itunes_search"])
T("S", "What does the word serendipity mean, and how is it pronounced?",
  "Definition and phonetics of an English word: the dictionary endpoint with word serendipity.",
  [("dictionaryapi", {"word": "serendipity"})],
  ["Google Translate", "open_library_search", "百度翻译"])
T("S", "I need Kenya's GDP series for my report: indicator NY.GDP.MKTP.CD, country code KE, years 2015:2022.",
  "A World Bank indicator series for one country and a year range. I pass country KE, indicator NY.GDP.MKTP.CD and date 2015:2022.",
  [("world_bank_indicator", {"country": "KE", "indicator": "NY.GDP.MKTP.CD", "date": "2015:2022"})],
  ["rest_countries_name", "ine_tempus_serie", "e_stat_stats_list"])
T("S", "How much sugar is in the product with barcode 3017620422003?",
  "Nutrition facts of a packaged product are looked up by barcode, so I call the product endpoint with barcode 3017620422003.",
  [("open_food_facts_product", {"barcode": "3017620422003"})],
  ["themealdb_search", "bestbuy_products", "mandi_commodity_prices"])
T("S", "What time are the prayers today in Kuala Lumpur, Malaysia?",
  "Prayer times for a city outside Saudi Arabia need the worldwide prayer time service; it takes city Kuala Lumpur and country Malaysia.",
  [("aladhan_timings_by_city", {"city": "Kuala Lumpur", "country": "Malaysia"})],
  ["مواقيت الصلاة", "ummalqura_hijri_convert", "nager.date/NextPublicHolidays"])
T("S", "What's the graduation rate and average annual cost at Purdue University?",
  "Cost and graduation rate of a US college are in the College Scorecard data, searched by school name Purdue University.",
  [("college_scorecard", {"school.name": "Purdue University"})],
  ["hipolabs_universities", "open_library_search", "neis_school_info"])
T("S", "Find UK registered companies called Monzo Bank.",
  "This is a search of the UK company register by name: q Monzo Bank.",
  [("companies_house_search", {"q": "Monzo Bank"})],
  ["insee_sirene_siret", "brasilapi/cnpj", "guardian_search"])
T("S", "Search for OLED TV listings, 5 per page please.",
  "Product search at a US electronics retailer with a page size: search OLED TV, pageSize 5.",
  [("bestbuy_products", {"search": "OLED TV", "pageSize": 5})],
  ["rakuten.ichiba.item.search", "naver_shopping_search", "mercadolibre_search"])
T("S", "How many COVID-19 cases and deaths has Peru reported in total?",
  "The user wants the total number of COVID-19 cases and deaths for one country, so I call the country statistics endpoint with Peru.",
  [("disease_sh_country", {"country": "Peru"})],
  ["world_bank_indicator", "rest_countries_name", "openfda_drug_label"])

T("R", "Compare the 3-day forecasts for Reykjavik (64.15, -21.94) and Tromsø (69.65, 18.96).",
  "Two places, both given as coordinates outside the US and UK. I call the worldwide forecast twice with forecast_days 3: first 64.15, -21.94 for Reykjavik, then 69.65, 18.96 for Tromsø.",
  [("open_meteo_forecast", {"latitude": 64.15, "longitude": -21.94, "forecast_days": 3}),
   ("open_meteo_forecast", {"latitude": 69.65, "longitude": 18.96, "forecast_days": 3})],
  ["met_office_daily", "yandex_weather", "nws_forecast"])
T("R", "List the 2025 public holidays for NZ, AU and IE so I can plan a trip across all three.",
  "The holiday list takes one country per call, so I call it three times for year 2025: countryCode NZ, AU and IE.",
  [("nager.date/PublicHolidays", {"year": 2025, "countryCode": "NZ"}),
   ("nager.date/PublicHolidays", {"year": 2025, "countryCode": "AU"}),
   ("nager.date/PublicHolidays", {"year": 2025, "countryCode": "IE"})],
  ["nager.date/NextPublicHolidays", "uk_bank_holidays", "holidays_jp", "feiertage_api"])
T("R", "Look up the postcodes EH1 1YZ, M1 1AE and BT1 5GS for me: which local authority is each in?",
  "The user gives three UK postcodes and wants the local authority of each, so I look them up one by one: EH1 1YZ, M1 1AE and BT1 5GS.",
  [("postcodes_io", {"postcode": "EH1 1YZ"}), ("postcodes_io", {"postcode": "M1 1AE"}),
   ("postcodes_io", {"postcode": "BT1 5GS"})],
  ["zippopotam", "uk_police_street_crime", "viacep"])
T("R", "Find the movies Parasite (2019) and Oldboy (2003) for our film night list.",
  "Two separate title searches with their years: Parasite 2019, then Oldboy 2003.",
  [("tmdb_search_movie", {"query": "Parasite", "year": 2019}),
   ("tmdb_search_movie", {"query": "Oldboy", "year": 2003})],
  ["박스오피스 조회", "kinopoisk_films_search", "itunes_search"])
T("R", "When are the next trains at stops place-pktrm and place-sstat?",
  "Real-time predictions are requested per stop, so I query stop place-pktrm and then stop place-sstat.",
  [("mbta_predictions", {"stop": "place-pktrm"}), ("mbta_predictions", {"stop": "place-sstat"})],
  ["TfL Line Status", "sptrans/Previsao/Parada", "emt_madrid_arrivals"])
T("R", "Give me the results of rounds 1 and 2 of the 2024 F1 season.",
  "Race results come one round per call: season 2024 round 1, then season 2024 round 2.",
  [("ergast_f1_results", {"season": 2024, "round": 1}), ("ergast_f1_results", {"season": 2024, "round": 2})],
  ["football_data_matches", "balldontlie_games"])
T("R", "What was bitcoin worth on 01-01-2021 and on 01-01-2022?",
  "Historical coin snapshots are per date: id bitcoin with date 01-01-2021, then with date 01-01-2022.",
  [("coingecko_coin_history", {"id": "bitcoin", "date": "01-01-2021"}),
   ("coingecko_coin_history", {"id": "bitcoin", "date": "01-01-2022"})],
  ["coingecko_simple_price", "frankfurter_historical", "alphavantage.GLOBAL_QUOTE"])

T("P", "I'm flying to Japan soon. What's today's USD to JPY rate, and which public holidays does JP have in 2025?",
  "Two independent needs: the latest reference rate from USD to JPY, and the 2025 public holidays for country code JP. I call the latest-rates endpoint and the public holiday list.",
  [("frankfurter_latest", {"from": "USD", "to": "JPY"}),
   ("nager.date/PublicHolidays", {"year": 2025, "countryCode": "JP"})],
  ["frankfurter_historical", "holidays_jp", "calendarific_holidays"])
T("P", "Is the Jubilee line running normally, and what's the forecast at Canary Wharf (51.5054, -0.0235)?",
  "Two questions in London: the Jubilee line status, and a UK point forecast at 51.5054, -0.0235. I call the line status and the Met Office daily forecast.",
  [("TfL Line Status", {"ids": ["jubilee"]}),
   ("met_office_daily", {"latitude": 51.5054, "longitude": -0.0235})],
  ["TfL Journey Planner", "nws_forecast", "uk_police_street_crime"])
T("P", "How much is 1500 GBP in EUR today, and what is solana trading at in usd?",
  "One conversion with an amount (GBP to EUR, 1500) and one crypto price (solana in usd). Those are two different services.",
  [("currency_convert", {"from": "GBP", "to": "EUR", "amount": 1500}),
   ("coingecko_simple_price", {"ids": "solana", "vs_currencies": "usd"})],
  ["frankfurter_latest", "coingecko_coin_history", "alphavantage.GLOBAL_QUOTE"])
T("P", "Show me the Champions League (CL) fixtures for matchday 1, and find the team Arsenal so I can see their stadium.",
  "Fixtures of competition CL on matchday 1 come from the matches endpoint; the stadium comes from a team search for Arsenal.",
  [("football_data_matches", {"competition": "CL", "matchday": 1}),
   ("thesportsdb_search_team", {"t": "Arsenal"})],
  ["football_data_standings", "ergast_f1_results"])
T("P", "I'm landing in Boston: when is the next train at stop place-north, and what's the forecast at 42.3656, -71.0096?",
  "Two unrelated calls: arrival predictions at stop place-north, and the National Weather Service forecast at 42.3656, -71.0096, which is in the US.",
  [("mbta_predictions", {"stop": "place-north"}),
   ("nws_forecast", {"latitude": 42.3656, "longitude": -71.0096})],
  ["TfL Line Status", "met_office_daily", "sptrans/Previsao/Parada"])
T("P", "Define the word ephemeral for me, and translate \"see you tomorrow\" into es.",
  "A dictionary lookup for ephemeral and a translation of 'see you tomorrow' with target language es; two different tools.",
  [("dictionaryapi", {"word": "ephemeral"}),
   ("Google Translate", {"text": "see you tomorrow", "target_lang": "es"})],
  ["open_library_search", "Papago 번역", "百度翻译"])
T("P", "Search flights from JFK to LIS on 2025-06-02 for 1 adult, list hotels in city code LIS, and tell me which public holidays PT has in 2025.",
  "Three independent searches: flights JFK to LIS on 2025-06-02 for 1 adult, hotels for city code LIS, and the 2025 public holidays of country code PT.",
  [("amadeus_flight_offers", {"originLocationCode": "JFK", "destinationLocationCode": "LIS", "departureDate": "2025-06-02", "adults": 1}),
   ("amadeus_hotels_by_city", {"cityCode": "LIS"}),
   ("nager.date/PublicHolidays", {"year": 2025, "countryCode": "PT"})],
  ["楽天トラベル施設検索", "kto_tour_search", "osrm_route", "nager.date/NextPublicHolidays"])

T("N", "Pull NVDA's reported financial facts from its SEC filings.",
  "The company facts endpoint needs the CIK, which the user did not give. First I look up ticker NVDA to get its cik, then I request the company facts with that cik.",
  [("sec/company_tickers", {"ticker": "NVDA"}), ("sec/companyfacts", {"cik": ref(0, "cik")})],
  ["alphavantage.GLOBAL_QUOTE", "moex_securities"],
  out={0: {"cik": "0001045810", "ticker": "NVDA", "title": "NVIDIA CORP"}})
T("N", "What will the weather be like at the Sagrada Familia, Barcelona over the next 3 days?",
  "The forecast needs coordinates. I first geocode 'Sagrada Familia, Barcelona', then use the returned lat and lon for a 3-day forecast.",
  [("nominatim_search", {"q": "Sagrada Familia, Barcelona"}),
   ("open_meteo_forecast", {"latitude": ref(0, "lat"), "longitude": ref(0, "lon"), "forecast_days": 3})],
  ["aemet_prediccion_municipio", "nominatim_reverse", "osrm_route"],
  out={0: {"lat": 41.4036, "lon": 2.1744, "display_name": "Basílica de la Sagrada Família, Barcelona"}})
T("N", "What are the next public holidays in Peru?",
  "The holiday service wants an ISO country code. I look up the country Peru first to get its cca2 code, then ask for the next public holidays with that cca2.",
  [("rest_countries_name", {"name": "Peru"}),
   ("nager.date/NextPublicHolidays", {"countryCode": ref(0, "cca2")})],
  ["nager.date/PublicHolidays", "calendarific_holidays", "world_bank_indicator"],
  out={0: {"cca2": "PE", "cca3": "PER", "capital": ["Lima"]}})
T("N", "How much crime was reported around the postcode CF10 1EP in 2024-05?",
  "Street crime is queried by coordinates, so I first look up postcode CF10 1EP, then use its latitude and longitude with date 2024-05.",
  [("postcodes_io", {"postcode": "CF10 1EP"}),
   ("uk_police_street_crime", {"lat": ref(0, "latitude"), "lng": ref(0, "longitude"), "date": "2024-05"})],
  ["zippopotam", "companies_house_search", "nominatim_reverse"],
  out={0: {"latitude": 51.4816, "longitude": -3.1791, "admin_district": "Cardiff"}})
T("N", "Get Portugal's total population series from the World Bank (indicator SP.POP.TOTL).",
  "The indicator endpoint needs a country code. I look up Portugal to get its cca3 code, then request indicator SP.POP.TOTL for that cca3.",
  [("rest_countries_name", {"name": "Portugal"}),
   ("world_bank_indicator", {"country": ref(0, "cca3"), "indicator": "SP.POP.TOTL"})],
  ["ibge/municipios", "ine_tempus_serie"],
  out={0: {"cca2": "PT", "cca3": "PRT", "capital": ["Lisbon"]}})

T("X", "What's the weather going to be like this weekend?",
  "The forecast tools all need a location (coordinates), and the question gives none. I cannot call them without guessing; I should ask where the user will be.",
  [], ["open_meteo_forecast", "nws_forecast", "met_office_daily"], about="open_meteo_forecast")
T("X", "Book me a table for two at an Italian restaurant in Chicago tonight.",
  "None of the available tools makes restaurant reservations: they search recipes, food products and electronics. I have to tell the user this cannot be done here.",
  [], ["themealdb_search", "open_food_facts_product", "bestbuy_products"], near="themealdb_search")
T("X", "Convert 500 into euros at today's rate.",
  "The conversion needs a source currency and the question only gives the amount 500 and the target. The source currency is missing, so I should ask for it instead of guessing.",
  [], ["currency_convert", "coingecko_simple_price", "Курсы валют ЦБ РФ"], about="currency_convert")
T("X", "Set a reminder for my dentist appointment on Friday at 3pm.",
  "The candidates only return holiday calendars; none can create reminders. No suitable tool.",
  [], ["uk_bank_holidays", "nager.date/PublicHolidays", "calendarific_holidays"], near="uk_bank_holidays")
T("X", "Find me flights to Lisbon for 2 adults next month.",
  "The flight search requires an origin airport and an exact departure date; the query has neither (only 'next month' and a destination). I must ask for them.",
  [], ["amadeus_flight_offers", "amadeus_hotels_by_city", "osrm_route"], about="amadeus_flight_offers")
T("X", "Send an SMS to my landlord saying the rent has been paid.",
  "Sending text messages is not something any of these tools do (translation, dictionary and company search). No suitable tool.",
  [], ["Google Translate", "dictionaryapi", "companies_house_search"], near="Google Translate")
T("X", "Which crimes were reported near my flat last month?",
  "The crime endpoint needs a latitude and longitude, and I do not know where the flat is. The required location is missing.",
  [], ["uk_police_street_crime", "postcodes_io", "met_office_daily"], about="uk_police_street_crime")

# ---------------------------------------------------------------------------
# Chinese: CN
# ---------------------------------------------------------------------------
T("S", "帮我看看杭州这几天的天气，周末想去西湖走走。",
  "用户想了解杭州未来几天的天气。天气查询接口按中国城市名称返回实时天气和5天预报，直接传入城市“杭州”即可；其他接口需要LocationID或adcode，这里没有提供。",
  [("天气查询", {"city": "杭州"})],
  ["qweather_now", "amap/weatherInfo", "jma_forecast", "imd_city_weather"])
T("S", "LocationID 101280601 对应的地方现在天气怎么样？温度和风力都要。",
  "用户给出了LocationID 101280601，需要实时温度和风力。按LocationID查询实况的接口正好适用，参数 location 设为 101280601。",
  [("qweather_now", {"location": "101280601"})],
  ["天气查询", "amap/weatherInfo", "open_meteo_forecast"])
T("S", "现在1美元能换多少人民币？帮我查一下 USD 兑 CNY 的汇率。",
  "这是查询实时汇率的问题，源货币 USD，目标货币 CNY，使用汇率查询接口。",
  [("汇率查询", {"from": "USD", "to": "CNY"})],
  ["Курсы валют ЦБ РФ", "koreaexim_exchange", "bcb_ptax"])
T("S", "2025-05-01 从北京到上海的高铁还有票吗？",
  "用户要查五一当天北京到上海的余票，使用列车余票查询，乘车日期 2025-05-01，出发站北京，到达站上海。",
  [("列车余票查询", {"train_date": "2025-05-01", "from_station": "北京", "to_station": "上海"})],
  ["ekispert.course.search", "korail_train_info", "Яндекс.Расписания", "enr_train_search"])
T("S", "2025年的法定节假日和调休安排是怎样的？我想提前规划年假。",
  "用户关心中国的法定节假日以及调休补班，节假日查询接口按年份返回这些信息，参数 year 为 2025。",
  [("节假日查询", {"year": 2025})],
  ["holidays_jp", "nager.date/PublicHolidays", "kasi_getRestDeInfo"])
T("S", "贵州茅台（sh600519）现在股价多少？涨了还是跌了？",
  "需要A股实时行情，代码已给出为 sh600519，使用新浪股票行情接口。",
  [("新浪股票行情", {"code": "sh600519"})],
  ["jquants_daily_quotes", "nse_quote_equity", "alphavantage.GLOBAL_QUOTE"])
T("S", "请把“欲速则不达”从 zh 翻译成 en，我要写进英文邮件里。",
  "这是中译英的需求，百度翻译支持中文与英文互译：q 为“欲速则不达”，from 为 zh，to 为 en。",
  [("百度翻译", {"q": "欲速则不达", "from": "zh", "to": "en"})],
  ["Papago 번역", "yandex_translate", "dictionaryapi"])
T("S", "红烧肉怎么做？给我找 5 个做法参考一下。",
  "用户要红烧肉的中式做法，菜谱大全按菜名搜索，menu 为红烧肉，rn 设为 5。",
  [("菜谱大全", {"menu": "红烧肉", "rn": 5})],
  ["themealdb_search", "rakuten_recipe_ranking", "open_food_facts_product"])
T("S", "今天科技方面有什么头条新闻？",
  "用户想看国内科技类新闻头条，新闻头条接口可按类型筛选，type 设为 科技。",
  [("新闻头条", {"type": "科技"})],
  ["newsapi_top_headlines", "tagesschau_news", "nyt_top_stories"])
T("S", "北京市朝阳区阜通东大街6号的经纬度是多少？",
  "需要把一个中国地址转换成经纬度，使用高德地理编码，address 为 北京市朝阳区阜通东大街6号。",
  [("amap/geocode/geo", {"address": "北京市朝阳区阜通东大街6号"})],
  ["nominatim_reverse", "kakao.local.search.address", "amap/weatherInfo"])

T("R", "下周要去成都、重庆和西安出差，三个城市的天气分别怎么样？",
  "需要分别查询三个中国城市的天气，天气查询每次只能查一个城市，所以依次查成都、重庆、西安。",
  [("天气查询", {"city": "成都"}), ("天气查询", {"city": "重庆"}), ("天气查询", {"city": "西安"})],
  ["qweather_now", "imd_city_weather", "amap/weatherInfo", "jma_forecast"])
T("R", "帮我查 2025-02-08 广州到长沙，以及 2025-02-10 长沙到武汉的余票。",
  "这是两段行程，需要调用两次列车余票查询：2025-02-08 广州→长沙，2025-02-10 长沙→武汉。",
  [("列车余票查询", {"train_date": "2025-02-08", "from_station": "广州", "to_station": "长沙"}),
   ("列车余票查询", {"train_date": "2025-02-10", "from_station": "长沙", "to_station": "武汉"})],
  ["korail_train_info", "ekispert.course.search", "amap/geocode/geo"])
T("R", "sz000001 和 sh601318 今天的行情如何？",
  "两只A股分别查询实时行情：先查 sz000001，再查 sh601318。",
  [("新浪股票行情", {"code": "sz000001"}), ("新浪股票行情", {"code": "sh601318"})],
  ["moex_securities", "jquants_daily_quotes", "汇率查询"])

T("P", "五一想去厦门玩，帮我看看厦门的天气，再查一下2025年五一放几天假。",
  "有两个独立的问题：厦门的天气用天气查询（city 厦门），2025年的放假安排用节假日查询（year 2025）。",
  [("天气查询", {"city": "厦门"}), ("节假日查询", {"year": 2025})],
  ["qweather_now", "holidays_jp", "nager.date/NextPublicHolidays"])
T("P", "HKD 兑 CNY 现在是多少？顺便看看招商银行 sh600036 的股价。",
  "一个是汇率（from HKD，to CNY），一个是A股行情（code sh600036），分别调用汇率查询和新浪股票行情。",
  [("汇率查询", {"from": "HKD", "to": "CNY"}), ("新浪股票行情", {"code": "sh600036"})],
  ["currency_convert", "jquants_daily_quotes", "koreaexim_exchange"])
T("P", "我想给外国朋友做宫保鸡丁，帮我找个做法，再把菜名“宫保鸡丁”从 zh 翻成 en。",
  "需要菜谱（menu 宫保鸡丁）和菜名翻译（q 宫保鸡丁，from zh，to en），两个任务互不依赖。",
  [("菜谱大全", {"menu": "宫保鸡丁"}), ("百度翻译", {"q": "宫保鸡丁", "from": "zh", "to": "en"})],
  ["themealdb_search", "Papago 번역", "rakuten_recipe_ranking"])

T("N", "深圳市南山区科技园那边现在天气怎么样？",
  "天气接口需要区县的 adcode，而用户只给了地址。先用地理编码查询“深圳市南山区科技园”得到 adcode，再用这个 adcode 查询天气。",
  [("amap/geocode/geo", {"address": "深圳市南山区科技园"}), ("amap/weatherInfo", {"city": ref(0, "adcode")})],
  ["天气查询", "qweather_now", "nominatim_search"],
  out={0: {"adcode": "440305", "location": "113.953,22.540", "formatted_address": "广东省深圳市南山区科技园"}})
T("N", "成都市武侯区人民南路四段附近今天天气如何？地址请限定在成都市。",
  "要先把地址转换成 adcode：地理编码 address 为 成都市武侯区人民南路四段，city 为 成都市；然后用返回的 adcode 查询天气。",
  [("amap/geocode/geo", {"address": "成都市武侯区人民南路四段", "city": "成都市"}),
   ("amap/weatherInfo", {"city": ref(0, "adcode")})],
  ["天气查询", "kakao.local.search.address", "qweather_now"],
  out={0: {"adcode": "510107", "location": "104.071,30.620"}})
T("N", "帮我找一个麻婆豆腐的菜谱，再把它的做法步骤从 zh 翻译成 en，给我的美国室友看。",
  "先用菜谱大全搜索麻婆豆腐，取返回结果中的 steps（做法步骤），再用百度翻译把 steps 从 zh 翻译成 en。",
  [("菜谱大全", {"menu": "麻婆豆腐"}), ("百度翻译", {"q": ref(0, "steps"), "from": "zh", "to": "en"})],
  ["themealdb_search", "DeepL", "yandex_translate"],
  out={0: {"title": "麻婆豆腐", "steps": "1. 豆腐切块焯水；2. 炒香牛肉末和郫县豆瓣；3. 加水放豆腐小火煮；4. 勾芡，撒花椒粉。"}})

T("X", "帮我查一下明天的火车票还有没有。",
  "查询余票需要乘车日期、出发站和到达站，用户没有说从哪里到哪里，“明天”也不是具体日期，缺少必要参数，需要先向用户确认。",
  [], ["列车余票查询", "ekispert.course.search", "天气查询"], about="列车余票查询")
T("X", "帮我在外卖平台上订一份今晚7点送到的麻辣烫。",
  "现有工具只能查菜谱、查新闻或查国外菜谱，没有下单外卖的功能，无法完成这个请求。",
  [], ["菜谱大全", "themealdb_search", "新闻头条"], near="菜谱大全")
T("X", "这只股票现在涨了多少？",
  "查询行情需要股票代码，用户没有说明是哪只股票，缺少必要参数 code。",
  [], ["新浪股票行情", "nse_quote_equity", "moex_securities"], about="新浪股票行情")

# ---------------------------------------------------------------------------
# Japanese: JP
# ---------------------------------------------------------------------------
T("S", "週末に札幌へ行くので、北海道の今後3日間の天気予報を教えてください。",
  "北海道の天気予報が必要です。気象庁の府県天気予報APIは都道府県名と日数を受け取るので、prefecture に北海道、days に 3 を指定します。",
  [("jma_forecast", {"prefecture": "北海道", "days": 3})],
  ["天气查询", "open_meteo_forecast", "kma_short_term_forecast", "ncm_uae_forecast"])
T("S", "郵便番号1000001はどこの住所ですか？",
  "7桁の郵便番号から住所を調べる質問なので、郵便番号検索に zipcode 1000001 を渡します。",
  [("郵便番号検索", {"zipcode": "1000001"})],
  ["zippopotam", "postalpincode.in/pincode", "juso_address_search"])
T("S", "2026年の祝日一覧を見せてください。連休の計画を立てたいです。",
  "日本の祝日を年単位で取得するAPIがあるので、year に 2026 を指定して呼び出します。",
  [("holidays_jp", {"year": 2026})],
  ["nager.date/PublicHolidays", "节假日查询", "kasi_getRestDeInfo"])
T("S", "新宿から横浜まで、20250320の0800出発で行き方を調べてください。",
  "日本国内の乗換経路検索です。from に新宿、to に横浜、date に 20250320、time に 0800 を指定します。",
  [("ekispert.course.search", {"from": "新宿", "to": "横浜", "date": "20250320", "time": "0800"})],
  ["列车余票查询", "korail_train_info", "TfL Journey Planner"])
T("S", "もつ鍋が食べられるお店を5件教えてください。",
  "飲食店をキーワードで探すので、グルメサーチに keyword もつ鍋、count 5 を指定します。",
  [("ホットペッパーグルメサーチ", {"keyword": "もつ鍋", "count": 5})],
  ["rakuten_recipe_ranking", "菜谱大全", "楽天トラベル施設検索"])
T("S", "3000円以下のワイヤレスイヤホンを探しています。",
  "商品を探しているので楽天市場の商品検索を使います。キーワードはワイヤレスイヤホン、上限価格は3000円を指定して検索します。",
  [("rakuten.ichiba.item.search", {"keyword": "ワイヤレスイヤホン", "maxPrice": 3000})],
  ["naver_shopping_search", "bestbuy_products", "ホットペッパーグルメサーチ"])
T("S", "銘柄コード7203の2024-01-05の株価を教えてください。",
  "東証銘柄の日次株価なので、code に 7203、date に 2024-01-05 を指定して日次株価APIを呼びます。",
  [("jquants_daily_quotes", {"code": "7203", "date": "2024-01-05"})],
  ["jquants_listed_info", "新浪股票行情", "alphavantage.GLOBAL_QUOTE", "moex_securities"])
T("S", "地域130のサービスg1で、2025-01-01に放送される番組を一覧にしてください。",
  "番組表を取得します。地域IDは130、サービスIDはg1、日付は2025-01-01です。",
  [("NHK番組表", {"area": "130", "service": "g1", "date": "2025-01-01"})],
  ["itunes_search", "jikan_anime_search", "e_stat_stats_list"])
T("S", "箱根の宿を20件リストアップしてください。",
  "国内の宿泊施設をキーワード検索するので、keyword に箱根、hits に 20 を指定します。",
  [("楽天トラベル施設検索", {"keyword": "箱根", "hits": 20})],
  ["amadeus_hotels_by_city", "kto_tour_search", "rakuten.ichiba.item.search"])
T("S", "「人口推計」に関する政府の統計表を探しています。",
  "政府統計の統計表をキーワードで検索するAPIを使い、searchWord に人口推計を指定します。",
  [("e_stat_stats_list", {"searchWord": "人口推計"})],
  ["world_bank_indicator", "ine_tempus_serie", "holidays_jp"])

T("R", "大阪府と京都府、それぞれの天気予報を教えてください。",
  "府県天気予報は1回に1つの府県なので、大阪府と京都府について2回呼び出します。",
  [("jma_forecast", {"prefecture": "大阪府"}), ("jma_forecast", {"prefecture": "京都府"})],
  ["天气查询", "kma_short_term_forecast", "open_meteo_forecast"])
T("R", "郵便番号5300001、0600001、9800811の住所をそれぞれ調べてください。",
  "3つの郵便番号を順に検索します。5300001、0600001、9800811の順です。",
  [("郵便番号検索", {"zipcode": "5300001"}), ("郵便番号検索", {"zipcode": "0600001"}),
   ("郵便番号検索", {"zipcode": "9800811"})],
  ["zippopotam", "juso_address_search", "sepomex_codigo_postal"])
T("R", "東京から名古屋、そのあと名古屋から京都までの経路をそれぞれ調べてください。",
  "2区間の経路検索が必要です。まず東京→名古屋、次に名古屋→京都で経路探索を2回呼びます。",
  [("ekispert.course.search", {"from": "東京", "to": "名古屋"}),
   ("ekispert.course.search", {"from": "名古屋", "to": "京都"})],
  ["列车余票查询", "korail_train_info", "楽天トラベル施設検索"])

T("P", "来週沖縄に行きます。沖縄県の天気予報と、石垣島の宿を教えてください。",
  "天気予報と宿泊施設の検索は互いに関係しないので、沖縄県の天気予報と石垣島の宿をそれぞれ別のAPIで同時に取得します。",
  [("jma_forecast", {"prefecture": "沖縄県"}), ("楽天トラベル施設検索", {"keyword": "石垣島"})],
  ["open_meteo_forecast", "amadeus_hotels_by_city", "ホットペッパーグルメサーチ"])
T("P", "連休の計画を立てたいです。2025年の祝日と、東京から仙台までの乗換経路、それに宮城県の天気予報を教えてください。",
  "祝日一覧（year 2025）、経路検索（from 東京、to 仙台）、天気予報（prefecture 宮城県）は互いに独立しているので、3つのAPIを並行して呼びます。",
  [("holidays_jp", {"year": 2025}), ("ekispert.course.search", {"from": "東京", "to": "仙台"}),
   ("jma_forecast", {"prefecture": "宮城県"})],
  ["nager.date/PublicHolidays", "列车余票查询", "open_meteo_forecast", "楽天トラベル施設検索"])
T("P", "引っ越し先の郵便番号1500002の住所を確認して、ついでにラーメン屋も10件探してください。",
  "住所の確認とお店探しは別々の作業なので、郵便番号1500002の住所検索と、ラーメン屋を10件探す飲食店検索を並行して行います。",
  [("郵便番号検索", {"zipcode": "1500002"}), ("ホットペッパーグルメサーチ", {"keyword": "ラーメン", "count": 10})],
  ["rakuten_recipe_ranking", "juso_address_search", "zippopotam"])

T("N", "郵便番号9000006の地域の天気予報を知りたいです。",
  "天気予報APIは都道府県名が必要です。まず郵便番号9000006から住所を調べ、得られた都道府県名 address1 を使って天気予報を取得します。",
  [("郵便番号検索", {"zipcode": "9000006"}), ("jma_forecast", {"prefecture": ref(0, "address1")})],
  ["zippopotam", "open_meteo_forecast", "天气查询"],
  out={0: {"address1": "沖縄県", "address2": "那覇市", "address3": "西"}})
T("N", "郵便番号2310023の市区町村にあるホテルを探してください。",
  "まず郵便番号2310023の住所を調べ、市区町村名 address2 を宿泊施設検索のキーワードに使います。",
  [("郵便番号検索", {"zipcode": "2310023"}), ("楽天トラベル施設検索", {"keyword": ref(0, "address2")})],
  ["amadeus_hotels_by_city", "zippopotam", "kto_tour_search"],
  out={0: {"address1": "神奈川県", "address2": "横浜市中区", "address3": "山下町"}})
T("N", "任天堂の2024-06-03の株価を調べてください。",
  "日次株価には銘柄コードが必要ですが、会社名しか分かりません。まず任天堂で銘柄を検索して Code を取得し、その Code と日付2024-06-03で株価を取得します。",
  [("jquants_listed_info", {"name": "任天堂"}), ("jquants_daily_quotes", {"code": ref(0, "Code"), "date": "2024-06-03"})],
  ["alphavantage.GLOBAL_QUOTE", "新浪股票行情", "e_stat_stats_list"],
  out={0: {"Code": "7974", "CompanyName": "任天堂", "MarketCodeName": "プライム"}})

T("X", "今日の天気どう？",
  "天気予報には都道府県名が必要ですが、場所が示されていません。推測せずに、どこの天気か確認する必要があります。",
  [], ["jma_forecast", "open_meteo_forecast", "天气查询"], about="jma_forecast")
T("X", "新幹線の指定席を予約してください。",
  "候補のAPIは経路検索、宿泊施設検索、天気予報だけで、座席を予約する機能はありません。このリクエストには対応できません。",
  [], ["ekispert.course.search", "楽天トラベル施設検索", "jma_forecast"], near="ekispert.course.search")
T("X", "この郵便番号の住所を教えてください。",
  "郵便番号検索には7桁の郵便番号が必要ですが、番号が書かれていません。必須パラメータが不足しています。",
  [], ["郵便番号検索", "zippopotam", "juso_address_search"], about="郵便番号検索")

# ---------------------------------------------------------------------------
# Korean: KR
# ---------------------------------------------------------------------------
T("S", "격자 좌표 nx 60, ny 127 지점의 20250312 발표 단기예보를 조회해 줘.",
  "기상청 단기예보는 발표일자와 격자 좌표가 필요합니다. base_date 20250312, nx 60, ny 127로 조회합니다.",
  [("kma_short_term_forecast", {"base_date": "20250312", "nx": 60, "ny": 127})],
  ["jma_forecast", "open_meteo_forecast", "airkorea_realtime"])
T("S", "종로구 측정소의 오늘 미세먼지 농도 알려 줘.",
  "측정소별 실시간 대기오염 정보를 조회하면 되므로 stationName을 종로구로 지정합니다.",
  [("airkorea_realtime", {"stationName": "종로구"})],
  ["waqi_city_feed", "open_meteo_air_quality", "kma_short_term_forecast", "open_meteo_forecast"])
T("S", "20250301 일별 박스오피스 순위 좀 보여 줘.",
  "일별 박스오피스 순위는 조회일자가 필요합니다. targetDt를 20250301로 지정합니다.",
  [("박스오피스 조회", {"targetDt": "20250301"})],
  ["tmdb_search_movie", "kinopoisk_films_search", "NHK番組表"])
T("S", "2025년 10월 공휴일이 언제야? 연차 붙여서 쉬고 싶어.",
  "한국 공휴일을 연·월 단위로 조회하는 특일 정보 API를 사용합니다. solYear 2025, solMonth 10입니다.",
  [("kasi_getRestDeInfo", {"solYear": 2025, "solMonth": "10"})],
  ["holidays_jp", "calendarific_holidays", "节假日查询"])
T("S", "캠핑 의자 검색 결과 20개만 보여 줘.",
  "쇼핑 검색 API로 query는 캠핑 의자, display는 20으로 요청합니다.",
  [("naver_shopping_search", {"query": "캠핑 의자", "display": 20})],
  ["rakuten.ichiba.item.search", "mercadolibre_search", "kto_tour_search"])
T("S", "'잘 부탁드립니다'를 ko에서 ja로 번역해 줘.",
  "한국어 문장을 일본어로 번역하는 요청이므로 한국어 번역을 지원하는 번역 도구를 사용합니다. 원문 언어는 ko, 번역 언어는 ja로 지정합니다.",
  [("Papago 번역", {"source": "ko", "target": "ja", "text": "잘 부탁드립니다"})],
  ["百度翻译", "yandex_translate", "dictionaryapi", "DeepL"])
T("S", "판교역로 166 주소의 좌표를 알려 줘.",
  "주소를 좌표로 변환해야 하므로 카카오 주소 검색에 query 판교역로 166을 넘깁니다.",
  [("kakao.local.search.address", {"query": "판교역로 166"})],
  ["amap/geocode/geo", "nominatim_reverse", "juso_address_search"])
T("S", "20250102 기준 환율 좀 조회해 줘. 달러 매매기준율이 궁금해.",
  "수출입은행 환율 API로 검색일자 20250102의 환율을 조회합니다.",
  [("koreaexim_exchange", {"searchdate": "20250102"})],
  ["汇率查询", "frankfurter_historical", "currency_convert"])
T("S", "경복궁 관련 관광 정보 찾아 줘.",
  "관광정보 키워드 검색을 사용하며 keyword는 경복궁입니다.",
  [("kto_tour_search", {"keyword": "경복궁"})],
  ["kto_detail_common", "楽天トラベル施設検索", "kakao.local.search.address"])

T("R", "강남구, 해운대구, 수성구 측정소 미세먼지 수치 비교해 줘.",
  "측정소별로 한 번씩 조회해야 하므로 강남구, 해운대구, 수성구에 대해 세 번 호출합니다.",
  [("airkorea_realtime", {"stationName": "강남구"}), ("airkorea_realtime", {"stationName": "해운대구"}),
   ("airkorea_realtime", {"stationName": "수성구"})],
  ["waqi_city_feed", "open_meteo_air_quality", "kma_short_term_forecast"])
T("R", "20250101이랑 20250102 박스오피스를 각각 보여 줘.",
  "조회일자별로 박스오피스를 가져와야 하므로 targetDt 20250101, 20250102로 두 번 호출합니다.",
  [("박스오피스 조회", {"targetDt": "20250101"}), ("박스오피스 조회", {"targetDt": "20250102"})],
  ["tmdb_search_movie", "NHK番組表", "kinopoisk_films_search"])
T("R", "20250214에 서울에서 부산 가고, 20250216에 부산에서 서울 돌아오는 열차 시간표 알려 줘.",
  "왕복이므로 열차정보를 두 번 조회합니다. 가는 편은 서울→부산 20250214, 오는 편은 부산→서울 20250216입니다.",
  [("korail_train_info", {"dep_station": "서울", "arr_station": "부산", "dep_date": "20250214"}),
   ("korail_train_info", {"dep_station": "부산", "arr_station": "서울", "dep_date": "20250216"})],
  ["列车余票查询", "ekispert.course.search", "kto_tour_search"])

T("P", "부산 여행 가려고 해. 격자 nx 98, ny 76의 20250405 단기예보, 해운대 관광 정보, 그리고 해운대구 측정소 미세먼지까지 알려 줘.",
  "단기예보(base_date 20250405, nx 98, ny 76), 관광정보 검색(keyword 해운대), 대기오염 조회(stationName 해운대구)는 서로 독립적이므로 세 API를 함께 호출합니다.",
  [("kma_short_term_forecast", {"base_date": "20250405", "nx": 98, "ny": 76}),
   ("kto_tour_search", {"keyword": "해운대"}),
   ("airkorea_realtime", {"stationName": "해운대구"})],
  ["jma_forecast", "kto_detail_common", "waqi_city_feed"])
T("P", "2025년 12월 공휴일 알려 주고, 스키장 관광 정보도 찾아 줘.",
  "공휴일 조회(solYear 2025, solMonth 12)와 관광정보 키워드 검색(스키장)을 각각 호출합니다.",
  [("kasi_getRestDeInfo", {"solYear": 2025, "solMonth": "12"}), ("kto_tour_search", {"keyword": "스키장"})],
  ["holidays_jp", "naver_shopping_search", "楽天トラベル施設検索"])
T("P", "'회의가 30분 늦어집니다'를 ko에서 en으로 번역하고, 세종대로 110 도로명주소도 검색해 줘.",
  "번역(source ko, target en)과 도로명주소 검색(keyword 세종대로 110)은 별개의 작업이라 두 API를 호출합니다.",
  [("Papago 번역", {"source": "ko", "target": "en", "text": "회의가 30분 늦어집니다"}),
   ("juso_address_search", {"keyword": "세종대로 110"})],
  ["DeepL", "amap/geocode/geo", "百度翻译"])

T("N", "경기고등학교 20250310 급식 메뉴가 뭐야?",
  "급식 조회에는 시도교육청코드와 행정표준코드가 필요합니다. 먼저 학교명 경기고등학교로 ATPT_OFCDC_SC_CODE와 SD_SCHUL_CODE를 조회한 뒤, 그 코드와 급식일자 20250310으로 급식 메뉴를 조회합니다.",
  [("neis_school_info", {"SCHUL_NM": "경기고등학교"}),
   ("neis_meal_service", {"ATPT_OFCDC_SC_CODE": ref(0, "ATPT_OFCDC_SC_CODE"),
                          "SD_SCHUL_CODE": ref(0, "SD_SCHUL_CODE"), "MLSV_YMD": "20250310"})],
  ["kto_tour_search", "college_scorecard", "hipolabs_universities"],
  out={0: {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7010083", "SCHUL_NM": "경기고등학교"}})
T("N", "부산 해운대구 우동 1411 근처 날씨를 3일치 알려 줘.",
  "날씨 예보는 위경도가 필요하므로 먼저 주소 '부산 해운대구 우동 1411'을 좌표로 변환하고, 결과의 y(위도)와 x(경도)로 3일 예보를 조회합니다.",
  [("kakao.local.search.address", {"query": "부산 해운대구 우동 1411"}),
   ("open_meteo_forecast", {"latitude": ref(0, "y"), "longitude": ref(0, "x"), "forecast_days": 3})],
  ["kma_short_term_forecast", "juso_address_search", "jma_forecast"],
  out={0: {"x": 129.1604, "y": 35.1631, "address_name": "부산 해운대구 우동 1411"}})
T("N", "불국사에 대한 자세한 소개랑 홈페이지 주소 알려 줘.",
  "상세 정보 조회에는 콘텐츠 ID가 필요하므로 먼저 불국사로 키워드 검색해 contentid를 얻고, 그 contentid로 공통정보를 조회합니다.",
  [("kto_tour_search", {"keyword": "불국사"}), ("kto_detail_common", {"contentId": ref(0, "contentid")})],
  ["楽天トラベル施設検索", "naver_shopping_search", "kakao.local.search.address"],
  out={0: {"contentid": "126207", "title": "불국사", "addr1": "경상북도 경주시 불국로 385"}})

T("X", "이번 주말 미세먼지 어때?",
  "대기오염 정보를 조회하려면 측정소명이 필요한데 지역이 주어지지 않았습니다. 필수 파라미터가 없으므로 어느 지역인지 먼저 물어봐야 합니다.",
  [], ["airkorea_realtime", "waqi_city_feed", "kma_short_term_forecast"], about="airkorea_realtime")
T("X", "어제 예매한 KTX 승차권 취소해 줘.",
  "제공된 도구는 열차 시간표 조회, 관광정보, 번역뿐이고 승차권 예매나 취소 기능은 없습니다. 요청을 처리할 수 없습니다.",
  [], ["korail_train_info", "kto_tour_search", "Papago 번역"], near="korail_train_info")
T("X", "환율 좀 알려 줘.",
  "환율 조회에는 검색일자(YYYYMMDD)가 필수인데 날짜가 없고, 어떤 통화인지도 알 수 없습니다. 필요한 정보를 먼저 확인해야 합니다.",
  [], ["koreaexim_exchange", "汇率查询", "bcb_ptax"], about="koreaexim_exchange")

# ---------------------------------------------------------------------------
# Arabic: AE, SA, EG
# ---------------------------------------------------------------------------
T("S", "ما هي توقعات الطقس في العين لمدة 3 أيام؟",
  "المستخدم يسأل عن طقس مدينة العين في الإمارات، لذلك أستخدم خدمة توقعات المركز الوطني للأرصاد مع المدينة العين وعدد الأيام 3.",
  [("ncm_uae_forecast", {"city": "العين", "days": 3})],
  ["open_meteo_forecast", "yandex_weather", "imd_city_weather", "meteoam_previsioni"])
T("S", "متى موعد صلاة الفجر اليوم في المدينة المنورة؟",
  "المدينة المنورة مدينة سعودية، وخدمة مواقيت الصلاة وفق تقويم أم القرى تغطي مدن المملكة، فأمرر لها المدينة المنورة.",
  [("مواقيت الصلاة", {"city": "المدينة المنورة"})],
  ["ummalqura_hijri_convert", "ncm_uae_forecast", "nager.date/NextPublicHolidays"])
T("S", "كم سعر سهم أرامكو (2222) الآن؟",
  "السؤال عن سعر سهم مدرج في السوق السعودية ورمزه 2222، فأستدعي خدمة أسعار تداول بالرمز 2222.",
  [("tadawul_quote", {"symbol": "2222"})],
  ["alphavantage.GLOBAL_QUOTE", "nse_quote_equity", "cbe_exchange_rates"])
T("S", "ما سعر الصرف الرسمي للدولار USD مقابل الجنيه المصري اليوم؟",
  "المطلوب السعر الرسمي للدولار مقابل الجنيه المصري، وهو ما ينشره البنك المركزي المصري؛ أستدعي الخدمة مع العملة USD.",
  [("cbe_exchange_rates", {"currency": "USD"})],
  ["uae_cb_exchange_rates", "currency_convert", "tcmb_doviz_kurlari"])
T("S", "أريد مواعيد القطارات من القاهرة إلى الإسكندرية يوم 2025-03-20.",
  "هذا بحث عن قطارات داخل مصر بين محطتين في تاريخ محدد: من القاهرة إلى الإسكندرية بتاريخ 2025-03-20.",
  [("enr_train_search", {"from_station": "القاهرة", "to_station": "الإسكندرية", "date": "2025-03-20"})],
  ["rta_journey_planner", "Яндекс.Расписания", "amadeus_flight_offers"])
T("S", "ما هو العنوان الكامل للعنوان المختصر RRRD2929؟",
  "العنوان المختصر يحوَّل إلى عنوان كامل عبر خدمة العنوان الوطني، وأمرر short_address بالقيمة RRRD2929.",
  [("spl_national_address", {"short_address": "RRRD2929"})],
  ["nominatim_search", "zippopotam", "postcodes_io"])
T("S", "ما التاريخ الهجري الموافق 2025-03-01؟",
  "المطلوب تحويل تاريخ ميلادي إلى هجري، فأستخدم خدمة التحويل وفق أم القرى مع التاريخ 2025-03-01.",
  [("ummalqura_hijri_convert", {"gregorian_date": "2025-03-01"})],
  ["مواقيت الصلاة", "calendarific_holidays", "nager.date/PublicHolidays"])

T("R", "أعطني أوقات الصلاة في الرياض وفي جدة.",
  "الخدمة تعيد مواقيت مدينة واحدة في كل استدعاء، لذلك أستدعيها مرتين: الرياض ثم جدة.",
  [("مواقيت الصلاة", {"city": "الرياض"}), ("مواقيت الصلاة", {"city": "جدة"})],
  ["calendarific_holidays", "ummalqura_hijri_convert", "ncm_uae_forecast"])
T("R", "قارن لي بين سعر سهم 1120 وسهم 2010 في السوق السعودية.",
  "أحتاج سعر سهمين، فأستدعي خدمة أسعار تداول مرتين: الرمز 1120 ثم الرمز 2010.",
  [("tadawul_quote", {"symbol": "1120"}), ("tadawul_quote", {"symbol": "2010"})],
  ["alphavantage.GLOBAL_QUOTE", "moex_securities", "cbe_exchange_rates"])

T("P", "سأسافر إلى دبي غداً: كيف سيكون الطقس هناك، وما سعر صرف EUR مقابل الدرهم؟",
  "طلبان مستقلان: توقعات الطقس لمدينة دبي من المركز الوطني للأرصاد، وسعر صرف EUR من مصرف الإمارات المركزي.",
  [("ncm_uae_forecast", {"city": "دبي"}), ("uae_cb_exchange_rates", {"currency": "EUR"})],
  ["open_meteo_forecast", "cbe_exchange_rates", "rta_journey_planner"])
T("P", "ما أوقات الصلاة في مكة المكرمة، وما التاريخ الهجري الموافق 2025-06-06؟",
  "أحتاج أداتين مختلفتين: مواقيت الصلاة لمدينة مكة المكرمة، وتحويل التاريخ 2025-06-06 إلى الهجري.",
  [("مواقيت الصلاة", {"city": "مكة المكرمة"}), ("ummalqura_hijri_convert", {"gregorian_date": "2025-06-06"})],
  ["calendarific_holidays", "tadawul_quote", "spl_national_address"])

T("N", "ما أوقات الصلاة في المدينة التي يقع فيها العنوان المختصر RHMA3184؟",
  "لا أعرف المدينة بعد، لذلك أبحث أولاً عن العنوان المختصر RHMA3184 للحصول على city، ثم أستخدم city لجلب مواقيت الصلاة.",
  [("spl_national_address", {"short_address": "RHMA3184"}), ("مواقيت الصلاة", {"city": ref(0, "city")})],
  ["ncm_uae_forecast", "nominatim_search", "ummalqura_hijri_convert"],
  out={0: {"city": "الرياض", "district": "حي الملز", "postal_code": "12831"}})
T("N", "كيف سيكون الطقس خلال 5 أيام عند العنوان المختصر JEDA4652؟",
  "توقعات الطقس تحتاج إلى إحداثيات، فأبحث أولاً عن العنوان المختصر JEDA4652 لأحصل على latitude و longitude، ثم أطلب توقعات 5 أيام بهذه الإحداثيات.",
  [("spl_national_address", {"short_address": "JEDA4652"}),
   ("open_meteo_forecast", {"latitude": ref(0, "latitude"), "longitude": ref(0, "longitude"), "forecast_days": 5})],
  ["ncm_uae_forecast", "مواقيت الصلاة", "yandex_weather"],
  out={0: {"city": "جدة", "district": "حي الروضة", "postal_code": "23435", "latitude": 21.5655, "longitude": 39.1603}})

T("X", "كم سعر السهم الآن؟",
  "خدمة الأسعار تحتاج رمز السهم، والسؤال لا يحدد أي سهم. المعامل المطلوب غير موجود، لذا يجب أن أسأل المستخدم عنه.",
  [], ["tadawul_quote", "alphavantage.GLOBAL_QUOTE", "cbe_exchange_rates"], about="tadawul_quote")
T("X", "احجز لي تذكرة طيران من القاهرة إلى جدة الأسبوع القادم.",
  "الأدوات المتاحة تبحث في مواعيد القطارات والمواصلات داخل دبي وتوقعات الطقس فقط، ولا يوجد ما يحجز تذاكر الطيران.",
  [], ["enr_train_search", "rta_journey_planner", "ncm_uae_forecast"], near="enr_train_search")

# ---------------------------------------------------------------------------
# Russian: RU
# ---------------------------------------------------------------------------
T("S", "Какой был официальный курс доллара на 15/03/2024?",
  "Нужен официальный курс валют ЦБ РФ на конкретную дату, поэтому вызываю сервис курсов ЦБ с date_req 15/03/2024.",
  [("Курсы валют ЦБ РФ", {"date_req": "15/03/2024"})],
  ["frankfurter_historical", "currency_convert", "tcmb_doviz_kurlari", "bcb_ptax"])
T("S", "Сколько сейчас стоят акции Сбербанка, тикер SBER?",
  "Пользователь спрашивает текущую котировку российской акции с тикером SBER — подходит сервис котировок Московской биржи.",
  [("moex_securities", {"secid": "SBER"})],
  ["alphavantage.GLOBAL_QUOTE", "新浪股票行情", "Курсы валют ЦБ РФ"])
T("S", "Маршрут Москва — Казань, дата 2025-04-05. Какие есть поезда?",
  "Нужно расписание между двумя городами России на дату: from Москва, to Казань, date 2025-04-05.",
  [("Яндекс.Расписания", {"from": "Москва", "to": "Казань", "date": "2025-04-05"})],
  ["列车余票查询", "db.transport.rest/journeys", "korail_train_info"])
T("S", "Дай прогноз погоды на 5 дней для точки 55.7558, 37.6173.",
  "Точка находится в Москве, поэтому использую прогноз Яндекса: lat 55.7558, lon 37.6173, limit 5.",
  [("yandex_weather", {"lat": 55.7558, "lon": 37.6173, "limit": 5})],
  ["nws_forecast", "brightsky_weather", "met_office_daily"])
T("S", "Подскажи полный адрес и индекс, я помню только «москва хабар».",
  "Пользователь помнит только часть адреса, поэтому нужен сервис подсказок по адресам России: передаю ему фрагмент «москва хабар», и он вернёт полный адрес с индексом.",
  [("dadata_suggest_address", {"query": "москва хабар"})],
  ["nominatim_search", "juso_address_search", "postcodes_io"])
T("S", "Найди фильм «Брат 2», хочу узнать его рейтинг.",
  "Нужно найти фильм по названию, чтобы узнать его рейтинг, поэтому ищу на Кинопоиске по ключевому слову «Брат 2».",
  [("kinopoisk_films_search", {"keyword": "Брат 2"})],
  ["kinopoisk_film", "tmdb_search_movie", "박스오피스 조회"])
T("S", "Какие есть вакансии «Python-разработчик» в Санкт-Петербурге? Регион area 2.",
  "Нужен поиск вакансий по ключевым словам «Python-разработчик» в регионе с ID 2 (Санкт-Петербург).",
  [("hh_vacancies", {"text": "Python-разработчик", "area": 2})],
  ["dadata_suggest_address", "e_stat_stats_list", "companies_house_search"])
T("S", "Переведи на en фразу «Без труда не выловишь и рыбку из пруда».",
  "Нужно перевести русскую пословицу на английский язык. Сервис перевода принимает массив строк, поэтому передаю одну фразу в массиве и код языка en.",
  [("yandex_translate", {"texts": ["Без труда не выловишь и рыбку из пруда"], "targetLanguageCode": "en"})],
  ["Papago 번역", "百度翻译", "dictionaryapi"])

T("R", "Сравни официальные курсы ЦБ на 01/02/2024 и на 01/03/2024.",
  "Курсы ЦБ запрашиваются на одну дату за вызов, поэтому вызываю сервис дважды: 01/02/2024 и 01/03/2024.",
  [("Курсы валют ЦБ РФ", {"date_req": "01/02/2024"}), ("Курсы валют ЦБ РФ", {"date_req": "01/03/2024"})],
  ["frankfurter_historical", "bcb_ptax", "moex_securities"])
T("R", "Покажи текущие котировки GAZP и LKOH.",
  "Пользователь просит котировки двух бумаг, поэтому я делаю два отдельных запроса к котировкам Московской биржи: сначала по тикеру GAZP, затем по тикеру LKOH.",
  [("moex_securities", {"secid": "GAZP"}), ("moex_securities", {"secid": "LKOH"})],
  ["alphavantage.GLOBAL_QUOTE", "nse_quote_equity", "tadawul_quote"])

T("P", "Еду в Петербург: какие поезда Москва — Санкт-Петербург 2025-06-12 и какая будет погода в точке 59.9386, 30.3141?",
  "Два независимых запроса: расписание from Москва, to Санкт-Петербург на 2025-06-12 и прогноз погоды для точки 59.9386, 30.3141.",
  [("Яндекс.Расписания", {"from": "Москва", "to": "Санкт-Петербург", "date": "2025-06-12"}),
   ("yandex_weather", {"lat": 59.9386, "lon": 30.3141})],
  ["db.transport.rest/journeys", "open_meteo_air_quality", "dadata_suggest_address"])
T("P", "Какой курс ЦБ на 10/01/2025 и сколько сейчас стоит бумага YDEX?",
  "Нужны официальные курсы ЦБ на 10/01/2025 и котировка бумаги YDEX на Мосбирже — это два разных сервиса.",
  [("Курсы валют ЦБ РФ", {"date_req": "10/01/2025"}), ("moex_securities", {"secid": "YDEX"})],
  ["frankfurter_historical", "alphavantage.GLOBAL_QUOTE", "hh_vacancies"])

T("N", "Какая сейчас погода у дома по адресу Невский проспект 28?",
  "Для прогноза нужны координаты. Сначала нахожу адрес «Невский проспект 28» и беру geo_lat и geo_lon, затем запрашиваю погоду по этим координатам.",
  [("dadata_suggest_address", {"query": "Невский проспект 28"}),
   ("yandex_weather", {"lat": ref(0, "geo_lat"), "lon": ref(0, "geo_lon")})],
  ["postcodes_io", "open_meteo_air_quality", "Яндекс.Расписания"],
  out={0: {"value": "г Санкт-Петербург, Невский пр-кт, д 28", "postal_code": "191186", "geo_lat": 59.9357, "geo_lon": 30.3260}})
T("N", "Расскажи подробно, о чём фильм «Левиафан».",
  "Подробное описание есть только в карточке фильма, которой нужен filmId. Сначала ищу «Левиафан», беру filmId из результата и запрашиваю по нему полные данные.",
  [("kinopoisk_films_search", {"keyword": "Левиафан"}), ("kinopoisk_film", {"id": ref(0, "filmId")})],
  ["tmdb_search_movie", "jikan_anime_search", "yandex_translate"],
  out={0: {"filmId": 753062, "nameRu": "Левиафан", "year": "2014", "rating": "7.5"}})

T("X", "Найди мне поезд до Казани.",
  "Для расписания нужны город отправления и дата, а в запросе есть только пункт назначения. Обязательных параметров не хватает — нужно уточнить у пользователя.",
  [], ["Яндекс.Расписания", "db.transport.rest/journeys", "dadata_suggest_address"], about="Яндекс.Расписания")
T("X", "Вызови мне такси до Шереметьево.",
  "Среди инструментов есть только расписания, подсказки адресов и погода; заказать такси ни один из них не умеет.",
  [], ["Яндекс.Расписания", "dadata_suggest_address", "yandex_weather"], near="dadata_suggest_address")
T("X", "Сколько сейчас стоят акции этой компании?",
  "Для котировки нужен код бумаги, а компания не названа. Обязательный параметр secid отсутствует.",
  [], ["moex_securities", "alphavantage.GLOBAL_QUOTE", "hh_vacancies"], about="moex_securities")

# ---------------------------------------------------------------------------
# Hindi: IN
# ---------------------------------------------------------------------------
T("S", "पिन कोड 110001 किस इलाके का है?",
  "उपयोगकर्ता 6 अंकों का पिन कोड दे रहा है, इसलिए भारतीय डाक के पिन कोड API में pincode 110001 भेजूँगा।",
  [("postalpincode.in/pincode", {"pincode": "110001"})],
  ["zippopotam", "postalpincode.in/postoffice", "郵便番号検索", "sepomex_codigo_postal"])
T("S", "अगले सात दिन जयपुर का मौसम कैसा रहेगा?",
  "जयपुर एक भारतीय शहर है, इसलिए IMD का शहर पूर्वानुमान सही है; city में जयपुर दूँगा।",
  [("imd_city_weather", {"city": "जयपुर"})],
  ["天气查询", "ncm_uae_forecast", "yandex_weather"])
T("S", "मेरा PNR 4521367890 है, टिकट कन्फर्म हुआ या नहीं?",
  "PNR स्थिति जाँचनी है, इसलिए PNR स्टेटस API में pnr 4521367890 भेजूँगा।",
  [("indian_rail_pnr_status", {"pnr": "4521367890"})],
  ["indian_rail_live_status", "列车余票查询", "enr_train_search"])
T("S", "इंफोसिस (INFY) के शेयर का ताज़ा भाव बताइए।",
  "NSE पर सूचीबद्ध शेयर का लाइव भाव चाहिए, symbol INFY है।",
  [("nse_quote_equity", {"symbol": "INFY"})],
  ["alphavantage.GLOBAL_QUOTE", "tadawul_quote", "moex_securities"])
T("S", "महाराष्ट्र की मंडियों में आज प्याज़ का भाव क्या है?",
  "मंडी भाव के लिए राज्य और जिंस चाहिए: state महाराष्ट्र और commodity प्याज़।",
  [("mandi_commodity_prices", {"state": "महाराष्ट्र", "commodity": "प्याज़"})],
  ["open_food_facts_product", "nse_quote_equity", "themealdb_search"])
T("S", "अभी कौन-कौन से क्रिकेट मैच चल रहे हैं?",
  "चल रहे क्रिकेट मैचों की सूची के लिए currentMatches API को बिना किसी पैरामीटर के बुलाऊँगा।",
  [("cricapi_current_matches", {})],
  ["cricapi_match_info", "football_data_matches", "balldontlie_games"])

T("R", "पिन कोड 560001 और 600001 के डाकघर बताइए।",
  "दो अलग पिन कोड हैं, इसलिए पिन कोड API को दो बार बुलाऊँगा: पहले 560001, फिर 600001।",
  [("postalpincode.in/pincode", {"pincode": "560001"}), ("postalpincode.in/pincode", {"pincode": "600001"})],
  ["postalpincode.in/postoffice", "zippopotam", "sepomex_codigo_postal"])
T("R", "ट्रेन 12951 और 12301 की 15-04-2025 की लाइव स्थिति बताइए।",
  "हर ट्रेन की स्थिति अलग से मिलती है: train_number 12951 और 12301, दोनों के लिए date 15-04-2025।",
  [("indian_rail_live_status", {"train_number": "12951", "date": "15-04-2025"}),
   ("indian_rail_live_status", {"train_number": "12301", "date": "15-04-2025"})],
  ["indian_rail_pnr_status", "viaggiatreno_andamento_treno", "enr_train_search"])

T("P", "मैं वाराणसी जा रहा हूँ: वहाँ का मौसम बताइए और मेरे PNR 2345678901 की स्थिति भी।",
  "दो स्वतंत्र काम हैं: वाराणसी का मौसम IMD से और PNR 2345678901 की स्थिति रेलवे API से।",
  [("imd_city_weather", {"city": "वाराणसी"}), ("indian_rail_pnr_status", {"pnr": "2345678901"})],
  ["indian_rail_live_status", "open_meteo_forecast", "postalpincode.in/postoffice"])
T("P", "TCS के शेयर का भाव और अभी चल रहे क्रिकेट मैच, दोनों बताइए।",
  "शेयर भाव (symbol TCS) और चल रहे मैचों की सूची दो अलग API से मिलेंगे।",
  [("nse_quote_equity", {"symbol": "TCS"}), ("cricapi_current_matches", {})],
  ["alphavantage.GLOBAL_QUOTE", "cricapi_match_info", "mandi_commodity_prices"])

T("N", "पिन कोड 302001 वाले ज़िले का मौसम बताइए।",
  "मौसम API को शहर का नाम चाहिए। पहले पिन कोड 302001 से District पता करूँगा, फिर उसी District के लिए मौसम लूँगा।",
  [("postalpincode.in/pincode", {"pincode": "302001"}), ("imd_city_weather", {"city": ref(0, "District")})],
  ["zippopotam", "open_meteo_forecast", "postalpincode.in/postoffice"],
  out={0: {"District": "Jaipur", "State": "Rajasthan", "Name": "Jaipur G.P.O."}})
T("N", "अभी चल रहे मैचों में से पहले मैच का पूरा स्कोरकार्ड दिखाइए।",
  "स्कोरकार्ड के लिए मैच id चाहिए। पहले चल रहे मैचों की सूची लूँगा, फिर पहले मैच की id से पूरा विवरण माँगूँगा।",
  [("cricapi_current_matches", {}), ("cricapi_match_info", {"id": ref(0, "id")})],
  ["football_data_matches", "balldontlie_games", "ergast_f1_results"],
  out={0: {"id": "c3a9d1e2-7b54-4f0a-9a61-2f8e5d1b6c07", "name": "India vs Australia, 3rd ODI", "status": "India need 42 runs in 35 balls"}})

T("X", "मेरी ट्रेन अभी कहाँ पहुँची है?",
  "लाइव स्थिति के लिए ट्रेन नंबर और तारीख ज़रूरी हैं, जो सवाल में नहीं हैं। पहले उपयोगकर्ता से ये जानकारी लेनी होगी।",
  [], ["indian_rail_live_status", "indian_rail_pnr_status", "imd_city_weather"], about="indian_rail_live_status")
T("X", "मेरे आधार कार्ड में पता बदल दीजिए।",
  "उपलब्ध टूल केवल पिन कोड, डाकघर और मौसम की जानकारी देते हैं; आधार में पता बदलने का कोई टूल नहीं है।",
  [], ["postalpincode.in/pincode", "postalpincode.in/postoffice", "imd_city_weather"], near="postalpincode.in/postoffice")

# ---------------------------------------------------------------------------
# German: DE
# ---------------------------------------------------------------------------
T("S", "Ich brauche die Wetterdaten für Berlin-Mitte (Breite 52.52, Länge 13.405) am 2025-03-15.",
  "Gesucht sind DWD-Wetterdaten für einen Ort in Deutschland an einem Datum. Ich rufe den Wetterdienst mit lat 52.52, lon 13.405 und date 2025-03-15 auf.",
  [("brightsky_weather", {"lat": 52.52, "lon": 13.405, "date": "2025-03-15"})],
  ["met_office_daily", "nws_forecast", "tankerkoenig_list", "yandex_weather"])
T("S", "Welche Feiertage gibt es 2025 in Bayern (BY)?",
  "Gesetzliche Feiertage für ein Jahr und ein Bundesland: jahr 2025, nur_land BY.",
  [("feiertage_api", {"jahr": 2025, "nur_land": "BY"})],
  ["nager.date/NextPublicHolidays", "uk_bank_holidays", "holidays_jp"])
T("S", "Zeig mir die aktuellen Nachrichten aus dem Ressort Wirtschaft.",
  "Der Nutzer möchte aktuelle Nachrichten eines Ressorts; die Tagesschau-Schnittstelle filtert nach ressort, hier wirtschaft.",
  [("tagesschau_news", {"ressort": "wirtschaft"})],
  ["guardian_search", "newsapi_top_headlines", "dip_bundestag_drucksache"])
T("S", "Wo tanke ich im Umkreis von 5 km um 48.137, 11.575 am günstigsten Diesel?",
  "Spritpreise in Deutschland rund um eine Koordinate: lat 48.137, lng 11.575, rad 5 und type diesel.",
  [("tankerkoenig_list", {"lat": 48.137, "lng": 11.575, "rad": 5, "type": "diesel"})],
  ["prix_carburants", "gasolineras_municipio", "db.transport.rest/locations"])
T("S", "Übersetze bitte „Wir freuen uns auf die Zusammenarbeit“ ins Englische, Zielsprache EN-GB.",
  "Eine Übersetzung aus dem Deutschen ins britische Englisch: text ist der Satz, target_lang EN-GB.",
  [("DeepL", {"text": "Wir freuen uns auf die Zusammenarbeit", "target_lang": "EN-GB"})],
  ["百度翻译", "Papago 번역", "dictionaryapi"])
T("S", "Welche parlamentarischen Drucksachen gibt es mit dem Stichwort Cannabisgesetz im Titel?",
  "Gesucht sind Drucksachen nach einem Titelstichwort; ich übergebe titel Cannabisgesetz.",
  [("dip_bundestag_drucksache", {"titel": "Cannabisgesetz"})],
  ["federal_register_documents", "tagesschau_news", "insee_sirene_siret"])
T("S", "Wie lautet die Stations-ID von Köln Hbf?",
  "Die Stations-ID liefert die Bahnhofssuche; query ist Köln Hbf.",
  [("db.transport.rest/locations", {"query": "Köln Hbf"})],
  ["db.transport.rest/journeys", "sncf/places", "viaggiatreno_cerca_stazione"])

T("R", "Welche Feiertage gibt es 2025 in NW, BE und HH?",
  "Die Feiertags-API filtert jeweils ein Bundesland, also drei Aufrufe mit jahr 2025: nur_land NW, BE und HH.",
  [("feiertage_api", {"jahr": 2025, "nur_land": "NW"}), ("feiertage_api", {"jahr": 2025, "nur_land": "BE"}),
   ("feiertage_api", {"jahr": 2025, "nur_land": "HH"})],
  ["nager.date/PublicHolidays", "calendarific_holidays", "kasi_getRestDeInfo", "uk_bank_holidays"])
T("R", "Vergleiche das Wetter am 2025-07-01 in Hamburg (53.55, 9.99) und München (48.14, 11.58).",
  "Zwei Orte am selben Datum, also zwei Abfragen: lat 53.55, lon 9.99 und lat 48.14, lon 11.58, jeweils date 2025-07-01.",
  [("brightsky_weather", {"lat": 53.55, "lon": 9.99, "date": "2025-07-01"}),
   ("brightsky_weather", {"lat": 48.14, "lon": 11.58, "date": "2025-07-01"})],
  ["met_office_daily", "yandex_weather", "meteoam_previsioni"])

T("P", "Ich fahre am 2025-05-10 nach Leipzig: Zeig mir Tankstellen im Umkreis von 3 km um 51.34, 12.37 und das Wetter dort an dem Tag.",
  "Zwei unabhängige Abfragen für denselben Ort: Spritpreise (lat 51.34, lng 12.37, rad 3) und Wetter (lat 51.34, lon 12.37, date 2025-05-10).",
  [("tankerkoenig_list", {"lat": 51.34, "lng": 12.37, "rad": 3}),
   ("brightsky_weather", {"lat": 51.34, "lon": 12.37, "date": "2025-05-10"})],
  ["prix_carburants", "open_meteo_air_quality", "db.transport.rest/journeys"])
T("P", "Übersetze „Gleis 4 fällt heute aus“ ins FR und such mir die Station Saarbrücken Hbf.",
  "Eine Übersetzung (text „Gleis 4 fällt heute aus“, target_lang FR) und eine Bahnhofssuche (query Saarbrücken Hbf); beides unabhängig.",
  [("DeepL", {"text": "Gleis 4 fällt heute aus", "target_lang": "FR"}),
   ("db.transport.rest/locations", {"query": "Saarbrücken Hbf"})],
  ["sncf/places", "yandex_translate", "db.transport.rest/journeys"])

T("N", "Welche Verbindungen gibt es am 2025-04-11T08:00 von Frankfurt(Main)Hbf nach Mannheim Hbf?",
  "Die Verbindungssuche braucht Stations-IDs. Zuerst suche ich Frankfurt(Main)Hbf und Mannheim Hbf, nehme jeweils die id und suche dann die Verbindungen von der ersten id zur zweiten id mit departure 2025-04-11T08:00.",
  [("db.transport.rest/locations", {"query": "Frankfurt(Main)Hbf"}),
   ("db.transport.rest/locations", {"query": "Mannheim Hbf"}),
   ("db.transport.rest/journeys", {"from": ref(0, "id"), "to": ref(1, "id"), "departure": "2025-04-11T08:00"})],
  ["sncf/journeys", "viaggiatreno_partenze", "Яндекс.Расписания"],
  out={0: {"id": "8000105", "name": "Frankfurt(Main)Hbf"}, 1: {"id": "8000244", "name": "Mannheim Hbf"}})
T("N", "Wie war das Wetter auf der Zugspitze am 2025-02-01?",
  "Für die Wetterdaten brauche ich Koordinaten. Ich suche zuerst die Zugspitze und verwende dann lat und lon des Treffers für die Abfrage am 2025-02-01.",
  [("nominatim_search", {"q": "Zugspitze"}),
   ("brightsky_weather", {"lat": ref(0, "lat"), "lon": ref(0, "lon"), "date": "2025-02-01"})],
  ["db.transport.rest/locations", "met_office_daily", "open_meteo_air_quality"],
  out={0: {"lat": 47.4211, "lon": 10.9853, "display_name": "Zugspitze, Grainau, Bayern"}})

T("X", "Welche Feiertage gibt es in meinem Bundesland?",
  "Die Feiertags-API braucht das Jahr, und das Bundesland ist auch unbekannt. Ohne diese Angaben kann ich nichts sinnvoll abfragen und muss nachfragen.",
  [], ["feiertage_api", "nager.date/PublicHolidays", "tagesschau_news"], about="feiertage_api")
T("X", "Buch mir ein Hotel in Dresden für nächstes Wochenende.",
  "Die verfügbaren Werkzeuge suchen Bahnhöfe, Zugverbindungen und Wetterdaten; eine Hotelbuchung kann keines davon.",
  [], ["db.transport.rest/locations", "db.transport.rest/journeys", "brightsky_weather"], near="db.transport.rest/locations")

# ---------------------------------------------------------------------------
# French: FR
# ---------------------------------------------------------------------------
T("S", "Quelles sont les coordonnées GPS du 8 boulevard du Port, Amiens ?",
  "Il faut transformer une adresse française en coordonnées : j'interroge donc la Base Adresse Nationale avec l'adresse « 8 boulevard du Port, Amiens ».",
  [("api-adresse.data.gouv.fr/search", {"q": "8 boulevard du Port, Amiens"})],
  ["geo_api_communes", "nominatim_reverse", "kakao.local.search.address"])
T("S", "Quelles communes ont le code postal 13100 ?",
  "La question porte sur les communes associées à un code postal : codePostal 13100.",
  [("geo_api_communes", {"codePostal": "13100"})],
  ["zippopotam", "sepomex_codigo_postal", "insee_sirene_siret"])
T("S", "Donne-moi la fiche de l'établissement dont le SIRET est 41816609600069.",
  "Un numéro SIRET est fourni, le répertoire Sirene renvoie la fiche de l'établissement : siret 41816609600069.",
  [("insee_sirene_siret", {"siret": "41816609600069"})],
  ["companies_house_search", "brasilapi/cnpj", "geo_api_communes"])
T("S", "Où trouver le SP95 le moins cher dans le 69003 ?",
  "Prix des carburants dans un code postal français : code_postal 69003, carburant SP95.",
  [("prix_carburants", {"code_postal": "69003", "carburant": "SP95"})],
  ["tankerkoenig_list", "gasolineras_municipio", "api-adresse.data.gouv.fr/search", "geo_api_communes"])
T("S", "Où en est mon colis 6A12345678901 ?",
  "Le client veut savoir où se trouve son colis ; je lance donc le suivi de cet envoi avec le numéro 6A12345678901 qu'il a donné.",
  [("laposte_suivi", {"id_ship": "6A12345678901"})],
  ["mercadolibre_item", "insee_sirene_siret", "indian_rail_pnr_status"])
T("S", "Quel est l'identifiant de la gare Lyon Part-Dieu sur le réseau ?",
  "L'identifiant stop_area d'une gare s'obtient par la recherche de lieux SNCF avec q « Lyon Part-Dieu ».",
  [("sncf/places", {"q": "Lyon Part-Dieu"})],
  ["sncf/journeys", "db.transport.rest/locations", "viaggiatreno_cerca_stazione"])

T("R", "Quelles communes correspondent aux codes postaux 33000 et 06000 ?",
  "Deux codes postaux, donc deux appels au découpage administratif : 33000 puis 06000.",
  [("geo_api_communes", {"codePostal": "33000"}), ("geo_api_communes", {"codePostal": "06000"})],
  ["zippopotam", "api-adresse.data.gouv.fr/search", "comuni_ita_provincia"])
T("R", "Peux-tu suivre mes deux colis 8R00123456789 et 6C98765432101 ?",
  "Chaque suivi se fait par numéro : un appel pour 8R00123456789, un autre pour 6C98765432101.",
  [("laposte_suivi", {"id_ship": "8R00123456789"}), ("laposte_suivi", {"id_ship": "6C98765432101"})],
  ["mercadolibre_item", "indian_rail_pnr_status"])

T("P", "Je passe à Nantes : prix du Gazole dans le 44000, et coordonnées du 10 quai de la Fosse, Nantes.",
  "Deux besoins indépendants : prix du carburant (code_postal 44000, carburant Gazole) et géocodage de l'adresse « 10 quai de la Fosse, Nantes ».",
  [("prix_carburants", {"code_postal": "44000", "carburant": "Gazole"}),
   ("api-adresse.data.gouv.fr/search", {"q": "10 quai de la Fosse, Nantes"})],
  ["tankerkoenig_list", "geo_api_communes", "postcodes_io"])
T("P", "Vérifie l'établissement SIRET 55208131766522 et liste les communes du code postal 92100.",
  "Une fiche Sirene (siret 55208131766522) et une liste de communes (codePostal 92100) : deux appels indépendants.",
  [("insee_sirene_siret", {"siret": "55208131766522"}), ("geo_api_communes", {"codePostal": "92100"})],
  ["companies_house_search", "zippopotam", "api-adresse.data.gouv.fr/search"])

T("N", "Quels trains partent le 20250418T070000 de Bordeaux Saint-Jean vers Toulouse Matabiau ?",
  "La recherche d'itinéraires demande des identifiants stop_area. Je cherche d'abord Bordeaux Saint-Jean puis Toulouse Matabiau, je récupère leur id, puis je lance la recherche de l'id de départ vers l'id d'arrivée avec datetime 20250418T070000.",
  [("sncf/places", {"q": "Bordeaux Saint-Jean"}), ("sncf/places", {"q": "Toulouse Matabiau"}),
   ("sncf/journeys", {"from": ref(0, "id"), "to": ref(1, "id"), "datetime": "20250418T070000"})],
  ["db.transport.rest/journeys", "viaggiatreno_partenze", "api-adresse.data.gouv.fr/search"],
  out={0: {"id": "stop_area:SNCF:87581009", "name": "Bordeaux Saint-Jean"},
       1: {"id": "stop_area:SNCF:87611004", "name": "Toulouse Matabiau"}})
T("N", "Quel est le prix de l'E10 autour du 20 avenue de Ségur, Paris ?",
  "Les prix se cherchent par code postal. Je géocode d'abord « 20 avenue de Ségur, Paris » pour obtenir le postcode, puis je cherche le prix de l'E10 pour ce postcode.",
  [("api-adresse.data.gouv.fr/search", {"q": "20 avenue de Ségur, Paris"}),
   ("prix_carburants", {"code_postal": ref(0, "postcode"), "carburant": "E10"})],
  ["tankerkoenig_list", "geo_api_communes", "zippopotam"],
  out={0: {"postcode": "75007", "city": "Paris", "citycode": "75107"}})

T("X", "Quel est le prix du gazole près de chez moi ?",
  "Le prix des carburants se recherche par code postal, et je ne connais pas l'adresse de l'utilisateur. Il manque le paramètre obligatoire code_postal.",
  [], ["prix_carburants", "tankerkoenig_list", "api-adresse.data.gouv.fr/search"], about="prix_carburants")
T("X", "Réserve-moi un billet de TGV Paris-Marseille pour vendredi.",
  "Les outils disponibles cherchent des gares et des itinéraires mais ne vendent pas de billets ; en plus, la date n'est pas précise. Je ne peux pas réserver.",
  [], ["sncf/journeys", "sncf/places", "laposte_suivi"], near="sncf/journeys")

# ---------------------------------------------------------------------------
# Spanish: ES, MX, AR
# ---------------------------------------------------------------------------
T("S", "¿Qué tiempo hará en Sevilla esta semana? El código de municipio es 41091.",
  "Piden la predicción de un municipio español y dan su código INE, así que consulto la predicción por municipio con municipio 41091.",
  [("aemet_prediccion_municipio", {"municipio": "41091"})],
  ["meteoam_previsioni", "open_meteo_forecast", "ine_codigo_municipio", "brightsky_weather"])
T("S", "¿Cuánto le falta al próximo autobús en la parada 3126?",
  "Tiempos de llegada en tiempo real a una parada de la EMT: stop_id 3126.",
  [("emt_madrid_arrivals", {"stop_id": 3126})],
  ["sptrans/Previsao/Parada", "mbta_predictions", "TfL Line Status"])
T("S", "Dame el precio de la luz por horas entre 2025-01-20T00:00 y 2025-01-20T23:59.",
  "El usuario quiere el precio horario de la electricidad en un intervalo: start_date 2025-01-20T00:00 y end_date 2025-01-20T23:59.",
  [("ree_precio_luz", {"start_date": "2025-01-20T00:00", "end_date": "2025-01-20T23:59"})],
  ["gasolineras_municipio", "ine_tempus_serie", "banxico_tipo_cambio"])
T("S", "¿Dónde está más barato el gasóleo en Getafe?",
  "Precios de carburantes de un municipio español: municipio Getafe.",
  [("gasolineras_municipio", {"municipio": "Getafe"})],
  ["prix_carburants", "tankerkoenig_list", "ree_precio_luz"])
T("S", "¿Cuál fue el tipo de cambio FIX entre 2025-01-02 y 2025-01-10?",
  "El tipo de cambio FIX lo publica el Banco de México; consulto la serie con fecha_inicio 2025-01-02 y fecha_fin 2025-01-10.",
  [("banxico_tipo_cambio", {"fecha_inicio": "2025-01-02", "fecha_fin": "2025-01-10"})],
  ["frankfurter_historical", "bcb_ptax", "currency_convert"])
T("S", "¿A qué colonia corresponde el código postal 06700?",
  "El usuario pregunta por un código postal mexicano de cinco dígitos, así que consulto el catálogo de códigos postales con el valor 06700.",
  [("sepomex_codigo_postal", {"cp": "06700"})],
  ["zippopotam", "viacep", "geo_api_communes"])
T("S", "Buscá yerba mate de 1 kg y mostrame 15 resultados.",
  "Es una búsqueda de productos en Mercado Libre Argentina: q «yerba mate de 1 kg» y limit 15.",
  [("mercadolibre_search", {"q": "yerba mate de 1 kg", "limit": 15})],
  ["mercadolibre_item", "naver_shopping_search", "bestbuy_products"])
T("S", "Dame los últimos 12 datos de la serie IPC251856.",
  "Datos de una serie del INE: cod_serie IPC251856 y nult 12.",
  [("ine_tempus_serie", {"cod_serie": "IPC251856", "nult": 12})],
  ["world_bank_indicator", "ree_precio_luz", "e_stat_stats_list"])

T("R", "Compara la predicción de Madrid (28079), Valencia (46250) y Bilbao (48020).",
  "Tres municipios, tres consultas a la predicción por municipio: 28079, 46250 y 48020.",
  [("aemet_prediccion_municipio", {"municipio": "28079"}), ("aemet_prediccion_municipio", {"municipio": "46250"}),
   ("aemet_prediccion_municipio", {"municipio": "48020"})],
  ["meteoam_previsioni", "ine_codigo_municipio", "brightsky_weather", "cptec/previsao"])
T("R", "¿Qué autobuses llegan ahora a las paradas 70 y 1543?",
  "La consulta de llegadas es por parada, así que llamo dos veces: stop_id 70 y stop_id 1543.",
  [("emt_madrid_arrivals", {"stop_id": 70}), ("emt_madrid_arrivals", {"stop_id": 1543})],
  ["sptrans/Previsao/Parada", "TfL Journey Planner", "mbta_predictions"])
T("R", "¿Qué colonias tienen los códigos postales 44100 y 64000?",
  "Dos códigos postales mexicanos, una consulta para cada uno: 44100 y 64000.",
  [("sepomex_codigo_postal", {"cp": "44100"}), ("sepomex_codigo_postal", {"cp": "64000"})],
  ["zippopotam", "viacep", "geo_api_communes"])

T("P", "Voy a Barcelona: dame la predicción del municipio 08019 y el precio de la luz entre 2025-02-03T00:00 y 2025-02-03T23:00.",
  "Son dos consultas independientes: la predicción del municipio 08019 y el precio horario de la luz entre 2025-02-03T00:00 y 2025-02-03T23:00.",
  [("aemet_prediccion_municipio", {"municipio": "08019"}),
   ("ree_precio_luz", {"start_date": "2025-02-03T00:00", "end_date": "2025-02-03T23:00"})],
  ["meteoam_previsioni", "gasolineras_municipio", "ine_tempus_serie"])
T("P", "Necesito el tipo de cambio FIX del 2025-03-03 al 2025-03-07 y las colonias del código postal 03100.",
  "Dos datos distintos: la serie FIX de Banxico entre 2025-03-03 y 2025-03-07, y las colonias del cp 03100.",
  [("banxico_tipo_cambio", {"fecha_inicio": "2025-03-03", "fecha_fin": "2025-03-07"}),
   ("sepomex_codigo_postal", {"cp": "03100"})],
  ["frankfurter_historical", "zippopotam", "currency_convert"])

T("N", "¿Qué tiempo hará en Zaragoza? No sé el código del municipio.",
  "La predicción necesita el código INE. Primero busco el municipio Zaragoza para obtener su codigo_ine y luego pido la predicción con ese codigo_ine.",
  [("ine_codigo_municipio", {"nombre": "Zaragoza"}),
   ("aemet_prediccion_municipio", {"municipio": ref(0, "codigo_ine")})],
  ["meteoam_previsioni", "comuni_ita_provincia", "gasolineras_municipio"],
  out={0: {"codigo_ine": "50297", "nombre": "Zaragoza", "provincia": "Zaragoza"}})
T("N", "Buscá un termo Stanley y decime la garantía de la primera publicación.",
  "La garantía está en el detalle de la publicación. Primero busco «termo Stanley», tomo el id del primer resultado y consulto el detalle con ese id.",
  [("mercadolibre_search", {"q": "termo Stanley"}), ("mercadolibre_item", {"item_id": ref(0, "id")})],
  ["bestbuy_products", "naver_shopping_search", "rakuten.ichiba.item.search"],
  out={0: {"id": "MLA1398765432", "title": "Termo Stanley Classic 1 L", "price": 89999}})

T("X", "¿Cuándo llega el próximo bus?",
  "Para consultar llegadas hace falta el número de parada y no lo tengo. Falta un parámetro obligatorio; hay que preguntar al usuario.",
  [], ["emt_madrid_arrivals", "sptrans/Previsao/Parada", "mbta_predictions"], about="emt_madrid_arrivals")
T("X", "Pídeme cita con el médico de cabecera para el lunes.",
  "Las herramientas disponibles dan predicciones del tiempo, precios de la luz y de carburantes; ninguna gestiona citas médicas.",
  [], ["aemet_prediccion_municipio", "ree_precio_luz", "gasolineras_municipio"], near="aemet_prediccion_municipio")
T("X", "¿Qué tiempo hará mañana en mi pueblo?",
  "La predicción necesita el código del municipio y no sé cuál es el pueblo del usuario. Falta la información necesaria.",
  [], ["aemet_prediccion_municipio", "ine_codigo_municipio", "meteoam_previsioni"], about="aemet_prediccion_municipio")

# ---------------------------------------------------------------------------
# Italian: IT
# ---------------------------------------------------------------------------
T("S", "Che tempo farà a Bologna nei prossimi giorni?",
  "Servono le previsioni per un comune italiano: chiamo le previsioni dell'Aeronautica Militare con localita Bologna.",
  [("meteoam_previsioni", {"localita": "Bologna"})],
  ["aemet_prediccion_municipio", "brightsky_weather", "comuni_ita_provincia", "open_meteo_forecast"])
T("S", "Qual era il cambio ufficiale del dollaro USD il 2024-12-31?",
  "Il cambio di riferimento per una data lo pubblica la Banca d'Italia: referenceDate 2024-12-31, currencyIsoCode USD.",
  [("bancaditalia_cambi", {"referenceDate": "2024-12-31", "currencyIsoCode": "USD"})],
  ["tcmb_doviz_kurlari", "banxico_tipo_cambio", "currency_convert"])
T("S", "Elencami tutti i comuni della provincia di Lecco.",
  "Si chiede l'elenco dei comuni di una provincia: provincia Lecco.",
  [("comuni_ita_provincia", {"provincia": "Lecco"})],
  ["geo_api_communes", "ibge/municipios", "ine_codigo_municipio"])
T("S", "Il Frecciarossa 9525 è in ritardo?",
  "Per sapere il ritardo di un treno uso l'andamento in tempo reale con numero_treno 9525.",
  [("viaggiatreno_andamento_treno", {"numero_treno": "9525"})],
  ["viaggiatreno_partenze", "indian_rail_live_status", "db.transport.rest/journeys"])
T("S", "Qual è il codice della stazione Firenze Santa Maria Novella?",
  "Il codice di una stazione si ottiene con la ricerca per nome: testo Firenze Santa Maria Novella.",
  [("viaggiatreno_cerca_stazione", {"testo": "Firenze Santa Maria Novella"})],
  ["sncf/places", "db.transport.rest/locations", "comuni_ita_provincia"])

T("R", "Controlla l'andamento dei treni 2143 e 2157.",
  "Due treni, due richieste di andamento: numero_treno 2143 e numero_treno 2157.",
  [("viaggiatreno_andamento_treno", {"numero_treno": "2143"}), ("viaggiatreno_andamento_treno", {"numero_treno": "2157"})],
  ["viaggiatreno_partenze", "indian_rail_live_status", "enr_train_search"])
T("R", "Com'è il meteo a Palermo e a Catania?",
  "Le previsioni sono per un comune alla volta, quindi chiamo due volte: Palermo e poi Catania.",
  [("meteoam_previsioni", {"localita": "Palermo"}), ("meteoam_previsioni", {"localita": "Catania"})],
  ["aemet_prediccion_municipio", "open_meteo_forecast", "comuni_ita_provincia"])

T("P", "Vado a Venezia: che tempo farà e qual era il cambio della sterlina GBP il 2025-02-14?",
  "Due richieste indipendenti: previsioni per Venezia e cambio di riferimento GBP alla data 2025-02-14.",
  [("meteoam_previsioni", {"localita": "Venezia"}),
   ("bancaditalia_cambi", {"referenceDate": "2025-02-14", "currencyIsoCode": "GBP"})],
  ["frankfurter_historical", "brightsky_weather", "viaggiatreno_andamento_treno"])
T("P", "Elenca i comuni della provincia di Bari e dimmi se il treno 8803 viaggia in orario.",
  "Servono l'elenco dei comuni (provincia Bari) e l'andamento del treno 8803: due strumenti diversi.",
  [("comuni_ita_provincia", {"provincia": "Bari"}), ("viaggiatreno_andamento_treno", {"numero_treno": "8803"})],
  ["viaggiatreno_partenze", "geo_api_communes", "meteoam_previsioni"])

T("N", "Quali treni partono da Milano Centrale dalle 2025-03-14T18:00?",
  "Il tabellone partenze vuole il codice stazione. Prima cerco Milano Centrale per avere il codice, poi chiedo le partenze con quel codice e orario 2025-03-14T18:00.",
  [("viaggiatreno_cerca_stazione", {"testo": "Milano Centrale"}),
   ("viaggiatreno_partenze", {"codice_stazione": ref(0, "codice"), "orario": "2025-03-14T18:00"})],
  ["db.transport.rest/locations", "viaggiatreno_andamento_treno", "sncf/journeys"],
  out={0: {"codice": "S01700", "nome": "MILANO CENTRALE"}})
T("N", "Mostrami le prossime partenze da Torino Porta Nuova.",
  "Mi serve il codice della stazione: cerco Torino Porta Nuova, prendo il codice e poi chiedo le partenze con quel codice.",
  [("viaggiatreno_cerca_stazione", {"testo": "Torino Porta Nuova"}),
   ("viaggiatreno_partenze", {"codice_stazione": ref(0, "codice")})],
  ["sncf/places", "viaggiatreno_andamento_treno", "emt_madrid_arrivals"],
  out={0: {"codice": "S00219", "nome": "TORINO PORTA NUOVA"}})

T("X", "Il mio treno è in ritardo?",
  "Per controllare il ritardo serve il numero del treno, che non è indicato. Manca un parametro obbligatorio.",
  [], ["viaggiatreno_andamento_treno", "viaggiatreno_partenze", "meteoam_previsioni"], about="viaggiatreno_andamento_treno")
T("X", "Prenotami un tavolo in una trattoria a Trastevere per stasera.",
  "Gli strumenti disponibili danno meteo, cambi valuta ed elenchi di comuni: nessuno può prenotare un ristorante.",
  [], ["meteoam_previsioni", "bancaditalia_cambi", "comuni_ita_provincia"], near="comuni_ita_provincia")

# ---------------------------------------------------------------------------
# Portuguese: BR
# ---------------------------------------------------------------------------
T("S", "Qual é o endereço do CEP 01310-100?",
  "O usuário quer o logradouro de um CEP brasileiro; consulto o ViaCEP com cep 01310-100.",
  [("viacep", {"cep": "01310-100"})],
  ["zippopotam", "sepomex_codigo_postal", "brasilapi/ddd", "postalpincode.in/pincode"])
T("S", "Quais são os feriados nacionais de 2025?",
  "Feriados nacionais do Brasil por ano: ano 2025.",
  [("brasilapi/feriados", {"ano": 2025})],
  ["nager.date/NextPublicHolidays", "节假日查询", "feiertage_api"])
T("S", "Qual foi a cotação PTAX do euro (EUR) em 10/01/2025?",
  "A cotação PTAX é do Banco Central do Brasil: moeda EUR e dataCotacao 10/01/2025.",
  [("bcb_ptax", {"moeda": "EUR", "dataCotacao": "10/01/2025"})],
  ["frankfurter_historical", "bancaditalia_cambi", "banxico_tipo_cambio"])
T("S", "Consulta pra mim os dados do CNPJ 19131243000197.",
  "Dados cadastrais de empresa pelo CNPJ: cnpj 19131243000197.",
  [("brasilapi/cnpj", {"cnpj": "19131243000197"})],
  ["insee_sirene_siret", "companies_house_search", "viacep"])
T("S", "Quais cidades usam o DDD 71?",
  "Cidades atendidas por um código DDD: ddd 71.",
  [("brasilapi/ddd", {"ddd": "71"})],
  ["ibge/municipios", "viacep", "sepomex_codigo_postal"])
T("S", "Liste os municípios do estado de Sergipe (SE).",
  "Municípios de uma UF pelo IBGE: uf SE.",
  [("ibge/municipios", {"uf": "SE"})],
  ["comuni_ita_provincia", "brasilapi/ddd", "geo_api_communes"])
T("S", "Quando passa o próximo ônibus no ponto 340015329?",
  "Previsão de chegada da SPTrans em um ponto: codigoParada 340015329.",
  [("sptrans/Previsao/Parada", {"codigoParada": 340015329})],
  ["emt_madrid_arrivals", "mbta_predictions", "cptec/previsao"])
T("S", "Preciso da latitude e longitude do CEP 30130-010.",
  "Só a consulta de CEP da BrasilAPI v2 devolve coordenadas; passo o cep 30130-010.",
  [("brasilapi/cep/v2", {"cep": "30130-010"})],
  ["viacep", "zippopotam", "nominatim_reverse"])

T("R", "Me passa os endereços dos CEPs 20040-002, 40010-000 e 80010-000.",
  "São três CEPs, então consulto o ViaCEP três vezes: 20040-002, 40010-000 e 80010-000.",
  [("viacep", {"cep": "20040-002"}), ("viacep", {"cep": "40010-000"}), ("viacep", {"cep": "80010-000"})],
  ["zippopotam", "brasilapi/ddd", "postalpincode.in/pincode", "sepomex_codigo_postal"])
T("R", "Qual foi a PTAX do dólar (USD) em 02/01/2025 e em 30/12/2024?",
  "A PTAX é consultada por data; chamo duas vezes com moeda USD: 02/01/2025 e 30/12/2024.",
  [("bcb_ptax", {"moeda": "USD", "dataCotacao": "02/01/2025"}), ("bcb_ptax", {"moeda": "USD", "dataCotacao": "30/12/2024"})],
  ["frankfurter_historical", "currency_convert", "banxico_tipo_cambio"])

T("P", "Quero planejar as viagens de 2026: quais os feriados do ano e a previsão de 4 dias para a cidade de código 244?",
  "Duas consultas independentes: feriados nacionais de 2026 e previsão do CPTEC para city_code 244 com days 4.",
  [("brasilapi/feriados", {"ano": 2026}), ("cptec/previsao", {"city_code": 244, "days": 4})],
  ["nager.date/PublicHolidays", "cptec/cidade", "open_meteo_forecast"])
T("P", "Quais cidades têm DDD 21 e quais são os municípios do RJ?",
  "Uma consulta de DDD (21) e uma lista de municípios do IBGE (uf RJ); nenhuma depende da outra.",
  [("brasilapi/ddd", {"ddd": "21"}), ("ibge/municipios", {"uf": "RJ"})],
  ["viacep", "comuni_ita_provincia", "brasilapi/cnpj"])

T("N", "Como vai estar o tempo em Florianópolis nos próximos 3 dias?",
  "A previsão exige o código da cidade no CPTEC. Primeiro busco Florianópolis para obter o id, depois peço a previsão de 3 dias com esse id.",
  [("cptec/cidade", {"city_name": "Florianópolis"}), ("cptec/previsao", {"city_code": ref(0, "id"), "days": 3})],
  ["open_meteo_forecast", "viacep", "meteoam_previsioni"],
  out={0: {"id": 5514, "nome": "Florianópolis", "estado": "SC"}})
T("N", "Quais são os municípios do estado onde fica o CEP 70040-010?",
  "Não sei a UF do CEP. Primeiro consulto o CEP 70040-010 para obter a uf e depois listo os municípios dessa uf.",
  [("viacep", {"cep": "70040-010"}), ("ibge/municipios", {"uf": ref(0, "uf")})],
  ["brasilapi/ddd", "zippopotam", "comuni_ita_provincia"],
  out={0: {"cep": "70040-010", "logradouro": "SBN Quadra 1", "localidade": "Brasília", "uf": "DF"}})
T("N", "Qual é o endereço completo da sede da empresa de CNPJ 00000000000191?",
  "Primeiro consulto o CNPJ 00000000000191 para pegar o cep da sede, depois uso esse cep no ViaCEP para obter o endereço completo.",
  [("brasilapi/cnpj", {"cnpj": "00000000000191"}), ("viacep", {"cep": ref(0, "cep")})],
  ["insee_sirene_siret", "companies_house_search", "brasilapi/ddd"],
  out={0: {"razao_social": "BANCO DO BRASIL SA", "cep": "70040912", "municipio": "BRASILIA", "uf": "DF"}})

T("X", "Quanto estava o dólar naquele dia?",
  "A PTAX precisa de uma data exata e \"naquele dia\" não diz qual. Falta o parâmetro obrigatório dataCotacao.",
  [], ["bcb_ptax", "frankfurter_historical", "currency_convert"], about="bcb_ptax")
T("X", "Emite a segunda via do meu boleto da conta de luz.",
  "As ferramentas disponíveis consultam CEP, CNPJ e feriados; nenhuma emite boletos.",
  [], ["viacep", "brasilapi/cnpj", "brasilapi/feriados"], near="brasilapi/cnpj")

# ---------------------------------------------------------------------------
# Turkish: TR
# ---------------------------------------------------------------------------
T("S", "14.02.2025 tarihinde EUR kuru ne kadardı?",
  "Merkez Bankası'nın belirli bir tarihteki kuru isteniyor: tarih 14.02.2025, doviz_kodu EUR.",
  [("tcmb_doviz_kurlari", {"tarih": "14.02.2025", "doviz_kodu": "EUR"})],
  ["uae_cb_exchange_rates", "bancaditalia_cambi", "cbe_exchange_rates", "koreaexim_exchange"])
T("S", "Son 10 depremi listeler misin?",
  "Kandilli'nin son depremleri listesinden 10 kayıt istiyorum: limit 10.",
  [("kandilli_son_depremler", {"limit": 10})],
  ["disease_sh_country", "open_meteo_forecast", "nobetci_eczane"])
T("S", "Bugün İzmir Karşıyaka'da hangi eczaneler nöbetçi?",
  "Nöbetçi eczaneler il ve ilçeye göre sorgulanır: il İzmir, ilce Karşıyaka.",
  [("nobetci_eczane", {"il": "İzmir", "ilce": "Karşıyaka"})],
  ["openfda_drug_label", "kandilli_son_depremler", "nominatim_search"])

T("R", "İstanbul'da Kadıköy ve Beşiktaş'taki nöbetçi eczaneleri göster.",
  "İki ilçe için ayrı ayrı sorgu gerekiyor: il İstanbul ile önce Kadıköy, sonra Beşiktaş.",
  [("nobetci_eczane", {"il": "İstanbul", "ilce": "Kadıköy"}), ("nobetci_eczane", {"il": "İstanbul", "ilce": "Beşiktaş"})],
  ["openfda_drug_label", "kandilli_son_depremler"])

T("P", "03.03.2025 tarihli USD kurunu ve büyüklüğü 4 ve üzeri son depremleri göster.",
  "İki bağımsız istek var: 03.03.2025 için USD kuru ve min_buyukluk 4 olan son depremler.",
  [("tcmb_doviz_kurlari", {"tarih": "03.03.2025", "doviz_kodu": "USD"}),
   ("kandilli_son_depremler", {"min_buyukluk": 4})],
  ["frankfurter_historical", "disease_sh_country", "nobetci_eczane"])

T("N", "En son olan depremin tam olarak hangi adreste olduğunu göster.",
  "Önce son depremler listesini alıp en yeni kaydın lat ve lng değerlerini kullanacağım, sonra bu koordinatlarla adres sorgusu yapacağım.",
  [("kandilli_son_depremler", {}),
   ("nominatim_reverse", {"lat": ref(0, "lat"), "lon": ref(0, "lng")})],
  ["nominatim_search", "nobetci_eczane", "open_meteo_forecast"],
  out={0: {"title": "SINDIRGI (BALIKESIR)", "mag": 3.1, "lat": 39.2331, "lng": 28.1752, "depth": 7.2}})

T("X", "Nöbetçi eczane hangisi?",
  "Nöbetçi eczaneyi bulmak için il ve ilçe gerekli, ama soruda konum yok. Zorunlu parametreler eksik.",
  [], ["nobetci_eczane", "kandilli_son_depremler", "openfda_drug_label"], about="nobetci_eczane")
T("X", "Yarın İstanbul'da hava nasıl olacak?",
  "Elimdeki araçlar döviz kuru, deprem listesi ve nöbetçi eczane veriyor; hava durumu için uygun bir araç yok.",
  [], ["tcmb_doviz_kurlari", "kandilli_son_depremler", "nobetci_eczane"], near="kandilli_son_depremler")


# ===========================================================================
# Assembly and checks
# ===========================================================================
SEED = 20250601
BY_NAME = {a["name"]: a for a in APIS}
TYPE_OK = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
}
SCRIPT = {
    "zh": r"[\u4e00-\u9fff]", "ja": r"[\u3040-\u30ff]", "ko": r"[\uac00-\ud7af]",
    "ar": r"[\u0600-\u06ff]", "ru": r"[\u0400-\u04ff]", "hi": r"[\u0900-\u097f]",
}
LATIN_LANGS = {"en", "de", "fr", "es", "it", "pt", "tr"}


def norm(s):
    return unicodedata.normalize("NFKC", s).casefold()


def is_ref(v):
    return isinstance(v, dict) and set(v) == {"$ref"}


def literal_problems(value, query):
    """Argument values must be written literally in the query."""
    q = norm(query)
    if is_ref(value):
        return []
    if isinstance(value, bool):
        return ["boolean %r" % value]
    if isinstance(value, (int, float)):
        return [] if str(value) in query else ["number %r" % value]
    if isinstance(value, str):
        parts = [value] if norm(value) in q else value.split(",")
        return [] if all(norm(x.strip()) in q for x in parts) else ["string %r" % value]
    if isinstance(value, list):
        return [x for v in value for x in literal_problems(v, query)]
    return ["value %r" % value]


def check_language(text, lang, what):
    errs = []
    if lang in SCRIPT:
        if not re.search(SCRIPT[lang], text):
            errs.append("%s has no %s script" % (what, lang))
        if lang == "zh" and re.search(SCRIPT["ja"], text):
            errs.append("%s (zh) contains kana" % what)
    else:
        letters = [c for c in text if c.isalpha()]
        latin = [c for c in letters if unicodedata.name(c, "").startswith("LATIN")]
        if letters and len(latin) / len(letters) < 0.85:
            errs.append("%s (%s) is not mostly Latin" % (what, lang))
    return errs


def build():
    errors = []
    # --- APIs -------------------------------------------------------------
    seen = set()
    for a in APIS:
        if a["name"] in seen:
            errors.append("duplicate API %s" % a["name"])
        seen.add(a["name"])
        for prm in a["required_parameters"] + a["optional_parameters"]:
            if prm["type"] not in TYPE_OK:
                errors.append("%s.%s: bad type %s" % (a["name"], prm["name"], prm["type"]))
            if "default" in prm and not TYPE_OK[prm["type"]](prm["default"]):
                errors.append("%s.%s: default of wrong type" % (a["name"], prm["name"]))

    # --- tasks ------------------------------------------------------------
    rng = random.Random(SEED)
    order = list(range(len(TASKS)))
    rng.shuffle(order)
    records = []
    for new_i, old_i in enumerate(order):
        t = TASKS[old_i]
        tid = "itc-%04d" % (new_i + 1)
        where = "%s (%s)" % (tid, t["query"][:40])
        calls = t["calls"]
        gold_names = []
        for c in calls:
            if c["name"] not in gold_names:
                gold_names.append(c["name"])
        cand = list(gold_names)
        extra = list(t["conf"])
        if t["about"] and t["about"] not in cand + extra:
            extra.append(t["about"])
        for n in extra:
            if n in cand:
                errors.append("%s: candidate %s listed twice" % (where, n))
            cand.append(n)
        unknown = [n for n in cand if n not in BY_NAME]
        if unknown:
            errors.append("%s: unknown tools %s" % (where, unknown))
            continue
        n_conf = len(cand) - len(gold_names)
        if gold_names and not 2 <= n_conf <= 4:
            errors.append("%s: %d confusers" % (where, n_conf))
        if not gold_names and not 3 <= len(cand) <= 5:
            errors.append("%s: %d candidates for no_tool" % (where, len(cand)))

        # country, language, category
        if calls:
            tools_used = [BY_NAME[c["name"]] for c in calls]
        else:
            tools_used = [BY_NAME[t["about"]]]
        countries = [x["country"] for x in tools_used if x["country"] != "GLOBAL"]
        country = countries[0] if countries else "GLOBAL"
        if len(set(countries)) > 1:
            errors.append("%s: gold tools from several countries %s" % (where, countries))
        language = LANG_OF_COUNTRY[country]
        category = tools_used[0]["category"]

        # kind-specific shape
        kind = t["kind"]
        refs = [(ci, k, v["$ref"]) for ci, c in enumerate(calls)
                for k, v in c["arguments"].items() if is_ref(v)]
        if kind == "single" and len(calls) != 1:
            errors.append("%s: single with %d calls" % (where, len(calls)))
        if kind == "repeated" and (len(calls) < 2 or len(gold_names) != 1):
            errors.append("%s: repeated must call one tool several times" % where)
        if kind == "repeated" and len({json.dumps(c["arguments"], sort_keys=True) for c in calls}) != len(calls):
            errors.append("%s: repeated calls with identical arguments" % where)
        if kind == "parallel" and (len(gold_names) < 2 or refs):
            errors.append("%s: parallel needs >=2 distinct tools and no refs" % where)
        if kind == "nested" and not refs:
            errors.append("%s: nested without $ref" % where)
        if kind == "no_tool" and calls:
            errors.append("%s: no_tool with calls" % where)
        if kind != "nested" and refs:
            errors.append("%s: $ref outside nested" % where)
        for ci, k, r in refs:
            m = re.fullmatch(r"(\d+)\.(\w+)", r)
            if not m or int(m.group(1)) >= ci:
                errors.append("%s: bad $ref %s in call %d" % (where, r, ci))
                continue
            src = int(m.group(1))
            if m.group(2) not in t["out"].get(src, {}):
                errors.append("%s: $ref %s not in recorded output" % (where, r))
            if m.group(2).lower() not in t["thought"].lower():
                errors.append("%s: thought does not name placeholder %s" % (where, m.group(2)))

        # arguments against the tool schema and the query
        for c in calls:
            tool = BY_NAME[c["name"]]
            params = {x["name"]: x for x in tool["required_parameters"] + tool["optional_parameters"]}
            for r in tool["required_parameters"]:
                if r["name"] not in c["arguments"]:
                    errors.append("%s: %s lacks required %s" % (where, c["name"], r["name"]))
            for k, v in c["arguments"].items():
                if k not in params:
                    errors.append("%s: %s has no parameter %s" % (where, c["name"], k))
                    continue
                if not is_ref(v) and not TYPE_OK[params[k]["type"]](v):
                    errors.append("%s: %s.%s=%r is not %s" % (where, c["name"], k, v, params[k]["type"]))
                if k not in t["literal_exempt"]:
                    for prob in literal_problems(v, t["query"]):
                        errors.append("%s: %s.%s %s not literal in query" % (where, c["name"], k, prob))
        for n in cand:
            if len(n) > 3 and norm(n) in norm(t["query"]):
                errors.append("%s: query names tool %s" % (where, n))
        errors += check_language(t["query"], language, where + " query")
        errors += check_language(re.sub(r"[A-Za-z0-9_.:/-]+", " ", t["thought"]) if language in SCRIPT else t["thought"],
                                 language, where + " thought")

        # candidate list: full tool objects, shuffled
        trng = random.Random("%d/%s" % (SEED, tid))
        trng.shuffle(cand)
        rec = {
            "id": tid, "kind": kind, "language": language, "country": country,
            "category": category, "query": t["query"],
            "tools": [BY_NAME[n] for n in cand],
            "gold": {"thought": t["thought"], "calls": calls},
        }
        if kind == "nested":
            rec["turns"] = make_turns(calls, t["out"])
        elif kind in ("repeated", "parallel"):
            # One step: all calls, each with its recorded output.
            outputs = RECORDED_OUTPUTS.get(tid)
            if outputs is None or len(outputs) != len(calls):
                errors.append("%s: recorded_outputs.json needs one output per gold call" % tid)
            else:
                rec["turns"] = [{"calls": calls, "tool_outputs": outputs}]
        records.append(rec)
    return records, errors


# Recorded outputs of the repeated and parallel tasks' calls, by task id:
# invented but plausible bodies of each API, as for the nested tasks' `out`.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded_outputs.json"), encoding="utf-8") as _f:
    RECORDED_OUTPUTS = json.load(_f)


def resolve(v, out):
    if is_ref(v):
        i, field = v["$ref"].split(".", 1)
        return out[int(i)][field]
    return v


def make_turns(calls, out):
    """Split nested gold calls into steps; a call runs one step after the
    latest call it refers to. Each turn lists its calls with references
    resolved to the recorded outputs, and the outputs the model sees before
    the next step (the last step's outputs are not needed, so it has none)."""
    step = []
    for c in calls:
        deps = [int(v["$ref"].split(".")[0]) for v in c["arguments"].values() if is_ref(v)]
        step.append(1 + max(step[d] for d in deps) if deps else 0)
    turns = []
    last = max(step)
    for s in range(last + 1):
        idx = [i for i in range(len(calls)) if step[i] == s]
        turns.append({
            "calls": [{"name": calls[i]["name"],
                       "arguments": {k: resolve(v, out) for k, v in calls[i]["arguments"].items()}}
                      for i in idx],
            "tool_outputs": [out[i] for i in idx] if s < last else [],
        })
    return turns


def main():
    records, errors = build()
    if errors:
        for e in errors:
            print("ERROR", e, file=sys.stderr)
        sys.exit("%d errors" % len(errors))
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "apis.json"), "w", encoding="utf-8") as f:
        json.dump(APIS, f, ensure_ascii=False, indent=2)
        f.write("\n")
    with open(os.path.join(OUT, "tasks.jsonl"), "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    used = {c["name"] for r in records for c in r["tools"]}
    print("%d APIs (%d used as candidates), %d tasks" % (len(APIS), len(used), len(records)))
    reasons = {}
    for t in TASKS:
        if t["no_tool_reason"]:
            reasons[t["no_tool_reason"]] = reasons.get(t["no_tool_reason"], 0) + 1
    print("no_tool tasks: " + ", ".join("%s %d" % kv for kv in sorted(reasons.items())))


if __name__ == "__main__":
    main()
